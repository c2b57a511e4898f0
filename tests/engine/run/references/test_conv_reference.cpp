// The grouped convolution reference: the forward direction against a brute-force loop written
// from the formula, the three directions against each other (bwd_data and bwd_weight are the
// adjoints of fwd), a case worked by hand, the two layouts against each other, the fast full
// computation against the one-output one, and checkConv's verdicts on good and broken outputs.
#include "run/references/conv.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"
#include "run/reference.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace kx::engine;

namespace {

const ConvDirection kDirections[] = {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeight};
const ConvLayout kLayouts[] = {ConvLayout::Nhwgc, ConvLayout::Nchw};

// One spatial dimension as the manifest gives it.
struct Dim {
    long long input, filter, stride = 1, pad = 0, dilation = 1;
};

SizeMap convSizes(long long N, long long G, long long C, long long K, Dim d, Dim h, Dim w) {
    SizeMap sizes = {{"N", N}, {"G", G}, {"C", C}, {"K", K}};
    const Dim dims[3] = {d, h, w};
    const char* const inputs[3] = {"Di", "Hi", "Wi"};
    const char* const filters[3] = {"Z", "Y", "X"};
    const char* const suffixes[3] = {"d", "h", "w"};
    for (int a = 0; a < 3; ++a) {
        sizes[inputs[a]] = dims[a].input;
        sizes[filters[a]] = dims[a].filter;
        sizes[std::string("stride_") + suffixes[a]] = dims[a].stride;
        sizes[std::string("pad_") + suffixes[a]] = dims[a].pad;
        sizes[std::string("dil_") + suffixes[a]] = dims[a].dilation;
    }
    return sizes;
}

ConvShape shapeOf(long long N, long long G, long long C, long long K, Dim d, Dim h, Dim w) {
    return convShapeFromSizes(convSizes(N, G, C, K, d, h, w));
}

// Odd sizes, strides 2 and 3, dilation 2, padding wider than the filter's reach (outputs with no
// term at all), groups, depthwise, a filter wider than the input, 1-D, 2-D and 3-D.
std::vector<ConvShape> awkwardShapes() {
    const Dim one{1, 1};
    return {
        shapeOf(2, 1, 3, 2, one, one, {11, 3, 2, 1}),                   // 1-D, stride 2
        shapeOf(1, 1, 2, 3, one, one, {7, 3, 3, 6, 2}),                 // 1-D, stride 3, dilation 2, pad 6 > reach 5
        shapeOf(1, 3, 2, 3, one, {7, 3, 2, 1}, {6, 2, 1, 2, 2}),        // 2-D, 3 groups
        shapeOf(2, 5, 1, 1, one, {9, 3, 2, 1}, {8, 3, 2, 1}),           // 2-D depthwise
        shapeOf(1, 2, 3, 2, one, {9, 1, 2, 0}, {7, 1, 2, 0}),           // 1x1 filter, stride 2
        shapeOf(1, 1, 2, 2, one, {2, 5, 1, 2}, {3, 3, 3, 4, 1}),        // filter taller than the input
        shapeOf(2, 2, 3, 2, {5, 3, 2, 1, 2}, {4, 2, 1, 0}, {6, 3, 3, 2}),  // 3-D
        shapeOf(1, 3, 1, 1, {4, 2, 1, 1}, {5, 3, 2, 2, 2}, {3, 1}),     // 3-D depthwise, dilation 2
    };
}

std::vector<double> randomValues(long long count, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double& x : v) x = dist(rng);
    return v;
}

std::vector<double> roundedTo(const std::vector<double>& v, const char* dtype) {
    return decodeValues(encodeValues(v, dtypeNamed(dtype)), dtypeNamed(dtype));
}

struct Computed {
    std::vector<double> value, scale;
};

Computed compute(const ConvShape& s, ConvLayout layout, ConvDirection direction, const std::vector<double>& A,
                 const std::vector<double>& B) {
    Computed out;
    out.value.resize(static_cast<std::size_t>(convElementsOfD(s, direction)));
    out.scale.resize(out.value.size());
    convReference(s, layout, direction, A.data(), B.data(), out.value.data(), out.scale.data());
    return out;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    return sum;
}

// The forward formula as written in the contract, one output at a time, in the nhwgc layout.
double bruteForward(const ConvShape& s, const std::vector<double>& x, const std::vector<double>& w, long long n, long long g, long long k,
                    long long od, long long oh, long long ow) {
    const ConvDim &D = s.spatial[0], &H = s.spatial[1], &W = s.spatial[2];
    double sum = 0;
    for (long long z = 0; z < D.filter; ++z)
        for (long long y = 0; y < H.filter; ++y)
            for (long long xx = 0; xx < W.filter; ++xx)
                for (long long c = 0; c < s.C; ++c) {
                    const long long id = od * D.stride - D.pad + z * D.dilation, ih = oh * H.stride - H.pad + y * H.dilation,
                                    iw = ow * W.stride - W.pad + xx * W.dilation;
                    if (id < 0 || id >= D.input || ih < 0 || ih >= H.input || iw < 0 || iw >= W.input) continue;
                    const long long xi = ((((n * D.input + id) * H.input + ih) * W.input + iw) * s.G + g) * s.C + c;
                    const long long wi = ((((g * s.K + k) * D.filter + z) * H.filter + y) * W.filter + xx) * s.C + c;
                    sum += x[xi] * w[wi];
                }
    return sum;
}

// values (strides `from`) rearranged to strides `to`.
std::vector<double> relayout(const std::vector<double>& values, const ConvAxes& e, const ConvAxes& from, const ConvAxes& to) {
    std::vector<double> out(values.size());
    for (long long a = 0; a < e[0]; ++a)
        for (long long b = 0; b < e[1]; ++b)
            for (long long c = 0; c < e[2]; ++c)
                for (long long d = 0; d < e[3]; ++d)
                    for (long long h = 0; h < e[4]; ++h)
                        for (long long w = 0; w < e[5]; ++w) {
                            auto at = [&](const ConvAxes& s) { return a * s[0] + b * s[1] + c * s[2] + d * s[3] + h * s[4] + w * s[5]; };
                            out[static_cast<std::size_t>(at(to))] = values[static_cast<std::size_t>(at(from))];
                        }
    return out;
}

// Extents and strides of a direction's A, B and D.
struct Operands {
    ConvAxes extents[3];
    ConvAxes strides[3];
};
Operands operandsOf(const ConvShape& s, ConvLayout layout, ConvDirection direction) {
    const ConvAxes x = convInputExtents(s), y = convOutputExtents(s), w = convFilterExtents(s);
    const ConvAxes xs = convInputStrides(s, layout), ys = convOutputStrides(s, layout), ws = convFilterStrides(s, layout);
    switch (direction) {
    case ConvDirection::Forward: return {{x, w, y}, {xs, ws, ys}};
    case ConvDirection::BackwardData: return {{y, w, x}, {ys, ws, xs}};
    case ConvDirection::BackwardWeight: return {{y, x, w}, {ys, xs, ws}};
    }
    return {};
}

CheckContext convContext(const SizeMap& sizes, ConvDirection direction, ConvLayout layout, const char* dtype, const std::vector<double>& A,
                         const std::vector<double>& B, const std::vector<double>& D) {
    CheckContext ctx;
    ctx.variables = {{"BLOCK_M", 64}};
    ctx.choices = {{"direction", convDirectionName(direction)},
                   {"layout", layout == ConvLayout::Nhwgc ? "nhwgc" : "nchw"},
                   {"dtype", dtype}};
    ctx.sizes = sizes;
    ctx.inputs["A"] = HostArray{&dtypeNamed(dtype), A};
    ctx.inputs["B"] = HostArray{&dtypeNamed(dtype), B};
    ctx.outputs["D"] = HostArray{&dtypeNamed(dtype), D};
    return ctx;
}

CorrectnessReport runCheck(const CheckContext& ctx) {
    CorrectnessReport r;
    checkConv(ctx, r);
    return r;
}

std::string thrownMessage(const SizeMap& sizes) {
    try {
        convShapeFromSizes(sizes);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

}  // namespace

TEST_CASE("conv index functions lay out tensors as the contract says", "[reference][conv]") {
    const ConvShape s = shapeOf(2, 3, 4, 5, {3, 2, 1, 1}, {4, 3, 1, 1}, {5, 2, 1, 1});
    const long long Di = 3, Hi = 4, Wi = 5, Do = s.spatial[0].output, Ho = s.spatial[1].output, Wo = s.spatial[2].output;
    REQUIRE(Do == 4);
    REQUIRE(Ho == 4);
    REQUIRE(Wo == 6);
    const long long n = 1, g = 2, c = 3, k = 4, d = 2, h = 1, w = 3, z = 1, y = 2, x = 1;
    REQUIRE(convInputIndex(s, ConvLayout::Nhwgc, n, g, c, d, h, w) == ((((n * Di + d) * Hi + h) * Wi + w) * 3 + g) * 4 + c);
    REQUIRE(convInputIndex(s, ConvLayout::Nchw, n, g, c, d, h, w) == ((((n * 3 + g) * 4 + c) * Di + d) * Hi + h) * Wi + w);
    REQUIRE(convOutputIndex(s, ConvLayout::Nhwgc, n, g, k, d, h, w) == ((((n * Do + d) * Ho + h) * Wo + w) * 3 + g) * 5 + k);
    REQUIRE(convOutputIndex(s, ConvLayout::Nchw, n, g, k, d, h, w) == ((((n * 3 + g) * 5 + k) * Do + d) * Ho + h) * Wo + w);
    REQUIRE(convFilterIndex(s, ConvLayout::Nhwgc, g, k, c, z, y, x) == ((((g * 5 + k) * 2 + z) * 3 + y) * 2 + x) * 4 + c);
    REQUIRE(convFilterIndex(s, ConvLayout::Nchw, g, k, c, z, y, x) == ((((g * 5 + k) * 4 + c) * 2 + z) * 3 + y) * 2 + x);
    REQUIRE(convReductionLength(s, ConvDirection::Forward) == 4 * 12);
    REQUIRE(convReductionLength(s, ConvDirection::BackwardData) == 5 * 12);
    REQUIRE(convReductionLength(s, ConvDirection::BackwardWeight) == 2 * 96);
    REQUIRE(convOutputName(s, ConvLayout::Nchw, ConvDirection::BackwardData, convInputIndex(s, ConvLayout::Nchw, n, g, c, d, h, w)) ==
            "dx[n=1,g=2,c=3,d=2,h=1,w=3]");
    REQUIRE(convOutputName(s, ConvLayout::Nhwgc, ConvDirection::BackwardWeight, convFilterIndex(s, ConvLayout::Nhwgc, g, k, c, z, y, x)) ==
            "dw[g=2,k=4,c=3,z=1,y=2,x=1]");
}

TEST_CASE("conv forward matches the formula computed output by output", "[reference][conv]") {
    std::mt19937_64 rng(11);
    for (const ConvShape& s : awkwardShapes()) {
        const auto x = randomValues(s.inputElements(), rng), w = randomValues(s.filterElements(), rng);
        const Computed y = compute(s, ConvLayout::Nhwgc, ConvDirection::Forward, x, w);
        const ConvDim &D = s.spatial[0], &H = s.spatial[1], &W = s.spatial[2];
        for (long long n = 0; n < s.N; ++n)
            for (long long g = 0; g < s.G; ++g)
                for (long long k = 0; k < s.K; ++k)
                    for (long long od = 0; od < D.output; ++od)
                        for (long long oh = 0; oh < H.output; ++oh)
                            for (long long ow = 0; ow < W.output; ++ow) {
                                const double got = y.value[convOutputIndex(s, ConvLayout::Nhwgc, n, g, k, od, oh, ow)];
                                REQUIRE(got == Approx(bruteForward(s, x, w, n, g, k, od, oh, ow)).margin(1e-12));
                            }
    }
}

TEST_CASE("conv worked by hand: 1-D, 3 taps, stride 2, pad 1", "[reference][conv]") {
    // x = 1..5, w = (1, -10, 100); output o reads x[2o - 1 + t]. Wo = (5 + 2 - 3) / 2 + 1 = 3.
    const ConvShape s = shapeOf(1, 1, 1, 1, {1, 1}, {1, 1}, {5, 3, 2, 1});
    REQUIRE(s.spatial[2].output == 3);
    const std::vector<double> x = {1, 2, 3, 4, 5}, w = {1, -10, 100}, dy = {1, 2, 3};
    for (const ConvLayout layout : kLayouts) {
        // y[0] = 0*1 + 1*-10 + 2*100; y[1] = 2 - 30 + 400; y[2] = 4 - 50 + 0.
        const Computed y = compute(s, layout, ConvDirection::Forward, x, w);
        REQUIRE(y.value == std::vector<double>{190, 372, -46});
        REQUIRE(y.scale == std::vector<double>{210, 432, 54});
        // dx[i] gathers dy[o] w[t] over 2o - 1 + t = i: i=1 gets (o=0,t=2) and (o=1,t=0).
        const Computed dx = compute(s, layout, ConvDirection::BackwardData, dy, w);
        REQUIRE(dx.value == std::vector<double>{-10, 102, -20, 203, -30});
        REQUIRE(dx.scale == std::vector<double>{10, 102, 20, 203, 30});
        // dw[t] = sum_o dy[o] x[2o - 1 + t]: t=0 gets 1*0 + 2*2 + 3*4.
        const Computed dw = compute(s, layout, ConvDirection::BackwardWeight, dy, x);
        REQUIRE(dw.value == std::vector<double>{16, 22, 10});
        for (const ConvDirection direction : kDirections) {
            const auto& A = direction == ConvDirection::Forward ? x : dy;
            const auto& B = direction == ConvDirection::BackwardWeight ? x : w;
            const Computed& full = direction == ConvDirection::Forward ? y : direction == ConvDirection::BackwardData ? dx : dw;
            for (std::size_t i = 0; i < full.value.size(); ++i)
                REQUIRE(convReferenceAt(s, layout, direction, A.data(), B.data(), static_cast<long long>(i)).value == full.value[i]);
        }
    }
}

TEST_CASE("conv bwd_data and bwd_weight are the adjoints of fwd", "[reference][conv]") {
    // <fwd(x, w), dy> = <x, bwd_data(dy, w)> = <w, bwd_weight(dy, x)>: all three are the sum of
    // x * w * dy over every connected triple, so they differ only by float64 rounding.
    std::mt19937_64 rng(12);
    for (const ConvShape& s : awkwardShapes()) {
        for (const ConvLayout layout : kLayouts) {
            const auto x = randomValues(s.inputElements(), rng), w = randomValues(s.filterElements(), rng);
            const auto dy = randomValues(s.outputElements(), rng);
            const Computed y = compute(s, layout, ConvDirection::Forward, x, w);
            const Computed dx = compute(s, layout, ConvDirection::BackwardData, dy, w);
            const Computed dw = compute(s, layout, ConvDirection::BackwardWeight, dy, x);
            double magnitude = 0;  // sum of |x w dy| over the triples
            for (std::size_t i = 0; i < dy.size(); ++i) magnitude += y.scale[i] * std::fabs(dy[i]);
            REQUIRE(magnitude > 0);
            const double forward = dot(y.value, dy), data = dot(x, dx.value), weight = dot(w, dw.value);
            CAPTURE(s.N, s.G, s.C, s.K, s.spatial[2].input, s.spatial[2].output, forward, data, weight);
            REQUIRE(std::fabs(forward - data) <= 1e-9 * magnitude);
            REQUIRE(std::fabs(forward - weight) <= 1e-9 * magnitude);
        }
    }
}

TEST_CASE("conv gives the same values in both layouts", "[reference][conv]") {
    std::mt19937_64 rng(13);
    for (const ConvShape& s : awkwardShapes()) {
        for (const ConvDirection direction : kDirections) {
            const Operands channelsLast = operandsOf(s, ConvLayout::Nhwgc, direction), nchw = operandsOf(s, ConvLayout::Nchw, direction);
            const auto A = randomValues(convElementsOfA(s, direction), rng), B = randomValues(convElementsOfB(s, direction), rng);
            const Computed inNhwgc = compute(s, ConvLayout::Nhwgc, direction, A, B);
            const auto nchwA = relayout(A, channelsLast.extents[0], channelsLast.strides[0], nchw.strides[0]);
            const auto nchwB = relayout(B, channelsLast.extents[1], channelsLast.strides[1], nchw.strides[1]);
            const Computed inNchw = compute(s, ConvLayout::Nchw, direction, nchwA, nchwB);
            const auto back = relayout(inNchw.value, nchw.extents[2], nchw.strides[2], channelsLast.strides[2]);
            for (std::size_t i = 0; i < back.size(); ++i) REQUIRE(back[i] == Approx(inNhwgc.value[i]).margin(1e-12));
        }
    }
}

TEST_CASE("conv's full computation matches one output at a time, and its bounds hold", "[reference][conv]") {
    std::mt19937_64 rng(14);
    auto shapes = awkwardShapes();
    // Large enough for several threads on a many-core machine.
    shapes.push_back(shapeOf(2, 2, 24, 24, {1, 1}, {16, 3, 1, 1}, {17, 3, 2, 1}));
    for (const ConvShape& s : shapes) {
        for (const ConvLayout layout : kLayouts) {
            for (const ConvDirection direction : kDirections) {
                const auto A = randomValues(convElementsOfA(s, direction), rng), B = randomValues(convElementsOfB(s, direction), rng);
                const Computed full = compute(s, layout, direction, A, B);
                const auto bound = convScaleBounds(s, layout, direction, A.data(), B.data());
                for (std::size_t i = 0; i < full.value.size(); ++i) {
                    const ConvTerms one = convReferenceAt(s, layout, direction, A.data(), B.data(), static_cast<long long>(i));
                    REQUIRE(one.value == Approx(full.value[i]).margin(1e-12));
                    REQUIRE(one.scale == Approx(full.scale[i]).margin(1e-12));
                    REQUIRE(full.scale[i] <= bound[i] * (1 + 1e-12));
                }
            }
        }
    }
}

// The sampled check computes its outputs together (bwd_weight: grouped by group and tap, each
// group walking the pixels once): the very same bits as one output at a time, for picks that
// repeat, share taps, or are alone on theirs, in every direction and layout; a 1x1 filter's one
// tap is split over several groups.
TEST_CASE("conv's outputs computed together equal those computed one at a time, bit for bit", "[reference][conv]") {
    std::mt19937_64 rng(19);
    auto shapes = awkwardShapes();
    shapes.push_back(shapeOf(2, 2, 5, 3, {4, 2, 1, 1}, {6, 3, 2, 1, 2}, {7, 3, 1, 2, 1}));  // 3-D, groups, strides, dilation
    shapes.push_back(shapeOf(3, 1, 6, 7, {1, 1}, {9, 1}, {11, 1}));                         // 1x1: every pick on one tap
    for (const ConvShape& s : shapes) {
        for (const ConvLayout layout : kLayouts) {
            for (const ConvDirection direction : kDirections) {
                CAPTURE(convDirectionName(direction));
                const auto A = randomValues(convElementsOfA(s, direction), rng), B = randomValues(convElementsOfB(s, direction), rng);
                std::uniform_int_distribution<long long> pick(0, convElementsOfD(s, direction) - 1);
                std::vector<long long> picks(300);
                for (long long& i : picks) i = pick(rng);
                picks.push_back(picks.front());  // a repeated output
                const std::vector<ConvTerms> many = convReferenceAtMany(s, layout, direction, A.data(), B.data(), picks);
                REQUIRE(many.size() == picks.size());
                bool same = true;
                for (std::size_t i = 0; i < picks.size(); ++i) {
                    const ConvTerms one = convReferenceAt(s, layout, direction, A.data(), B.data(), picks[i]);
                    same = same && one.value == many[i].value && one.scale == many[i].scale;
                }
                REQUIRE(same);
            }
        }
    }
}

TEST_CASE("conv's full computation is right across slabs of outputs", "[reference][conv]") {
    // Depthwise 1x1: each output is x * w, and there are more outputs than one slab holds.
    const ConvShape s = shapeOf(1, 4, 1, 1, {1, 1}, {520, 1}, {520, 1});
    std::mt19937_64 rng(15);
    const auto x = randomValues(s.inputElements(), rng), w = randomValues(s.filterElements(), rng);
    for (const ConvLayout layout : kLayouts) {
        const Computed y = compute(s, layout, ConvDirection::Forward, x, w);
        const ConvAxes xs = convInputStrides(s, layout);
        bool allRight = true;
        for (long long g = 0; g < 4; ++g)
            for (long long h = 0; h < 520; ++h)
                for (long long wi = 0; wi < 520; ++wi) {
                    const long long i = g * xs[1] + h * xs[4] + wi * xs[5];  // x and y share their layout here
                    allRight = allRight && y.value[i] == x[i] * w[g];
                }
        REQUIRE(allRight);
    }
}

TEST_CASE("checkConv passes a correct output and fails a wrong or NaN one", "[reference][conv]") {
    std::mt19937_64 rng(16);
    const SizeMap sizes = convSizes(2, 3, 4, 5, {1, 1}, {7, 3, 2, 1}, {6, 3, 1, 2, 2});
    const ConvShape s = convShapeFromSizes(sizes);
    for (const ConvLayout layout : kLayouts) {
        for (const ConvDirection direction : kDirections) {
            for (const char* dtype : {"f16", "bf16"}) {
                CAPTURE(convDirectionName(direction), dtype, layout == ConvLayout::Nhwgc);
                const auto A = roundedTo(randomValues(convElementsOfA(s, direction), rng), dtype);
                const auto B = roundedTo(randomValues(convElementsOfB(s, direction), rng), dtype);
                const auto D = roundedTo(compute(s, layout, direction, A, B).value, dtype);
                const CorrectnessReport good = runCheck(convContext(sizes, direction, layout, dtype, A, B, D));
                REQUIRE(good.passed);
                REQUIRE(good.checked == static_cast<long long>(D.size()));
                REQUIRE(good.method.find("every output") != std::string::npos);

                auto wrong = D;
                wrong[5] += 0.25;
                const CorrectnessReport bad = runCheck(convContext(sizes, direction, layout, dtype, A, B, wrong));
                REQUIRE_FALSE(bad.passed);
                REQUIRE(bad.firstBadIndex == 5);
                REQUIRE(bad.firstBadText.find(convOutputName(s, layout, direction, 5)) == 0);

                auto poisoned = D;
                poisoned[D.size() - 1] = std::numeric_limits<double>::quiet_NaN();
                const CorrectnessReport nan = runCheck(convContext(sizes, direction, layout, dtype, A, B, poisoned));
                REQUIRE_FALSE(nan.passed);
                REQUIRE(nan.firstBadIndex == static_cast<long long>(D.size() - 1));
            }
        }
    }
    REQUIRE(findReference("conv") != nullptr);
}

// f32 tensors multiplied as TF32 round each operand to 11 significant bits: the products carry
// errors up to 2^-10 of each term, which fp32's tolerance refuses and tf32 = 1 allows.
TEST_CASE("checkConv allows TF32's rounded operands only when the config multiplies as TF32", "[reference][conv]") {
    std::mt19937_64 rng(32);
    const SizeMap sizes = convSizes(2, 1, 16, 8, {1, 1}, {5, 3, 1, 1}, {6, 3, 1, 1});
    const ConvShape s = convShapeFromSizes(sizes);
    const auto A = randomValues(convElementsOfA(s, ConvDirection::Forward), rng);
    const auto B = randomValues(convElementsOfB(s, ConvDirection::Forward), rng);
    // The TF32 product of the operands rounded to 11 bits (10 stored), in float64.
    auto toTf32 = [](std::vector<double> v) {
        for (double& x : v) {
            int e = 0;
            const double m = std::frexp(x, &e);
            x = std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11);
        }
        return v;
    };
    const auto D = roundedTo(compute(s, ConvLayout::Nhwgc, ConvDirection::Forward, toTf32(A), toTf32(B)).value, "f32");
    CheckContext plain = convContext(sizes, ConvDirection::Forward, ConvLayout::Nhwgc, "f32", A, B, D);
    CHECK_FALSE(runCheck(plain).passed);
    CheckContext tf32 = plain;
    tf32.variables["tf32"] = 1;
    const CorrectnessReport r = runCheck(tf32);
    CHECK(r.passed);
    CHECK(r.tolerance > 2 * std::ldexp(1.0, -11));
    auto wrong = D;
    wrong[3] += 0.05;
    tf32.outputs["D"].values = wrong;
    CHECK_FALSE(runCheck(tf32).passed);
}

TEST_CASE("checkConv samples large problems and compares every output with cuDNN's", "[reference][conv]") {
    std::mt19937_64 rng(17);
    const SizeMap sizes = convSizes(2, 2, 6, 4, {1, 1}, {9, 3, 2, 1}, {10, 3, 1, 1});
    const ConvShape s = convShapeFromSizes(sizes);
    for (const ConvDirection direction : kDirections) {
        CAPTURE(convDirectionName(direction));
        const auto A = roundedTo(randomValues(convElementsOfA(s, direction), rng), "f16");
        const auto B = roundedTo(randomValues(convElementsOfB(s, direction), rng), "f16");
        const Computed exact = compute(s, ConvLayout::Nchw, direction, A, B);
        const auto D = roundedTo(exact.value, "f16");
        CheckContext ctx = convContext(sizes, direction, ConvLayout::Nchw, "f16", A, B, D);
        ctx.fullCheckOps = 0;
        ctx.sampledOutputs = 7;
        CorrectnessReport r = runCheck(ctx);
        REQUIRE(r.passed);
        REQUIRE(r.checked == 7);
        REQUIRE_FALSE(r.baselineCompared);

        // cuDNN's result with rounding errors of its own, up to 0.9 tolerances of each scale
        // either way: agrees.
        const double tol = tolerance("f16", static_cast<int>(convReductionLength(s, direction)));
        std::vector<double> cudnn(D.size());
        for (std::size_t i = 0; i < D.size(); ++i) cudnn[i] = exact.value[i] + (i % 2 ? 0.9 : -0.9) * tol * exact.scale[i];
        ctx.baselineOutputs["cudnn_conv"] = HostArray{&dtypeNamed("f16"), cudnn};
        r = runCheck(ctx);
        REQUIRE(r.baselineCompared);
        REQUIRE(r.baselineAgrees);
        REQUIRE(r.passed);
        REQUIRE(r.method.find("cuDNN") != std::string::npos);

        // One wrong output, almost surely not among the 7 sampled: the comparison catches it.
        ctx.outputs["D"].values[D.size() / 2] += 0.25;
        r = runCheck(ctx);
        REQUIRE_FALSE(r.baselineAgrees);
        REQUIRE_FALSE(r.passed);

        // A baseline output of another size is not compared.
        ctx.outputs["D"].values = D;
        ctx.baselineOutputs["cudnn_conv"].values.pop_back();
        r = runCheck(ctx);
        REQUIRE_FALSE(r.baselineCompared);
        REQUIRE(r.passed);
    }
}

TEST_CASE("conv rejects shapes and arrays that do not fit", "[reference][conv]") {
    const Dim one{1, 1};
    // A dilated filter wider than the padded input: Wo would be below 1.
    std::string message = thrownMessage(convSizes(1, 1, 1, 1, one, one, {4, 3, 1, 0, 2}));
    REQUIRE(message.find("Wo would be below 1") != std::string::npos);
    REQUIRE(message.find("5 points") != std::string::npos);
    message = thrownMessage(convSizes(1, 1, 1, 1, one, {4, 2, 1, 0, 1}, {4, 3, 0}));
    REQUIRE(message.find("stride_w is 0") != std::string::npos);
    message = thrownMessage(convSizes(1, 1, 1, 1, one, {4, 2, 1, 0, 0}, {4, 3}));
    REQUIRE(message.find("dil_h is 0") != std::string::npos);
    message = thrownMessage(convSizes(1, 1, 1, 1, {3, 1, 1, -1}, one, one));
    REQUIRE(message.find("pad_d is -1") != std::string::npos);
    message = thrownMessage(convSizes(1, 2, 0, 1, one, one, one));
    REQUIRE(message.find("C is 0") != std::string::npos);
    SizeMap missing = convSizes(1, 1, 1, 1, one, one, one);
    missing.erase("pad_h");
    REQUIRE(thrownMessage(missing).find("'pad_h'") != std::string::npos);
    REQUIRE_THROWS_AS(convDirectionNamed("backward"), InputError);
    REQUIRE_THROWS_AS(convLayoutNamed("nhwc"), InputError);

    // Arrays that do not match the shape name what the direction needs.
    const SizeMap sizes = convSizes(1, 1, 2, 3, one, {4, 3, 1, 1}, {4, 3, 1, 1});
    const ConvShape s = convShapeFromSizes(sizes);
    const std::vector<double> x(static_cast<std::size_t>(s.inputElements())), w(static_cast<std::size_t>(s.filterElements()));
    const std::vector<double> y(static_cast<std::size_t>(s.outputElements()));
    REQUIRE(runCheck(convContext(sizes, ConvDirection::Forward, ConvLayout::Nhwgc, "f16", x, w, y)).passed);
    try {
        runCheck(convContext(sizes, ConvDirection::BackwardData, ConvLayout::Nhwgc, "f16", x, w, y));
        FAIL("no InputError");
    } catch (const InputError& e) {
        REQUIRE(std::string(e.what()).find("needs A (dy) of 48 values") != std::string::npos);
    }
}

