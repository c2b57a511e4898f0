// Autotuning: a sweep plus statistical care. The fastest k measured points are timed again,
// several rounds each with more repetitions, interleaved (round 1 of every candidate, then
// round 2...) so that a drift of the GPU's clocks or temperature touches all of them alike;
// the winner has the smallest median over its rounds, and the spread says how far apart the
// rounds were.
#pragma once

#include "sweep/sweep.hpp"

#include <functional>
#include <string>
#include <vector>

namespace kx::engine {

struct AutotuneCandidate {
    std::size_t pointIndex = 0;        // index into the points given
    std::string name;
    double sweepMs = 0;                // the sweep's median
    std::vector<double> roundMs;       // each round's median, in round order
    double medianMs = 0;               // median of roundMs
    double minMs = 0, maxMs = 0;
    double spreadPct = 0;              // (max - min) / median x 100
    std::string error;                 // a round failed: no figures
};

struct AutotuneResult {
    std::vector<AutotuneCandidate> candidates;  // fastest first (failed ones last)
    int winner = -1;                            // index into candidates; -1 when none succeeded
};

// Re-times the `top` fastest measured points `rounds` times each through `timeOnce` (which runs
// the point and returns its report; the caller picks the device and repetitions). Points that
// are not measured are never candidates. Stops early, keeping what finished, when `cancelled`
// returns true.
using TimeOnce = std::function<RunReport(const SweepPoint&)>;
AutotuneResult autotune(const std::vector<SweepPoint>& points, int top, int rounds, const TimeOnce& timeOnce,
                        const std::function<bool()>& cancelled = {});

}  // namespace kx::engine
