// The "run" request: load a module, set up buffers, check-launch once, time many launches.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

namespace kx::runner {

// Request and reply fields are documented in PROTOCOL.md. Throws RunnerError.
nlohmann::json runKernel(DeviceContext& ctx, const nlohmann::json& request);

// Median, min, max and the samples of a list of times in milliseconds.
nlohmann::json timingSummary(std::vector<double> ms);

}  // namespace kx::runner
