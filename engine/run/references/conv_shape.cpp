// Grouped convolution: direction and layout names, the shape from the problem sizes, and the
// layouts' extents, strides and element indices (conv.hpp).
#include "run/references/conv.hpp"
#include "run/references/conv_detail.hpp"

#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <string>
#include <utility>

namespace kx::engine {

namespace conv_detail {

ConvAxes denseStrides(const ConvAxes& extents, const AxisOrder& outerToInner) {
    ConvAxes strides{};
    long long step = 1;
    for (int i = 5; i >= 0; --i) {
        strides[outerToInner[i]] = step;
        step *= extents[outerToInner[i]];
    }
    return strides;
}

}  // namespace conv_detail

namespace {

using conv_detail::AxisOrder;
using conv_detail::denseStrides;
using conv_detail::indexOf;

// The layouts' axis orders, outermost first (see conv.hpp).
constexpr AxisOrder kOwnOrder = {0, 1, 2, 3, 4, 5};               // nchw, for both
constexpr AxisOrder kActivationChannelsLast = {0, 3, 4, 5, 1, 2};  // n d h w g ch
constexpr AxisOrder kFilterChannelsLast = {0, 1, 3, 4, 5, 2};      // g k z y x c

}  // namespace

// [SECTION] Names and shape

namespace {
const char* const kConvDirectionNames[] = {"fwd", "bwd_data", "bwd_weight"};
}  // namespace

ConvDirection convDirectionNamed(const std::string& name) {
    return enumNamed<ConvDirection>(name, kConvDirectionNames, "conv direction");
}

ConvLayout convLayoutNamed(const std::string& name) {
    return enumNamed<ConvLayout>(name, {"nhwgc", "nchw"}, "conv layout");
}

const char* convDirectionName(ConvDirection direction) { return enumName(direction, kConvDirectionNames); }

ConvShape convShapeFromSizes(const SizeMap& sizes) {
    auto size = [&](const std::string& name) {
        const auto it = sizes.find(name);
        if (it == sizes.end())
            throw InputError("the conv reference needs the problem size '" + name + "', which the manifest does not define");
        return it->second;
    };
    ConvShape s;
    s.N = size("N"), s.G = size("G"), s.C = size("C"), s.K = size("K");
    const char* const inputNames[3] = {"Di", "Hi", "Wi"};
    const char* const filterNames[3] = {"Z", "Y", "X"};
    const char* const suffixes[3] = {"d", "h", "w"};
    for (int a = 0; a < 3; ++a) {
        ConvDim& dim = s.spatial[a];
        dim.input = size(inputNames[a]);
        dim.filter = size(filterNames[a]);
        dim.stride = size(std::string("stride_") + suffixes[a]);
        dim.pad = size(std::string("pad_") + suffixes[a]);
        dim.dilation = size(std::string("dil_") + suffixes[a]);
    }
    convComputeOutputs(s);
    return s;
}

void convComputeOutputs(ConvShape& s) {
    for (const auto& [name, value] : {std::pair<const char*, long long>{"N", s.N}, {"G", s.G}, {"C", s.C}, {"K", s.K}})
        if (value < 1) throw InputError(std::string("the conv's ") + name + " is " + std::to_string(value) + "; it must be at least 1");
    const char* const inputNames[3] = {"Di", "Hi", "Wi"};
    const char* const filterNames[3] = {"Z", "Y", "X"};
    const char* const outputNames[3] = {"Do", "Ho", "Wo"};
    const char* const suffixes[3] = {"d", "h", "w"};
    for (int a = 0; a < 3; ++a) {
        ConvDim& dim = s.spatial[a];
        const std::string sfx = suffixes[a];
        auto atLeast = [](const std::string& name, long long value, long long least) {
            if (value < least)
                throw InputError("the conv's " + name + " is " + std::to_string(value) + "; it must be at least " + std::to_string(least));
        };
        atLeast(inputNames[a], dim.input, 1);
        atLeast(filterNames[a], dim.filter, 1);
        atLeast("stride_" + sfx, dim.stride, 1);
        atLeast("dil_" + sfx, dim.dilation, 1);
        atLeast("pad_" + sfx, dim.pad, 0);
        const long long reach = dim.dilation * (dim.filter - 1) + 1;  // points the dilated filter spans
        const long long padded = dim.input + 2 * dim.pad;
        if (padded < reach)
            throw InputError(std::string("the conv's output extent ") + outputNames[a] +
                             " would be below 1: the dilated filter spans dil_" + sfx + " * (" + filterNames[a] + " - 1) + 1 = " +
                             std::to_string(reach) + " points but the padded input " + inputNames[a] + " + 2 * pad_" + sfx +
                             " has only " + std::to_string(padded));
        dim.output = (padded - reach) / dim.stride + 1;
    }
}

// [SECTION] Axes

ConvAxes convInputExtents(const ConvShape& s) { return {s.N, s.G, s.C, s.spatial[0].input, s.spatial[1].input, s.spatial[2].input}; }
ConvAxes convOutputExtents(const ConvShape& s) { return {s.N, s.G, s.K, s.spatial[0].output, s.spatial[1].output, s.spatial[2].output}; }
ConvAxes convFilterExtents(const ConvShape& s) { return {s.G, s.K, s.C, s.spatial[0].filter, s.spatial[1].filter, s.spatial[2].filter}; }

ConvAxes convInputStrides(const ConvShape& s, ConvLayout layout) {
    return denseStrides(convInputExtents(s), layout == ConvLayout::Nhwgc ? kActivationChannelsLast : kOwnOrder);
}
ConvAxes convOutputStrides(const ConvShape& s, ConvLayout layout) {
    return denseStrides(convOutputExtents(s), layout == ConvLayout::Nhwgc ? kActivationChannelsLast : kOwnOrder);
}
ConvAxes convFilterStrides(const ConvShape& s, ConvLayout layout) {
    return denseStrides(convFilterExtents(s), layout == ConvLayout::Nhwgc ? kFilterChannelsLast : kOwnOrder);
}

long long convInputIndex(const ConvShape& s, ConvLayout layout, long long n, long long g, long long c, long long d, long long h,
                         long long w) {
    return indexOf(convInputStrides(s, layout), {n, g, c, d, h, w});
}
long long convOutputIndex(const ConvShape& s, ConvLayout layout, long long n, long long g, long long k, long long d, long long h,
                          long long w) {
    return indexOf(convOutputStrides(s, layout), {n, g, k, d, h, w});
}
long long convFilterIndex(const ConvShape& s, ConvLayout layout, long long g, long long k, long long c, long long z, long long y,
                          long long x) {
    return indexOf(convFilterStrides(s, layout), {g, k, c, z, y, x});
}

long long convReductionLength(const ConvShape& s, ConvDirection direction) {
    switch (direction) {
    case ConvDirection::Forward: return s.C * s.taps();
    case ConvDirection::BackwardData: return s.K * s.taps();
    case ConvDirection::BackwardWeight: return s.N * s.outputPixels();
    }
    return 0;
}

long long convElementsOfA(const ConvShape& s, ConvDirection direction) {
    return direction == ConvDirection::Forward ? s.inputElements() : s.outputElements();
}
long long convElementsOfB(const ConvShape& s, ConvDirection direction) {
    return direction == ConvDirection::BackwardWeight ? s.inputElements() : s.filterElements();
}
long long convElementsOfD(const ConvShape& s, ConvDirection direction) {
    if (direction == ConvDirection::Forward) return s.outputElements();
    return direction == ConvDirection::BackwardData ? s.inputElements() : s.filterElements();
}

}  // namespace kx::engine
