// The "occupancy" request: the driver's own answer (cuOccupancyMaxActiveBlocksPerMultiprocessor)
// for many launch shapes of one kernel, to check the engine's calculator against.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

namespace kx::runner {

// request: {"module": FILE, "kernel": NAME, "points": [[block, dyn_smem, carveout], ...]}
// reply: {"ok":true, "registers": R, "static_smem": S, "blocks_per_sm": [...]} (one per point;
// -1 where the driver refused the shape).
nlohmann::json occupancyQuery(DeviceContext& ctx, const nlohmann::json& request);

}  // namespace kx::runner
