// The parts of the conv reference shared by its translation units (conv_shape.cpp: names, shape
// and layouts; conv.cpp: the float64 direct convolution; conv_check.cpp: the bound against
// cuDNN and the check). Not an API: include conv.hpp instead.
#pragma once

#include "run/references/conv.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <system_error>
#include <thread>
#include <vector>

namespace kx::engine::conv_detail {

// [SECTION] Threads

// Multiply-adds worth a thread of their own.
constexpr double kWorkPerThread = 1 << 20;

// body(begin, end) over contiguous ranges covering [0, count), on as many threads as the
// machine offers and `work` (multiply-adds in all) justifies.
template <class Body>
void parallelRanges(long long count, double work, const Body& body) {
    if (count <= 0) return;
    const long long cores = std::max(1u, std::thread::hardware_concurrency());
    const long long threads = std::max(1LL, std::min({cores, count, static_cast<long long>(work / kWorkPerThread)}));
    std::vector<std::thread> pool;
    long long done = 0;  // [0, done) is handed to threads
    try {
        for (long long t = 0; t + 1 < threads; ++t) {
            const long long end = count * (t + 1) / threads;
            pool.emplace_back([&body, done, end] { body(done, end); });
            done = end;
        }
    } catch (const std::system_error&) {
        // No more threads to be had (a sandbox, a loaded machine): this one does the rest.
    }
    body(done, count);
    for (std::thread& t : pool) t.join();
}

// [SECTION] Axes and layouts (conv_shape.cpp)

// Axis orders, outermost first, over the six logical axes: activations (n, g, ch, d, h, w),
// filters (g, k, c, z, y, x).
using AxisOrder = std::array<int, 6>;

// The strides of a dense array with these extents whose axes run in this order.
ConvAxes denseStrides(const ConvAxes& extents, const AxisOrder& outerToInner);

inline long long indexOf(const ConvAxes& strides, const ConvAxes& coords) {
    long long index = 0;
    for (int a = 0; a < 6; ++a) index += strides[a] * coords[a];
    return index;
}

// The coordinates of an element of a dense array with these extents and strides.
inline ConvAxes coordsOf(long long index, const ConvAxes& extents, const ConvAxes& strides) {
    ConvAxes coords{};
    for (int a = 0; a < 6; ++a) coords[a] = index / strides[a] % extents[a];
    return coords;
}

template <class Visit>
void forEachCoord(const ConvAxes& e, const Visit& visit) {
    ConvAxes c{};
    for (c[0] = 0; c[0] < e[0]; ++c[0])
        for (c[1] = 0; c[1] < e[1]; ++c[1])
            for (c[2] = 0; c[2] < e[2]; ++c[2])
                for (c[3] = 0; c[3] < e[3]; ++c[3])
                    for (c[4] = 0; c[4] < e[4]; ++c[4])
                        for (c[5] = 0; c[5] < e[5]; ++c[5]) visit(c);
}

// [SECTION] Taps (conv.cpp)

// A tap (z*Y + y)*X + x that connects a pixel to `pixel` (d*H + h)*W + w of the other tensor.
// The spatial axes are adjacent and in this order in both layouts, so a pixel (or tap) number
// times the w (or x) stride addresses it.
struct TapHit {
    long long tap;
    long long pixel;
};

// The taps of an output pixel that land in the input (fromOutput), or the taps through which an
// input pixel feeds an output, with the pixel of the other tensor each connects to.
void tapHits(const ConvShape& s, const std::array<long long, 3>& pos, bool fromOutput, std::vector<TapHit>& hits);

// Pixel number (d*H + h)*W + w as (d, h, w).
inline std::array<long long, 3> pixelCoords(long long pixel, long long H, long long W) { return {pixel / (H * W), pixel / W % H, pixel % W}; }

// [SECTION] Every output (conv.cpp)

// consume(index, value, scale, count): count outputs' values and scales with their indices in D's
// layout, in item order.
using SlabConsumer = std::function<void(const long long* index, const double* value, const double* scale, long long count)>;

// Every output of the direction, a slab at a time (a slab bounds the reference's own arrays
// however large the problem): the slab's outputs computed on threads, then handed to consume.
void forEachOutput(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                   const SlabConsumer& consume);

}  // namespace kx::engine::conv_detail
