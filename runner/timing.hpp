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

// What timeInterleaved times: prepare(i) (untimed; may be empty), then call(i) between events;
// i counts this item's calls from 0, warm-ups included, as timeCalls counts them.
struct TimedCalls {
    std::function<void(int)> prepare;
    std::function<void(int)> call;
};

// Each item `reps` times, in `rounds` rounds: a round takes every item in turn, each with its
// warm-up calls (`warmup` in the first round, one after) and then its share of the reps between
// events. A clock or power drift during the measurement then touches every item alike, so the
// ratios of their medians hold; one item timed after another would carry the drift between
// them. onError(item, error) takes a RunnerError of an item (rethrow it to stop); the item is
// then left out of the later rounds and its entry is null. Returns one timingSummary per item.
std::vector<nlohmann::json> timeInterleaved(DeviceContext& ctx, int warmup, int reps, int rounds, const std::vector<TimedCalls>& items,
                                            const std::function<void(std::size_t, const RunnerError&)>& onError);

}  // namespace kx::runner
