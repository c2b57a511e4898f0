// Pure scale and tick math for the chart widget: no ImGui, header-only, so tests can check it
// without a window.
//
// A Scale maps data values to a unit interval (0 = axis start, 1 = axis end), linearly or in
// log10. Tick generators return the values to mark and the text to print:
//   - linear: "nice" steps of 1, 2 or 5 times a power of ten, at most maxMajor labelled ticks;
//   - log10: one labelled tick per decade (every n-th decade when there are many) and unlabelled
//     minor ticks at 2..9 x 10^k.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace kx::app::chart {

enum class ScaleKind { Linear, Log10 };

struct Scale {
    ScaleKind kind = ScaleKind::Linear;
    double min = 0.0;
    double max = 1.0;

    // Values <= 0 on a log scale map below the axis start (to -1), so callers can clip them.
    double toUnit(double v) const {
        if (kind == ScaleKind::Log10) {
            if (v <= 0 || min <= 0 || max <= min) return -1.0;
            return (std::log10(v) - std::log10(min)) / (std::log10(max) - std::log10(min));
        }
        return max > min ? (v - min) / (max - min) : 0.0;
    }
    double fromUnit(double u) const {
        if (kind == ScaleKind::Log10) {
            if (min <= 0 || max <= min) return min;
            return std::pow(10.0, std::log10(min) + u * (std::log10(max) - std::log10(min)));
        }
        return min + u * (max - min);
    }
};

struct Tick {
    double value = 0;
    bool major = true;   // major ticks carry a label and a stronger grid line
    std::string label;   // empty for minor ticks
};

// The 1-2-5 step that gives at most maxTicks intervals over range (range > 0).
inline double niceStep(double range, int maxTicks) {
    if (!(range > 0) || maxTicks < 1) return 1.0;
    const double raw = range / maxTicks;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * decade >= raw * (1 - 1e-9)) return m * decade;
    }
    return 10.0 * decade;
}

// Compact number text: SI suffixes from kilo up (1.5k, 64M, 2G, 989.5T) and plain decimals
// below, trailing zeros dropped. Used for tick labels and tooltips alike.
inline std::string formatCompact(double v, int maxDecimals = 2) {
    if (v == 0) return "0";
    const double a = std::fabs(v);
    const char* suffix = "";
    double scaled = v;
    // 1000..9999 read better in full (block sizes, register counts, bytes): kilo starts at 1e4.
    static constexpr struct { double from, unit; const char* suffix; } kPrefixes[] = {
        {1e15, 1e15, "P"}, {1e12, 1e12, "T"}, {1e9, 1e9, "G"}, {1e6, 1e6, "M"}, {1e4, 1e3, "k"}};
    for (const auto& p : kPrefixes) {
        if (a < p.from) continue;
        scaled = v / p.unit;
        suffix = p.suffix;
        break;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, maxDecimals), scaled);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s + suffix;
}

// Decimals needed to tell ticks step apart (0 for steps >= 1).
inline int decimalsFor(double step) {
    if (!(step > 0) || step >= 1) return 0;
    return static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
}

// Ticks at multiples of a nice step inside [min, max]. Labels use formatCompact.
inline std::vector<Tick> linearTicks(double min, double max, int maxMajor = 8) {
    std::vector<Tick> out;
    if (!(max > min)) {
        out.push_back({min, true, formatCompact(min)});
        return out;
    }
    const double step = niceStep(max - min, std::max(1, maxMajor));
    const double first = std::ceil(min / step - 1e-9) * step;
    const int decimals = decimalsFor(step);
    for (int i = 0;; ++i) {
        double v = first + i * step;
        if (v > max + step * 1e-9) break;
        if (std::fabs(v) < step * 1e-9) v = 0;  // no "-0" from rounding
        out.push_back({v, true, formatCompact(v, decimals)});
        if (out.size() > 1000) break;  // a degenerate range must not hang the UI
    }
    return out;
}

// Decade ticks 10^k in [min, max] (labelled) and minor ticks 2..9 x 10^k. With more than
// maxMajor decades only every n-th decade is labelled, the others become minor.
inline std::vector<Tick> logTicks(double min, double max, int maxMajor = 8) {
    std::vector<Tick> out;
    if (!(min > 0) || !(max > min)) return out;
    const int k0 = static_cast<int>(std::floor(std::log10(min) + 1e-9));
    const int k1 = static_cast<int>(std::ceil(std::log10(max) - 1e-9));
    const int decades = k1 - k0;
    const int every = std::max(1, (decades + std::max(1, maxMajor) - 1) / std::max(1, maxMajor));
    const bool minors = every == 1;  // with skipped decades, 2..9 marks would be noise
    for (int k = k0; k <= k1; ++k) {
        const double d = std::pow(10.0, k);
        if (d >= min * (1 - 1e-9) && d <= max * (1 + 1e-9)) {
            const bool major = (k % every) == 0;
            out.push_back({d, major, major ? formatCompact(d, std::max(0, -k)) : std::string()});
        }
        if (!minors) continue;
        for (int m = 2; m <= 9; ++m) {
            const double v = m * d;
            if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push_back({v, false, {}});
        }
    }
    return out;
}

// Linear ticks at multiples of a natural unit (256 threads, 32 registers, 32 KiB), doubling it
// until at most maxMajor intervals remain: GPU quantities read better in powers of two.
inline std::vector<Tick> steppedTicks(double min, double max, double unit, int maxMajor = 8) {
    std::vector<Tick> out;
    if (!(max > min) || !(unit > 0)) return linearTicks(min, max, maxMajor);
    double step = unit;
    while ((max - min) / step > std::max(1, maxMajor)) step *= 2;
    const int decimals = decimalsFor(step);
    for (double v = std::ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) {
        out.push_back({v, true, formatCompact(v, decimals)});
        if (out.size() > 1000) break;
    }
    return out;
}

// unit > 0 selects steppedTicks on a linear scale.
inline std::vector<Tick> ticksFor(const Scale& s, int maxMajor = 8, double unit = 0) {
    if (s.kind == ScaleKind::Log10) return logTicks(s.min, s.max, maxMajor);
    return unit > 0 ? steppedTicks(s.min, s.max, unit, maxMajor) : linearTicks(s.min, s.max, maxMajor);
}

// The decade range [10^floor(log10 lo), 10^ceil(log10 hi)], for log axes that start and end on
// a labelled tick.
inline Scale decadeScale(double lo, double hi) {
    lo = std::max(lo, 1e-300);
    hi = std::max(hi, lo * 10);
    return {ScaleKind::Log10, std::pow(10.0, std::floor(std::log10(lo) + 1e-9)),
            std::pow(10.0, std::ceil(std::log10(hi) - 1e-9))};
}

}  // namespace kx::app::chart
