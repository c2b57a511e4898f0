// The one timing loop of the runner: kernels and baselines are timed by the same code, so their
// figures cannot drift apart.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <vector>

namespace kx::runner {

// Median, min, max and the samples of a list of times in milliseconds.
nlohmann::json timingSummary(std::vector<double> ms);

// Calls prepare(i) then call(i) `warmup` times, then `reps` times with call(i) between two CUDA
// events on the default stream, and summarises the event times. prepare runs outside the events
// (restoring an in-place kernel's input); i counts every call from 0. Throws RunnerError.
nlohmann::json timeCalls(DeviceContext& ctx, int warmup, int reps, const std::function<void(int)>& prepare,
                         const std::function<void(int)>& call);

}  // namespace kx::runner
