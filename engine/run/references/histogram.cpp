// Histogram: exact counts. The f32 binning is computed in fp32, operation by operation, because
// a float64 computation would put samples that lie within an fp32 rounding of a bin edge in a
// different bin than the GPU (and CUB) do, and counts are compared exactly.
#include "run/references/histogram.hpp"
#include "run/references/references.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace kx::engine {

int histogramBin(bool intKeys, int bins, float lo, float hi, double sample) {
    if (intKeys) return sample >= 0 && sample < bins ? static_cast<int>(sample) : -1;
    // Every intermediate is a named float, so each operation is rounded to fp32 (x86-64 and
    // AArch64 evaluate float arithmetic in float; the subtraction and the product cannot fuse).
    const float x = static_cast<float>(sample);
    if (!(x >= lo && x < hi)) return -1;
    const float range = hi - lo;
    const float scale = static_cast<float>(bins) / range;
    const float diff = x - lo;
    const float scaled = diff * scale;
    // The GPU's conversion truncates toward zero, turns NaN into 0 and saturates large values;
    // the kernel then caps at bins - 1.
    if (std::isnan(scaled)) return 0;
    if (!(scaled < static_cast<float>(bins))) return bins - 1;
    return std::min(static_cast<int>(scaled), bins - 1);
}

std::vector<std::uint64_t> histogramReference(bool intKeys, int bins, float lo, float hi, const double* samples, std::size_t n) {
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(std::max(bins, 0)), 0);
    for (std::size_t i = 0; i < n; ++i) {
        const int bin = histogramBin(intKeys, bins, lo, hi, samples[i]);
        if (bin >= 0) ++counts[static_cast<std::size_t>(bin)];
    }
    return counts;
}

void checkHistogram(const CheckContext& ctx, CorrectnessReport& r) {
    const bool intKeys = ctx.var("is_int") != 0;
    const int bins = static_cast<int>(ctx.var("BINS"));
    const float lo = static_cast<float>(ctx.var("LO")), hi = static_cast<float>(ctx.var("HI"));
    const HostArray& samples = ctx.input("samples");
    const HostArray& hist = ctx.output("hist");
    if (bins < 1) throw InputError("the histogram needs at least one bin (BINS = " + std::to_string(bins) + ")");
    if (hist.size() != static_cast<std::size_t>(bins))
        throw InputError("hist holds " + std::to_string(hist.size()) + " counts, not BINS = " + std::to_string(bins));

    const auto ref = histogramReference(intKeys, bins, lo, hi, samples.values.data(), samples.size());
    r.total = bins;
    ElementChecker checker(r, 0);
    for (int b = 0; b < bins; ++b) checker.checkExact(b, hist[b], static_cast<double>(ref[b]), elementName("hist", b));

    std::uint64_t counted = 0;
    for (const std::uint64_t c : ref) counted += c;
    r.method = "every one of the " + std::to_string(bins) + " counts exactly against a CPU count of the " +
               std::to_string(samples.size()) + " samples (" + std::to_string(counted) + " in range), " +
               (intKeys ? std::string("key k in bin k") : std::string("binned in fp32 exactly as the kernel and CUB bin them"));

    if (const HostArray* cub = ctx.baselineOutput("cub_histogram"); cub && cub->size() == hist.size()) {
        r.baselineCompared = true;
        r.baselineAgrees = true;
        for (int b = 0; b < bins; ++b) {
            const double diff = std::fabs((*cub)[b] - hist[b]);
            if (!(diff == 0)) r.baselineAgrees = false;
            if (std::isfinite(diff)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, diff / std::max(1.0, static_cast<double>(ref[b])));
        }
        r.method += "; every count against CUB's";
    }
    checker.finish();
}

}  // namespace kx::engine
