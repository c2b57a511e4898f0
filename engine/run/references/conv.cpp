// Grouped convolution, three directions: every output against float64 while outputs * reduction
// length <= fullCheckOps; above it, sampledOutputs random outputs against float64 and, when
// cuDNN ran, every output against cuDNN's within a bound that costs far less than the reference.
//
// The full computation copies its operands into the orders its loops walk (channels innermost)
// and splits work items (output pixels, input pixels, or filter taps) over threads; each output is
// summed by one thread in a fixed order.
#include "run/references/conv.hpp"
#include "run/references/references.hpp"

#include "run/reference.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <random>
#include <system_error>
#include <thread>
#include <vector>

namespace kx::engine {

namespace {

// [SECTION] Threads

// Multiply-adds worth a thread of their own, and outputs computed before they are checked (a
// slab bounds the reference's own arrays however large the problem).
constexpr double kWorkPerThread = 1 << 20;
constexpr long long kSlabOutputs = 1 << 20;

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

// [SECTION] Axes and layouts

// Axis orders, outermost first, over the six logical axes: activations (n, g, ch, d, h, w),
// filters (g, k, c, z, y, x).
using AxisOrder = std::array<int, 6>;
constexpr AxisOrder kOwnOrder = {0, 1, 2, 3, 4, 5};               // nchw, for both
constexpr AxisOrder kActivationChannelsLast = {0, 3, 4, 5, 1, 2};  // n d h w g ch
constexpr AxisOrder kFilterChannelsLast = {0, 1, 3, 4, 5, 2};      // g k z y x c

ConvAxes denseStrides(const ConvAxes& extents, const AxisOrder& outerToInner) {
    ConvAxes strides{};
    long long step = 1;
    for (int i = 5; i >= 0; --i) {
        strides[outerToInner[i]] = step;
        step *= extents[outerToInner[i]];
    }
    return strides;
}

long long indexOf(const ConvAxes& strides, const ConvAxes& coords) {
    long long index = 0;
    for (int a = 0; a < 6; ++a) index += strides[a] * coords[a];
    return index;
}

// The coordinates of an element of a dense array with these extents and strides.
ConvAxes coordsOf(long long index, const ConvAxes& extents, const ConvAxes& strides) {
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

// src (strides `from`) in the order of `to`: src itself when they agree, else a copy kept in
// storage.
const double* inOrder(const double* src, const ConvAxes& extents, const ConvAxes& from, const ConvAxes& to,
                      std::vector<double>& storage) {
    if (from == to) return src;
    storage.assign(static_cast<std::size_t>(extents[0] * extents[1] * extents[2] * extents[3] * extents[4] * extents[5]), 0.0);
    forEachCoord(extents, [&](const ConvAxes& c) { storage[static_cast<std::size_t>(indexOf(to, c))] = src[indexOf(from, c)]; });
    return storage.data();
}

// [SECTION] Taps

// Along one dimension: the input coordinate that tap t of output o reads, or -1 (padding).
long long inputCoord(const ConvDim& dim, long long o, long long t) {
    const long long i = o * dim.stride - dim.pad + t * dim.dilation;
    return i >= 0 && i < dim.input ? i : -1;
}

// Along one dimension: the output whose tap t reads input i, or -1 when none does (i is off that
// tap's stride lattice, or the output would be out of range). The gather form of bwd_data.
long long outputCoord(const ConvDim& dim, long long i, long long t) {
    const long long shifted = i + dim.pad - t * dim.dilation;
    if (shifted < 0 || shifted % dim.stride != 0) return -1;
    const long long o = shifted / dim.stride;
    return o < dim.output ? o : -1;
}

// A tap (z*Y + y)*X + x that connects a pixel to `pixel` (d*H + h)*W + w of the other tensor.
// The spatial axes are adjacent and in this order in both layouts, so a pixel (or tap) number
// times the w (or x) stride addresses it.
struct TapHit {
    long long tap;
    long long pixel;
};

// The taps of an output pixel that land in the input (fromOutput), or the taps through which an
// input pixel feeds an output, with the pixel of the other tensor each connects to.
void tapHits(const ConvShape& s, const std::array<long long, 3>& pos, bool fromOutput, std::vector<TapHit>& hits) {
    hits.clear();
    const ConvDim &dd = s.spatial[0], &dh = s.spatial[1], &dw = s.spatial[2];
    auto other = [&](const ConvDim& dim, long long p, long long t) { return fromOutput ? inputCoord(dim, p, t) : outputCoord(dim, p, t); };
    const long long H = fromOutput ? dh.input : dh.output, W = fromOutput ? dw.input : dw.output;
    for (long long z = 0; z < dd.filter; ++z) {
        const long long d = other(dd, pos[0], z);
        if (d < 0) continue;
        for (long long y = 0; y < dh.filter; ++y) {
            const long long h = other(dh, pos[1], y);
            if (h < 0) continue;
            for (long long x = 0; x < dw.filter; ++x) {
                const long long w = other(dw, pos[2], x);
                if (w >= 0) hits.push_back({(z * dh.filter + y) * dw.filter + x, (d * H + h) * W + w});
            }
        }
    }
}

std::array<long long, 3> pixelCoords(long long pixel, long long H, long long W) { return {pixel / (H * W), pixel / W % H, pixel % W}; }

// [SECTION] Every output: one class per direction
//
// Each splits its outputs into work items of outputsPerItem() outputs; compute() writes one
// item's values, scales and indices in D's layout.

// fwd: an item is an output pixel (n, od, oh, ow) and its G*K outputs; x as [n][d][h][w][g][c]
// and w as [g][k][z][y][x][c], so the innermost loop walks c through both.
class ForwardWork {
public:
    ForwardWork(const ConvShape& s, ConvLayout layout, const double* x, const double* w)
        : m_s(s), m_yStrides(convOutputStrides(s, layout)) {
        m_x = inOrder(x, convInputExtents(s), convInputStrides(s, layout), convInputStrides(s, ConvLayout::Nhwgc), m_xCopy);
        m_w = inOrder(w, convFilterExtents(s), convFilterStrides(s, layout), convFilterStrides(s, ConvLayout::Nhwgc), m_wCopy);
    }
    long long items() const { return m_s.N * m_s.outputPixels(); }
    long long outputsPerItem() const { return m_s.G * m_s.K; }

    void compute(long long item, std::vector<TapHit>& hits, double* value, double* scale, long long* index) const {
        const long long G = m_s.G, K = m_s.K, C = m_s.C, taps = m_s.taps();
        const long long n = item / m_s.outputPixels(), pixel = item % m_s.outputPixels();
        const auto pos = pixelCoords(pixel, m_s.spatial[1].output, m_s.spatial[2].output);
        tapHits(m_s, pos, true, hits);
        const long long first = indexOf(m_yStrides, {n, 0, 0, pos[0], pos[1], pos[2]});
        for (long long g = 0; g < G; ++g) {
            for (long long k = 0; k < K; ++k) {
                const double* wRow = m_w + (g * K + k) * taps * C;
                double sum = 0, magnitude = 0;
                for (const TapHit& hit : hits) {
                    const double* xr = m_x + ((n * m_s.inputPixels() + hit.pixel) * G + g) * C;
                    const double* wr = wRow + hit.tap * C;
                    for (long long c = 0; c < C; ++c) {
                        const double term = xr[c] * wr[c];
                        sum += term;
                        magnitude += std::fabs(term);
                    }
                }
                const long long j = g * K + k;
                value[j] = sum;
                scale[j] = magnitude;
                index[j] = first + g * m_yStrides[1] + k * m_yStrides[2];
            }
        }
    }

private:
    const ConvShape& m_s;
    ConvAxes m_yStrides;
    std::vector<double> m_xCopy, m_wCopy;
    const double* m_x;
    const double* m_w;
};

// bwd_data: an item is an input pixel (n, id, ih, iw) and its G*C outputs, gathered from the
// output pixels its taps feed; dy as [n][d][h][w][g][k] and w as [g][z][y][x][c][k], so the
// innermost loop walks k through both.
class BackwardDataWork {
public:
    BackwardDataWork(const ConvShape& s, ConvLayout layout, const double* dy, const double* w)
        : m_s(s), m_dxStrides(convInputStrides(s, layout)) {
        m_dy = inOrder(dy, convOutputExtents(s), convOutputStrides(s, layout), convOutputStrides(s, ConvLayout::Nhwgc), m_dyCopy);
        const ConvAxes filterExtents = convFilterExtents(s);
        m_w = inOrder(w, filterExtents, convFilterStrides(s, layout), denseStrides(filterExtents, {0, 3, 4, 5, 2, 1}), m_wCopy);
    }
    long long items() const { return m_s.N * m_s.inputPixels(); }
    long long outputsPerItem() const { return m_s.G * m_s.C; }

    void compute(long long item, std::vector<TapHit>& hits, double* value, double* scale, long long* index) const {
        const long long G = m_s.G, K = m_s.K, C = m_s.C, taps = m_s.taps();
        const long long n = item / m_s.inputPixels(), pixel = item % m_s.inputPixels();
        const auto pos = pixelCoords(pixel, m_s.spatial[1].input, m_s.spatial[2].input);
        tapHits(m_s, pos, false, hits);
        const long long first = indexOf(m_dxStrides, {n, 0, 0, pos[0], pos[1], pos[2]});
        for (long long g = 0; g < G; ++g) {
            for (long long c = 0; c < C; ++c) {
                double sum = 0, magnitude = 0;
                for (const TapHit& hit : hits) {
                    const double* dyr = m_dy + ((n * m_s.outputPixels() + hit.pixel) * G + g) * K;
                    const double* wr = m_w + ((g * taps + hit.tap) * C + c) * K;
                    for (long long k = 0; k < K; ++k) {
                        const double term = dyr[k] * wr[k];
                        sum += term;
                        magnitude += std::fabs(term);
                    }
                }
                const long long j = g * C + c;
                value[j] = sum;
                scale[j] = magnitude;
                index[j] = first + g * m_dxStrides[1] + c * m_dxStrides[2];
            }
        }
    }

private:
    const ConvShape& m_s;
    ConvAxes m_dxStrides;
    std::vector<double> m_dyCopy, m_wCopy;
    const double* m_dy;
    const double* m_w;
};

// bwd_weight: an item is a (g, k, tap) and its C outputs, each a sum over every (n, output
// pixel); dy as [g][k][n][d][h][w] (one contiguous run per item) and x as [n][d][h][w][g][c], so
// the innermost loop adds one dy value times a contiguous row of C inputs.
class BackwardWeightWork {
public:
    BackwardWeightWork(const ConvShape& s, ConvLayout layout, const double* dy, const double* x)
        : m_s(s), m_dwStrides(convFilterStrides(s, layout)) {
        const ConvAxes dyExtents = convOutputExtents(s);
        m_dy = inOrder(dy, dyExtents, convOutputStrides(s, layout), denseStrides(dyExtents, {1, 2, 0, 3, 4, 5}), m_dyCopy);
        m_x = inOrder(x, convInputExtents(s), convInputStrides(s, layout), convInputStrides(s, ConvLayout::Nhwgc), m_xCopy);
    }
    long long items() const { return m_s.G * m_s.K * m_s.taps(); }
    long long outputsPerItem() const { return m_s.C; }

    void compute(long long item, std::vector<TapHit>&, double* value, double* scale, long long* index) const {
        const long long G = m_s.G, K = m_s.K, C = m_s.C, taps = m_s.taps();
        const long long g = item / (K * taps), k = item / taps % K, tap = item % taps;
        const auto filterPos = pixelCoords(tap, m_s.spatial[1].filter, m_s.spatial[2].filter);
        const ConvDim &dd = m_s.spatial[0], &dh = m_s.spatial[1], &dw = m_s.spatial[2];
        std::fill(value, value + C, 0.0);
        std::fill(scale, scale + C, 0.0);
        const double* dyRun = m_dy + (g * K + k) * m_s.N * m_s.outputPixels();
        for (long long n = 0; n < m_s.N; ++n) {
            for (long long od = 0; od < dd.output; ++od) {
                const long long id = inputCoord(dd, od, filterPos[0]);
                if (id < 0) continue;
                for (long long oh = 0; oh < dh.output; ++oh) {
                    const long long ih = inputCoord(dh, oh, filterPos[1]);
                    if (ih < 0) continue;
                    const double* dyRow = dyRun + (n * dd.output + od) * dh.output * dw.output + oh * dw.output;
                    const double* xRow = m_x + ((n * dd.input + id) * dh.input + ih) * dw.input * G * C + g * C;
                    addRow(dyRow, xRow, filterPos[2], value, scale);
                }
            }
        }
        const long long first = indexOf(m_dwStrides, {g, k, 0, filterPos[0], filterPos[1], filterPos[2]});
        for (long long c = 0; c < C; ++c) index[c] = first + c * m_dwStrides[2];
    }

private:
    // One (n, od, oh) row of output pixels: value[c] += dy[ow] * x[iw(ow)][c] for every ow whose
    // tap lands inside the input.
    void addRow(const double* dyRow, const double* xRow, long long tapX, double* value, double* scale) const {
        const ConvDim& dw = m_s.spatial[2];
        const long long GC = m_s.G * m_s.C;
        for (long long ow = 0; ow < dw.output; ++ow) {
            const long long iw = inputCoord(dw, ow, tapX);
            if (iw < 0) continue;
            const double d = dyRow[ow];
            const double* xr = xRow + iw * GC;
            for (long long c = 0; c < m_s.C; ++c) {
                const double term = d * xr[c];
                value[c] += term;
                scale[c] += std::fabs(term);
            }
        }
    }

    const ConvShape& m_s;
    ConvAxes m_dwStrides;
    std::vector<double> m_dyCopy, m_xCopy;
    const double* m_dy;
    const double* m_x;
};

// Every output of work, a slab of items at a time: the slab's items on threads, then
// consume(index, value, scale, count) with them in item order.
template <class Work, class Consume>
void forEachSlab(const Work& work, long long reductionLength, const Consume& consume) {
    const long long perItem = work.outputsPerItem();
    const long long slabItems = std::max(1LL, kSlabOutputs / perItem);
    const auto slabOutputs = static_cast<std::size_t>(std::min(work.items(), slabItems) * perItem);
    std::vector<double> value(slabOutputs), scale(slabOutputs);
    std::vector<long long> index(slabOutputs);
    for (long long first = 0; first < work.items(); first += slabItems) {
        const long long count = std::min(work.items() - first, slabItems);
        parallelRanges(count, static_cast<double>(count) * perItem * reductionLength, [&](long long begin, long long end) {
            std::vector<TapHit> hits;
            for (long long i = begin; i < end; ++i)
                work.compute(first + i, hits, &value[i * perItem], &scale[i * perItem], &index[i * perItem]);
        });
        consume(index.data(), value.data(), scale.data(), count * perItem);
    }
}

template <class Consume>
void forEachOutput(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                   const Consume& consume) {
    const long long length = convReductionLength(s, direction);
    switch (direction) {
    case ConvDirection::Forward: forEachSlab(ForwardWork(s, layout, A, B), length, consume); break;
    case ConvDirection::BackwardData: forEachSlab(BackwardDataWork(s, layout, A, B), length, consume); break;
    case ConvDirection::BackwardWeight: forEachSlab(BackwardWeightWork(s, layout, A, B), length, consume); break;
    }
}

// [SECTION] One output

ConvTerms forwardAt(const ConvShape& s, ConvLayout layout, const double* x, const double* w, long long index) {
    const ConvAxes y = coordsOf(index, convOutputExtents(s), convOutputStrides(s, layout));
    const ConvAxes xs = convInputStrides(s, layout), ws = convFilterStrides(s, layout);
    const long long n = y[0], g = y[1], k = y[2];
    std::vector<TapHit> hits;
    tapHits(s, {y[3], y[4], y[5]}, true, hits);
    ConvTerms t;
    for (const TapHit& hit : hits) {
        for (long long c = 0; c < s.C; ++c) {
            const double xv = x[n * xs[0] + g * xs[1] + c * xs[2] + hit.pixel * xs[5]];
            const double term = xv * w[g * ws[0] + k * ws[1] + c * ws[2] + hit.tap * ws[5]];
            t.value += term;
            t.scale += std::fabs(term);
        }
    }
    return t;
}

ConvTerms backwardDataAt(const ConvShape& s, ConvLayout layout, const double* dy, const double* w, long long index) {
    const ConvAxes dx = coordsOf(index, convInputExtents(s), convInputStrides(s, layout));
    const ConvAxes ys = convOutputStrides(s, layout), ws = convFilterStrides(s, layout);
    const long long n = dx[0], g = dx[1], c = dx[2];
    std::vector<TapHit> hits;
    tapHits(s, {dx[3], dx[4], dx[5]}, false, hits);
    ConvTerms t;
    for (const TapHit& hit : hits) {
        for (long long k = 0; k < s.K; ++k) {
            const double dyv = dy[n * ys[0] + g * ys[1] + k * ys[2] + hit.pixel * ys[5]];
            const double term = dyv * w[g * ws[0] + k * ws[1] + c * ws[2] + hit.tap * ws[5]];
            t.value += term;
            t.scale += std::fabs(term);
        }
    }
    return t;
}

ConvTerms backwardWeightAt(const ConvShape& s, ConvLayout layout, const double* dy, const double* x, long long index) {
    const ConvAxes dw = coordsOf(index, convFilterExtents(s), convFilterStrides(s, layout));
    const ConvAxes ys = convOutputStrides(s, layout), xs = convInputStrides(s, layout);
    const long long g = dw[0], k = dw[1], c = dw[2];
    const ConvDim &depth = s.spatial[0], &height = s.spatial[1], &width = s.spatial[2];
    const double* dyChannel = dy + g * ys[1] + k * ys[2];
    const double* xChannel = x + g * xs[1] + c * xs[2];
    ConvTerms t;
    for (long long n = 0; n < s.N; ++n) {
        for (long long od = 0; od < depth.output; ++od) {
            const long long id = inputCoord(depth, od, dw[3]);
            if (id < 0) continue;
            for (long long oh = 0; oh < height.output; ++oh) {
                const long long ih = inputCoord(height, oh, dw[4]);
                if (ih < 0) continue;
                for (long long ow = 0; ow < width.output; ++ow) {
                    const long long iw = inputCoord(width, ow, dw[5]);
                    if (iw < 0) continue;
                    const double dyv = dyChannel[n * ys[0] + od * ys[3] + oh * ys[4] + ow * ys[5]];
                    const double term = dyv * xChannel[n * xs[0] + id * xs[3] + ih * xs[4] + iw * xs[5]];
                    t.value += term;
                    t.scale += std::fabs(term);
                }
            }
        }
    }
    return t;
}

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
    std::vector<ConvTerms> terms(picks.size());
    const auto count = static_cast<long long>(picks.size());
    parallelRanges(count, static_cast<double>(count) * convReductionLength(job.shape, job.direction), [&](long long begin, long long end) {
        for (long long s = begin; s < end; ++s) terms[s] = convReferenceAt(job.shape, job.layout, job.direction, job.A, job.B, picks[s]);
    });
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

// [SECTION] Names and shape

ConvDirection convDirectionNamed(const std::string& name) {
    if (name == "fwd") return ConvDirection::Forward;
    if (name == "bwd_data") return ConvDirection::BackwardData;
    if (name == "bwd_weight") return ConvDirection::BackwardWeight;
    throw InputError("unknown conv direction '" + name + "' (fwd, bwd_data or bwd_weight)");
}

ConvLayout convLayoutNamed(const std::string& name) {
    if (name == "nhwgc") return ConvLayout::Nhwgc;
    if (name == "nchw") return ConvLayout::Nchw;
    throw InputError("unknown conv layout '" + name + "' (nhwgc or nchw)");
}

const char* convDirectionName(ConvDirection direction) {
    switch (direction) {
    case ConvDirection::Forward: return "fwd";
    case ConvDirection::BackwardData: return "bwd_data";
    case ConvDirection::BackwardWeight: return "bwd_weight";
    }
    return "?";
}

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

// [SECTION] References

ConvTerms convReferenceAt(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                          long long outputIndex) {
    switch (direction) {
    case ConvDirection::Forward: return forwardAt(s, layout, A, B, outputIndex);
    case ConvDirection::BackwardData: return backwardDataAt(s, layout, A, B, outputIndex);
    case ConvDirection::BackwardWeight: return backwardWeightAt(s, layout, A, B, outputIndex);
    }
    return {};
}

void convReference(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B, double* value,
                   double* scale) {
    forEachOutput(s, layout, direction, A, B, [&](const long long* index, const double* v, const double* m, long long count) {
        for (long long j = 0; j < count; ++j) {
            value[index[j]] = v[j];
            scale[index[j]] = m[j];
        }
    });
}

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
