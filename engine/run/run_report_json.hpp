// JSON form of a run's reports: one serializer for `kx run --json` and for session files, so a
// report stored in a session reads back exactly as the CLI printed it.
//
// Keys are snake_case and stable (sessions written today must read back tomorrow): a report
// gains keys over time but never renames one. fromJson reads what it knows and leaves absent
// keys at their defaults, so older documents still load.
#pragma once

#include "run/variant_run.hpp"

#include <nlohmann/json.hpp>

namespace kx::engine {

nlohmann::json toJson(const CorrectnessReport& report);
nlohmann::json toJson(const BaselineReport& report);
// The same shape as kx-runner's "pc_sampling" reply (runner/PROTOCOL.md).
nlohmann::json toJson(const PcSamplingReport& report);
// The same shape as kx-runner's "memory_counters" reply, less its "metrics" detail.
nlohmann::json toJson(const MemoryCountersReport& report);
// "error" is written only when ok is false; "baselines" (every one), "baseline" (the primary
// one, for older readers), "pct_of_copy_bandwidth" and "pct_of_compute_ceiling" only when
// present. Reading accepts the older "library_baseline" and "pct_of_cublas_peak" keys.
nlohmann::json toJson(const RunReport& report);

// Throw InputError when j is not an object or a known key holds the wrong type.
CorrectnessReport correctnessReportFromJson(const nlohmann::json& j);
BaselineReport baselineReportFromJson(const nlohmann::json& j);
PcSamplingReport pcSamplingReportFromJson(const nlohmann::json& j);
MemoryCountersReport memoryCountersReportFromJson(const nlohmann::json& j);
RunReport runReportFromJson(const nlohmann::json& j);

}  // namespace kx::engine
