// A sweep's results as data: each point as JSON (the session's sweep_points.result_json, and
// `kx sweep --json`), as CSV, and recorded into a session with the variant and run it made.
#pragma once

#include "store/session_store.hpp"
#include "sweep/sweep.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kx::engine {

// {"name", "config": {...}, "flags" (CompileFlags::canonical(): "" for the defaults), "status",
//  "reason", "violations": [...], "compile_ms", "from_cache",
//  "resources": {"registers", "spill_store_bytes", "spill_load_bytes", "static_smem_bytes",
//                "dynamic_smem_bytes", "stack_frame_bytes", "threads_per_block", "barriers"} | null,
//  "predicted": {"occupancy", "blocks_per_sm", "limiter", "ai", "roofline_tflops",
//                "roofline_device", "roofline_unit", "memory_bound"} | null,
//  "measured": {"device", "device_name", "median_ms", "min_ms", "max_ms", "tflops", "gbps",
//               "pct_of_ceiling" | null, "pct_of_baseline" | null, "pct_of_roof" | null,
//               "verdict"} | null}
// "predicted" figures come from the compile and the template's formulas, "measured" ones from
// a run on a GPU; the two are never mixed.
nlohmann::json sweepPointJson(const SweepPoint& point);
// Its inverse for what the JSON holds (no source, compile result or full run report; a measured
// point gets a RunReport with the measured figures). Throws InputError on malformed JSON.
SweepPoint sweepPointFromJson(const nlohmann::json& json, const std::string& templateId);

// One row per point, header first: the template's parameters (one column each, manifest
// order), one column per compiler flag that some point sets to other than its default (each
// point's value of it, compileFlagKeys() order; none when every point has the default flags),
// then name,status,reason,registers,spill_bytes,static_smem,dynamic_smem,threads,
// occupancy,blocks_per_sm,limiter,predicted_ai,predicted_roof_tflops,compile_ms,device,
// median_ms,tflops,gbps,pct_of_ceiling,pct_of_baseline,pct_of_roof,verdict. Empty fields for
// what a point does not have. RFC 4180 quoting.
std::string sweepCsv(const Template& tmpl, const std::vector<SweepPoint>& points);

// A fresh identifier for a sweep (hex), unique across machines for practical purposes.
std::string newSweepUid();

// Records a finished point in the sweep `sweepId` in one transaction: a compiled point's
// variant (findOrAddVariant, with source, PTX and resource report), its run when it has one,
// and the sweep point with its outcome and reason.
void recordSweepPoint(SessionStore& store, std::int64_t sweepId, const std::string& arch, const SweepPoint& point);

// The stored points of a sweep as SweepPoints (for views of a sweep read from a session).
std::vector<SweepPoint> storedSweepPoints(const SessionStore& store, std::int64_t sweepId, const std::string& templateId);

}  // namespace kx::engine
