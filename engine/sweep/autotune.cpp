#include "sweep/autotune.hpp"

#include <algorithm>

namespace kx::engine {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

AutotuneResult autotune(const std::vector<SweepPoint>& points, int top, int rounds, const TimeOnce& timeOnce,
                        const std::function<bool()>& cancelled) {
    std::vector<std::size_t> measured;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (points[i].measured()) measured.push_back(i);
    std::sort(measured.begin(), measured.end(), [&](std::size_t a, std::size_t b) { return points[a].medianMs() < points[b].medianMs(); });
    if (static_cast<int>(measured.size()) > top) measured.resize(static_cast<std::size_t>(std::max(0, top)));

    AutotuneResult result;
    for (std::size_t i : measured) {
        AutotuneCandidate c;
        c.pointIndex = i;
        c.name = points[i].name;
        c.sweepMs = points[i].medianMs();
        result.candidates.push_back(std::move(c));
    }
    for (int round = 0; round < rounds; ++round) {
        for (AutotuneCandidate& c : result.candidates) {
            if (!c.error.empty()) continue;
            if (cancelled && cancelled()) break;
            const RunReport r = timeOnce(points[c.pointIndex]);
            if (!r.ok) c.error = r.error;
            else c.roundMs.push_back(r.medianMs);
        }
    }
    for (AutotuneCandidate& c : result.candidates) {
        if (c.roundMs.empty()) {
            if (c.error.empty()) c.error = "not timed: autotuning was stopped";
            continue;
        }
        c.medianMs = median(c.roundMs);
        c.minMs = *std::min_element(c.roundMs.begin(), c.roundMs.end());
        c.maxMs = *std::max_element(c.roundMs.begin(), c.roundMs.end());
        c.spreadPct = c.medianMs > 0 ? 100.0 * (c.maxMs - c.minMs) / c.medianMs : 0;
    }
    std::stable_sort(result.candidates.begin(), result.candidates.end(), [](const AutotuneCandidate& a, const AutotuneCandidate& b) {
        if (a.error.empty() != b.error.empty()) return a.error.empty();
        return a.medianMs < b.medianMs;
    });
    if (!result.candidates.empty() && result.candidates.front().error.empty()) result.winner = 0;
    return result;
}

}  // namespace kx::engine
