// The "run" request: load a module, set up buffers, check-launch the kernel sequence once, time
// many runs of it, then time the requested baselines on the same inputs.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

namespace kx::runner {

// Request and reply fields are documented in PROTOCOL.md. Throws RunnerError.
nlohmann::json runKernel(DeviceContext& ctx, const nlohmann::json& request);

}  // namespace kx::runner
