// The last frames' durations: the sweep's p99, the View > Performance overlay and the
// `frame-stats` script command read them. Header-only so the tests use the same percentile.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kx::app {

class FrameTimes {
public:
    // One frame's duration in seconds: the work from waking up to the buffer swap, without the
    // time spent asleep waiting for events.
    void add(double seconds) {
        ++m_total;
        if (m_samples.size() < kCapacity) {
            m_samples.push_back(seconds);
            return;
        }
        m_samples[m_next] = seconds;
        m_next = (m_next + 1) % kCapacity;
    }
    void clear() {
        m_samples.clear();
        m_next = 0;
        m_total = 0;
    }
    // Frames kept (at most kCapacity, the most recent) and frames added since the last clear().
    std::size_t count() const { return m_samples.size(); }
    std::size_t total() const { return m_total; }
    // The p-th percentile (0..100) of the kept frames, nearest rank, in milliseconds; 0 when empty.
    double percentileMs(double p) const {
        if (m_samples.empty()) return 0;
        std::vector<double> sorted = m_samples;
        std::sort(sorted.begin(), sorted.end());
        const auto rank = static_cast<std::size_t>(std::clamp(p / 100.0, 0.0, 1.0) * static_cast<double>(sorted.size() - 1) + 0.5);
        return 1000.0 * sorted[rank];
    }
    double maxMs() const { return m_samples.empty() ? 0 : 1000.0 * *std::max_element(m_samples.begin(), m_samples.end()); }
    // The newest n durations in seconds, oldest first (fewer when fewer were kept).
    std::vector<double> recent(std::size_t n) const {
        std::vector<double> out;
        const std::size_t k = std::min(n, m_samples.size());
        out.reserve(k);
        for (std::size_t i = 0; i < k; ++i) {
            // The slot written (k - i) adds ago: m_next is the oldest once the ring is full.
            const std::size_t back = k - i;
            const std::size_t head = m_samples.size() < kCapacity ? m_samples.size() : m_next;
            out.push_back(m_samples[(head + m_samples.size() - back) % m_samples.size()]);
        }
        return out;
    }

private:
    static constexpr std::size_t kCapacity = 4096;
    std::vector<double> m_samples;
    std::size_t m_next = 0;
    std::size_t m_total = 0;
};

}  // namespace kx::app
