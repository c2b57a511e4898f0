// Grouped convolution's check, three directions: every output against float64 while outputs *
// reduction length <= fullCheckOps; above it, sampledOutputs random outputs against float64 and,
// when cuDNN ran, every output against cuDNN's within a bound that costs far less than the
// reference.
#include "run/references/conv.hpp"
#include "run/references/conv_detail.hpp"
#include "run/references/references.hpp"

#include "run/reference.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace kx::engine {

namespace {

using namespace conv_detail;  // the helpers this file shares with the other conv files

// [SECTION] Comparison with cuDNN
//
// Kernel and cuDNN each round fp32 sums, so a correct pair may differ by two tolerances of each
// output's scale sum |term|. Computing that scale exactly costs as much as the reference itself,
// so the comparison uses an upper bound from Cauchy-Schwarz, sum |a_i b_i| <= ||a|| ||b||, where
// a and b are the output's two operand vectors, each widened where that makes the bound cheap
// (widening only raises a norm, so it stays a bound):
//
//     fwd  y[n,o,g,k]:      ||x over o's valid taps and c||   * ||w[g,k] over every tap and c||
//     bwd_data dx[n,i,g,c]: ||dy over i's valid taps and k||  * ||w[g,:,:,c] over every k and tap||
//     bwd_weight dw[g,k,tap,c]: ||dy[:,:,g,k] over every n, o|| * ||x[:,:,g,c] over every n, i||
//
// fwd and bwd_data cost taps per (n, pixel, g), against the reference's taps * C * K (or
// taps * K * C); bwd_weight costs one pass over the tensors. For random data sum |a_i b_i| is
// about 3/4 of ||a|| ||b||; the widening loosens the bound by up to sqrt(taps / valid taps) at
// borders and, for strided bwd_data and bwd_weight, by about sqrt(stride_d * stride_h * stride_w).
// A wrong output (a missed tile, a wrong index) is typically off by its whole value, about
// scale / sqrt(reduction length), which stays well above two tolerances of the bound.

// Sum of squares over every axis but two (an activation's g and channel, a filter's g and k or
// g and c): result[i * extents[second] + j] for coordinates i, j on those axes.
std::vector<double> squaresPer(const double* a, const ConvAxes& extents, const ConvAxes& strides, int first, int second) {
    std::vector<double> sums(static_cast<std::size_t>(extents[first] * extents[second]), 0.0);
    forEachCoord(extents, [&](const ConvAxes& c) {
        const double v = a[indexOf(strides, c)];
        sums[static_cast<std::size_t>(c[first] * extents[second] + c[second])] += v * v;
    });
    return sums;
}

// Sum over the channels of an activation of value^2, per (n, pixel, g): [(n * pixels + pixel) * G + g].
std::vector<double> squaresPerPixel(const double* a, const ConvAxes& extents, const ConvAxes& strides) {
    std::vector<double> sums(static_cast<std::size_t>(extents[0] * extents[1] * extents[3] * extents[4] * extents[5]), 0.0);
    forEachCoord(extents, [&](const ConvAxes& c) {
        const double v = a[indexOf(strides, c)];
        const long long pixel = (c[3] * extents[4] + c[4]) * extents[5] + c[5];
        sums[static_cast<std::size_t>((c[0] * extents[3] * extents[4] * extents[5] + pixel) * extents[1] + c[1])] += v * v;
    });
    return sums;
}

// fwd (fromOutput) and bwd_data: per D pixel, the norm of the activation over its valid taps
// times the norm of the filter slice of each of its channels.
void boundsThroughTaps(const ConvShape& s, ConvLayout layout, bool fromOutput, const double* activation, const double* w,
                       std::vector<double>& bound) {
    const ConvAxes actExtents = fromOutput ? convInputExtents(s) : convOutputExtents(s);
    const ConvAxes actStrides = fromOutput ? convInputStrides(s, layout) : convOutputStrides(s, layout);
    const ConvAxes dExtents = fromOutput ? convOutputExtents(s) : convInputExtents(s);
    const ConvAxes dStrides = fromOutput ? convOutputStrides(s, layout) : convInputStrides(s, layout);
    const std::vector<double> actSquares = squaresPerPixel(activation, actExtents, actStrides);
    // Per (g, D's channel): fwd sums w over (c, taps) per k; bwd_data over (k, taps) per c.
    const std::vector<double> filterSquares = squaresPer(w, convFilterExtents(s), convFilterStrides(s, layout), 0, fromOutput ? 1 : 2);
    const long long G = s.G, channels = dExtents[2], pixels = dExtents[3] * dExtents[4] * dExtents[5];
    const long long actPixels = actExtents[3] * actExtents[4] * actExtents[5];
    parallelRanges(s.N * pixels, static_cast<double>(s.N * pixels) * G * (s.taps() + channels), [&](long long begin, long long end) {
        std::vector<TapHit> hits;
        for (long long item = begin; item < end; ++item) {
            const long long n = item / pixels;
            const auto pos = pixelCoords(item % pixels, dExtents[4], dExtents[5]);
            tapHits(s, pos, fromOutput, hits);
            const long long first = indexOf(dStrides, {n, 0, 0, pos[0], pos[1], pos[2]});
            for (long long g = 0; g < G; ++g) {
                double patch = 0;
                for (const TapHit& hit : hits) patch += actSquares[static_cast<std::size_t>((n * actPixels + hit.pixel) * G + g)];
                for (long long ch = 0; ch < channels; ++ch)
                    bound[first + g * dStrides[1] + ch * dStrides[2]] = std::sqrt(patch * filterSquares[g * channels + ch]);
            }
        }
    });
}

std::vector<double> weightGradientBounds(const ConvShape& s, ConvLayout layout, const double* dy, const double* x) {
    const std::vector<double> dySquares = squaresPer(dy, convOutputExtents(s), convOutputStrides(s, layout), 1, 2);  // per (g, k)
    const std::vector<double> xSquares = squaresPer(x, convInputExtents(s), convInputStrides(s, layout), 1, 2);     // per (g, c)
    const ConvAxes extents = convFilterExtents(s), strides = convFilterStrides(s, layout);
    std::vector<double> bound(static_cast<std::size_t>(s.filterElements()));
    forEachCoord(extents, [&](const ConvAxes& c) {
        bound[indexOf(strides, c)] = std::sqrt(dySquares[c[0] * s.K + c[1]] * xSquares[c[0] * s.C + c[2]]);
    });
    return bound;
}

// [SECTION] Checking

const char* nameOfA(ConvDirection d) { return d == ConvDirection::Forward ? "x" : "dy"; }
const char* nameOfB(ConvDirection d) { return d == ConvDirection::BackwardWeight ? "x" : "w"; }
const char* nameOfD(ConvDirection d) {
    return d == ConvDirection::Forward ? "y" : d == ConvDirection::BackwardData ? "dx" : "dw";
}

void requireSizes(const ConvShape& s, ConvDirection direction, std::size_t a, std::size_t b, std::size_t d) {
    const long long wantA = convElementsOfA(s, direction), wantB = convElementsOfB(s, direction), wantD = convElementsOfD(s, direction);
    if (static_cast<long long>(a) == wantA && static_cast<long long>(b) == wantB && static_cast<long long>(d) == wantD) return;
    throw InputError(std::string("conv ") + convDirectionName(direction) + " of this shape needs A (" + nameOfA(direction) + ") of " +
                     std::to_string(wantA) + " values, B (" + nameOfB(direction) + ") of " + std::to_string(wantB) + " and D (" +
                     nameOfD(direction) + ") of " + std::to_string(wantD) + "; the run has " + std::to_string(a) + ", " +
                     std::to_string(b) + " and " + std::to_string(d));
}

struct ConvCheck {
    const ConvShape& shape;
    ConvLayout layout;
    ConvDirection direction;
    const double* A;
    const double* B;
    const HostArray& D;
};

void checkEveryOutput(const ConvCheck& job, ElementChecker& checker, CorrectnessReport& r) {
    const std::vector<double>& got = job.D.values;
    auto checkSlab = [&](const long long* index, const double* value, const double* scale, long long count) {
        for (long long j = 0; j < count; ++j) {
            const long long i = index[j];
            checker.check(i, got[i], value[j], scale[j], [&] { return convOutputName(job.shape, job.layout, job.direction, i); });
        }
    };
    forEachOutput(job.shape, job.layout, job.direction, job.A, job.B, checkSlab);
    r.method = std::string("every output against the float64 direct convolution (") + convDirectionName(job.direction) + ")";
}

void checkSampledOutputs(const ConvCheck& job, const CheckContext& ctx, ElementChecker& checker, CorrectnessReport& r) {
    std::mt19937_64 rng(ctx.seed + 0x5eed);
    std::uniform_int_distribution<long long> pick(0, r.total - 1);
    std::vector<long long> picks(static_cast<std::size_t>(std::max(0, ctx.sampledOutputs)));
    for (long long& i : picks) i = pick(rng);
    const std::vector<ConvTerms> terms = convReferenceAtMany(job.shape, job.layout, job.direction, job.A, job.B, picks);
    const auto count = static_cast<long long>(picks.size());
    for (long long s = 0; s < count; ++s) {
        const long long i = picks[s];
        checker.check(i, job.D.values[i], terms[s].value, terms[s].scale, [&] { return convOutputName(job.shape, job.layout, job.direction, i); });
    }
    r.method = std::to_string(count) + " random outputs against the float64 direct convolution (" + convDirectionName(job.direction) + ")";
}

void compareWithBaseline(const ConvCheck& job, const std::vector<double>& base, CorrectnessReport& r) {
    const std::vector<double> bound = convScaleBounds(job.shape, job.layout, job.direction, job.A, job.B);
    // Both may also round a result in the subnormal range, an absolute error of half a step each.
    const double floor = job.D.dtype->subnormalStep;
    r.baselineCompared = true;
    r.baselineAgrees = true;
    for (std::size_t i = 0; i < base.size(); ++i) {
        const double diff = std::fabs(job.D.values[i] - base[i]);
        if (!(diff <= 2 * r.tolerance * bound[i] + floor)) r.baselineAgrees = false;
        const double rel = diff / std::max(bound[i], 1e-30);
        if (std::isfinite(rel)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, rel);
    }
}

}  // namespace

std::vector<double> convScaleBounds(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B) {
    if (direction == ConvDirection::BackwardWeight) return weightGradientBounds(s, layout, A, B);
    std::vector<double> bound(static_cast<std::size_t>(convElementsOfD(s, direction)));
    boundsThroughTaps(s, layout, direction == ConvDirection::Forward, A, B, bound);
    return bound;
}

std::string convOutputName(const ConvShape& s, ConvLayout layout, ConvDirection direction, long long outputIndex) {
    auto list = [](const char* const names[6], const ConvAxes& c) {
        std::string text;
        for (int a = 0; a < 6; ++a) text += std::string(a ? "," : "") + names[a] + "=" + std::to_string(c[a]);
        return text;
    };
    static const char* const filterAxes[6] = {"g", "k", "c", "z", "y", "x"};
    static const char* const outputAxes[6] = {"n", "g", "k", "d", "h", "w"};
    static const char* const inputAxes[6] = {"n", "g", "c", "d", "h", "w"};
    std::string axes;
    switch (direction) {
    case ConvDirection::Forward:
        axes = list(outputAxes, coordsOf(outputIndex, convOutputExtents(s), convOutputStrides(s, layout)));
        break;
    case ConvDirection::BackwardData:
        axes = list(inputAxes, coordsOf(outputIndex, convInputExtents(s), convInputStrides(s, layout)));
        break;
    case ConvDirection::BackwardWeight:
        axes = list(filterAxes, coordsOf(outputIndex, convFilterExtents(s), convFilterStrides(s, layout)));
        break;
    }
    return std::string(nameOfD(direction)) + "[" + axes + "]";
}

// [SECTION] The check

void checkConv(const CheckContext& ctx, CorrectnessReport& r) {
    const ConvDirection direction = convDirectionNamed(ctx.choice("direction"));
    const ConvLayout layout = convLayoutNamed(ctx.choice("layout"));
    const ConvShape shape = convShapeFromSizes(ctx.sizes);
    const HostArray& A = ctx.input("A");
    const HostArray& B = ctx.input("B");
    const HostArray& D = ctx.output("D");
    requireSizes(shape, direction, A.size(), B.size(), D.size());

    const long long length = convReductionLength(shape, direction);
    r.total = static_cast<long long>(D.size());
    // Below the normal range the rounding to D's type is absolute: half a subnormal step.
    // f32 tensors multiplied as TF32 (the template's tf32 = 1): each operand is rounded to 11
    // significant bits before its product, an error of at most 2 * 2^-11 of each term, so of the
    // scale, on top of fp32 accumulation.
    const auto tf32 = ctx.variables.find("tf32");
    const double tf32Inputs = tf32 != ctx.variables.end() && tf32->second != 0 ? 2 * std::ldexp(1.0, -11) : 0;
    ElementChecker checker(r, tolerance(D.dtype->name, static_cast<int>(std::min<long long>(length, INT_MAX))) + tf32Inputs,
                           D.dtype->subnormalStep / 2);
    const ConvCheck check{shape, layout, direction, A.values.data(), B.values.data(), D};
    if (static_cast<double>(r.total) * length <= ctx.fullCheckOps) {
        checkEveryOutput(check, checker, r);
    } else {
        checkSampledOutputs(check, ctx, checker, r);
        if (const HostArray* base = ctx.baselineOutput("cudnn_conv"); base && base->size() == D.size()) {
            compareWithBaseline(check, base->values, r);
            r.method += "; every output against cuDNN (within a Cauchy-Schwarz bound of each output's scale)";
        }
    }
    checker.finish();
}

}  // namespace kx::engine
