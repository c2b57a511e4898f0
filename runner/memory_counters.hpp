// The memory traffic of one run measured by the GPU's hardware counters, through CUPTI's Range
// Profiler: bytes read from and written to DRAM, and bytes moved through L2 and L1, so that a
// roofline's measured point sits at the intensity the kernel really has rather than at the one
// its template's byte formula assumes. The counters may need several passes over the run (the
// hardware counts a few metrics at a time). Each pass starts from an L2 holding none of the
// run's data and no dirty line, as Nsight Compute's passes do, so DRAM bytes are a cold run's and
// not a re-run's that finds its inputs in L2. DRAM writes are those made during the run: L2 is a
// write-back cache, so the output lines still dirty in it when the run ends (at most L2's size)
// are written later and not counted, as in Nsight Compute.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

#include <functional>

namespace kx::runner {

// The counters collected, as CUPTI names them; "memory_counters" in the reply gives each value.
inline constexpr const char* kMemoryCounterMetrics[] = {"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
                                                        "l1tex__t_bytes.sum"};

// Runs `prepare` then `runOnce` once per pass, the second inside the profiled range; never
// throws for CUPTI's failures (no CUPTI, no permission to profile, an unsupported GPU), which
// come back as {"error": words}; a fault in the run throws RunnerError as any launch does.
// Else {"dram_read_bytes":..,"dram_write_bytes":..,"l2_bytes":..,"l1_bytes":..,"passes":n,
// "metrics":{name:value}}.
nlohmann::json measureMemoryCounters(DeviceContext& ctx, const std::function<void()>& prepare, const std::function<void()>& runOnce);

}  // namespace kx::runner
