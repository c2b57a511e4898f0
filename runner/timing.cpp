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

nlohmann::json timeCalls(DeviceContext& ctx, int warmup, int reps, const std::function<void(int)>& prepare,
                         const std::function<void(int)>& call) {
    const CudaDriver& d = ctx.driver();
    reps = std::max(1, reps);
    int i = 0;
    for (; i < warmup; ++i) {
        if (prepare) prepare(i);
        call(i);
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
    for (int r = 0; r < reps; ++r, ++i) {
        if (prepare) prepare(i);
        ctx.check(d.cuEventRecord(events.list[2 * r], nullptr), "recording an event");
        call(i);
        ctx.check(d.cuEventRecord(events.list[2 * r + 1], nullptr), "recording an event");
    }
    ctx.check(d.cuEventSynchronize(events.list.back()), "timing");
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
        float ms = 0;
        ctx.check(d.cuEventElapsedTime(&ms, events.list[2 * r], events.list[2 * r + 1]), "reading the timer");
        times.push_back(ms);
    }
    return timingSummary(times);
}

}  // namespace kx::runner
