// Grouped convolution, three directions, in float64 (conv.hpp): every output of a problem, or
// one output at a time for sampled checks.
//
// The full computation copies its operands into the orders its loops walk (channels innermost)
// and splits work items (output pixels, input pixels, or filter taps) over threads; each output is
// summed by one thread in a fixed order.
#include "run/references/conv.hpp"
#include "run/references/conv_detail.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kx::engine {

namespace {

using namespace conv_detail;  // the helpers this file shares with the other conv files

// Outputs computed before they are handed on (a slab bounds the reference's own arrays however
// large the problem).
constexpr long long kSlabOutputs = 1 << 20;

// [SECTION] Operands in the loops' orders

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

}  // namespace

void conv_detail::tapHits(const ConvShape& s, const std::array<long long, 3>& pos, bool fromOutput, std::vector<TapHit>& hits) {
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

namespace {

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

}  // namespace

void conv_detail::forEachOutput(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                                const SlabConsumer& consume) {
    const long long length = convReductionLength(s, direction);
    switch (direction) {
    case ConvDirection::Forward: forEachSlab(ForwardWork(s, layout, A, B), length, consume); break;
    case ConvDirection::BackwardData: forEachSlab(BackwardDataWork(s, layout, A, B), length, consume); break;
    case ConvDirection::BackwardWeight: forEachSlab(BackwardWeightWork(s, layout, A, B), length, consume); break;
    }
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
    conv_detail::forEachOutput(s, layout, direction, A, B, [&](const long long* index, const double* v, const double* m, long long count) {
        for (long long j = 0; j < count; ++j) {
            value[index[j]] = v[j];
            scale[index[j]] = m[j];
        }
    });
}

}  // namespace kx::engine
