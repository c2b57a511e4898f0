#include "timing.hpp"

#include <algorithm>

namespace kx::runner {

nlohmann::json timingSummary(std::vector<double> ms) {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n == 0 ? 0 : (n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]));
    return {{"median_ms", median}, {"min_ms", n ? sorted.front() : 0}, {"max_ms", n ? sorted.back() : 0}, {"samples_ms", ms}};
}

namespace {

// prepare(i) and call(i) `warmup` times, then `reps` times with call(i) between two events;
// the event times are appended to `times`. i continues from `next`, which is advanced.
void timeChunk(DeviceContext& ctx, int warmup, int reps, const TimedCalls& item, int& next, std::vector<double>& times) {
    const CudaDriver& d = ctx.driver();
    for (int w = 0; w < warmup; ++w, ++next) {
        if (item.prepare) item.prepare(next);
        item.call(next);
    }
    struct Events {
        const CudaDriver& d;
        std::vector<CUevent> list;
        ~Events() {
            for (CUevent e : list)
                if (e) d.cuEventDestroy(e);
        }
    } events{d, std::vector<CUevent>(static_cast<size_t>(2 * reps), nullptr)};
    for (CUevent& e : events.list) ctx.check(d.cuEventCreate(&e, CU_EVENT_DEFAULT), "creating events");
    for (int r = 0; r < reps; ++r, ++next) {
        if (item.prepare) item.prepare(next);
        ctx.check(d.cuEventRecord(events.list[2 * r], nullptr), "recording an event");
        item.call(next);
        ctx.check(d.cuEventRecord(events.list[2 * r + 1], nullptr), "recording an event");
    }
    ctx.check(d.cuEventSynchronize(events.list.back()), "timing");
    for (int r = 0; r < reps; ++r) {
        float ms = 0;
        ctx.check(d.cuEventElapsedTime(&ms, events.list[2 * r], events.list[2 * r + 1]), "reading the timer");
        times.push_back(ms);
    }
}

}  // namespace

nlohmann::json timeCalls(DeviceContext& ctx, int warmup, int reps, const std::function<void(int)>& prepare,
                         const std::function<void(int)>& call) {
    int next = 0;
    std::vector<double> times;
    timeChunk(ctx, warmup, std::max(1, reps), TimedCalls{prepare, call}, next, times);
    return timingSummary(times);
}

std::vector<nlohmann::json> timeInterleaved(DeviceContext& ctx, int warmup, int reps, int rounds, const std::vector<TimedCalls>& items,
                                            const std::function<void(std::size_t, const RunnerError&)>& onError) {
    reps = std::max(1, reps);
    rounds = std::clamp(rounds, 1, reps);
    std::vector<int> next(items.size(), 0);
    std::vector<std::vector<double>> times(items.size());
    std::vector<bool> failed(items.size(), false);
    for (int round = 0; round < rounds; ++round) {
        const int share = reps / rounds + (round < reps % rounds ? 1 : 0);
        for (std::size_t k = 0; k < items.size(); ++k) {
            if (failed[k]) continue;
            try {
                timeChunk(ctx, round == 0 ? warmup : 1, share, items[k], next[k], times[k]);
            } catch (const RunnerError& e) {
                onError(k, e);
                failed[k] = true;
            }
        }
    }
    std::vector<nlohmann::json> out;
    for (std::size_t k = 0; k < items.size(); ++k) out.push_back(failed[k] ? nlohmann::json() : timingSummary(times[k]));
    return out;
}

}  // namespace kx::runner
