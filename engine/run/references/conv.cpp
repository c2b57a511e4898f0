// Grouped convolution, three directions, in float64 (conv.hpp): every output of a problem, or
// one output at a time for sampled checks.
//
// The full computation copies its operands into the orders its loops walk (channels innermost)
// and splits work items (output pixels, input pixels, or filter taps) over threads; each output is
// summed by one thread in a fixed order.
#include "run/references/conv.hpp"
#include "run/references/conv_detail.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <thread>
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

// bwd_weight's walk: every (n, od, oh) row of output pixels whose taps z and y land inside the
// input, in order, with the input coordinates id and ih they land on.
template <class Visit>
void forEachLandingRow(const ConvShape& s, long long z, long long y, Visit visit) {
    const ConvDim &dd = s.spatial[0], &dh = s.spatial[1];
    for (long long n = 0; n < s.N; ++n) {
        for (long long od = 0; od < dd.output; ++od) {
            const long long id = inputCoord(dd, od, z);
            if (id < 0) continue;
            for (long long oh = 0; oh < dh.output; ++oh) {
                const long long ih = inputCoord(dh, oh, y);
                if (ih >= 0) visit(n, od, id, oh, ih);
            }
        }
    }
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

// [SECTION] Every output: one class for the gathering directions, one for bwd_weight
//
// Each splits its outputs into work items of outputsPerItem() outputs; compute() writes one
// item's values, scales and indices in D's layout.

// fwd and bwd_data: an item is a pixel (n, d, h, w) of the tensor written (y; dx) and its G*P
// outputs, P being its channels (K; C), gathered from the pixels of the tensor read (x; dy) that
// its taps meet. Each output sums over R reduced channels (C; K): the operand is held as
// [n][d][h][w][g][r] and w as [g][p][z][y][x][r], so the innermost loop walks r through both.
class GatherWork {
public:
    GatherWork(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* operand, const double* w)
        : m_s(s), m_forward(direction == ConvDirection::Forward),
          m_writtenStrides(m_forward ? convOutputStrides(s, layout) : convInputStrides(s, layout)),
          m_channels(m_forward ? s.K : s.C), m_reduced(m_forward ? s.C : s.K),
          m_readPixels(m_forward ? s.inputPixels() : s.outputPixels()) {
        const ConvAxes operandExtents = m_forward ? convInputExtents(s) : convOutputExtents(s);
        const ConvAxes operandStrides = m_forward ? convInputStrides(s, layout) : convOutputStrides(s, layout);
        m_operand = inOrder(operand, operandExtents, operandStrides, denseStrides(operandExtents, {0, 3, 4, 5, 1, 2}), m_operandCopy);
        const ConvAxes filterExtents = convFilterExtents(s);
        const AxisOrder filterOrder = m_forward ? AxisOrder{0, 1, 3, 4, 5, 2} : AxisOrder{0, 2, 3, 4, 5, 1};
        m_w = inOrder(w, filterExtents, convFilterStrides(s, layout), denseStrides(filterExtents, filterOrder), m_wCopy);
    }
    long long items() const { return m_s.N * writtenPixels(); }
    long long outputsPerItem() const { return m_s.G * m_channels; }

    void compute(long long item, std::vector<TapHit>& hits, double* value, double* scale, long long* index) const {
        const long long G = m_s.G, P = m_channels, R = m_reduced, taps = m_s.taps();
        const long long n = item / writtenPixels(), pixel = item % writtenPixels();
        const ConvDim &dh = m_s.spatial[1], &dw = m_s.spatial[2];
        const auto pos = m_forward ? pixelCoords(pixel, dh.output, dw.output) : pixelCoords(pixel, dh.input, dw.input);
        tapHits(m_s, pos, m_forward, hits);
        const long long first = indexOf(m_writtenStrides, {n, 0, 0, pos[0], pos[1], pos[2]});
        for (long long g = 0; g < G; ++g) {
            for (long long p = 0; p < P; ++p) {
                double sum = 0, magnitude = 0;
                for (const TapHit& hit : hits) {
                    const double* operandRow = m_operand + ((n * m_readPixels + hit.pixel) * G + g) * R;
                    const double* wRow = m_w + ((g * P + p) * taps + hit.tap) * R;
                    for (long long r = 0; r < R; ++r) {
                        const double term = operandRow[r] * wRow[r];
                        sum += term;
                        magnitude += std::fabs(term);
                    }
                }
                const long long j = g * P + p;
                value[j] = sum;
                scale[j] = magnitude;
                index[j] = first + g * m_writtenStrides[1] + p * m_writtenStrides[2];
            }
        }
    }

private:
    long long writtenPixels() const { return m_forward ? m_s.outputPixels() : m_s.inputPixels(); }

    const ConvShape& m_s;
    bool m_forward;
    ConvAxes m_writtenStrides;
    long long m_channels, m_reduced, m_readPixels;
    std::vector<double> m_operandCopy, m_wCopy;
    const double* m_operand;
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
        forEachLandingRow(m_s, filterPos[0], filterPos[1], [&](long long n, long long od, long long id, long long oh, long long ih) {
            const double* dyRow = dyRun + (n * dd.output + od) * dh.output * dw.output + oh * dw.output;
            const double* xRow = m_x + ((n * dd.input + id) * dh.input + ih) * dw.input * G * C + g * C;
            addRow(dyRow, xRow, filterPos[2], value, scale);
        });
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

// fwd and bwd_data at one output (n, g, i, pixel), i being k or c: the sum over the taps that land
// and the `length` reduced channels r of data[n][g][r][tap's pixel] * w[g][..][..][tap], where
// w's channel axis `weightFixedAxis` (1: k, 2: c) holds i and the other one r.
ConvTerms gatherAt(const ConvShape& s, const ConvAxes& at, bool fromOutput, const double* data, const ConvAxes& ds,
                   long long length, const double* w, const ConvAxes& ws, int weightFixedAxis) {
    const long long n = at[0], g = at[1], i = at[2];
    const long long fixedStride = ws[weightFixedAxis], reducedStride = ws[3 - weightFixedAxis];
    std::vector<TapHit> hits;
    tapHits(s, {at[3], at[4], at[5]}, fromOutput, hits);
    ConvTerms t;
    for (const TapHit& hit : hits) {
        for (long long r = 0; r < length; ++r) {
            const double dv = data[n * ds[0] + g * ds[1] + r * ds[2] + hit.pixel * ds[5]];
            const double term = dv * w[g * ws[0] + i * fixedStride + r * reducedStride + hit.tap * ws[5]];
            t.value += term;
            t.scale += std::fabs(term);
        }
    }
    return t;
}

ConvTerms forwardAt(const ConvShape& s, ConvLayout layout, const double* x, const double* w, long long index) {
    const ConvAxes y = coordsOf(index, convOutputExtents(s), convOutputStrides(s, layout));
    return gatherAt(s, y, true, x, convInputStrides(s, layout), s.C, w, convFilterStrides(s, layout), 1);
}

ConvTerms backwardDataAt(const ConvShape& s, ConvLayout layout, const double* dy, const double* w, long long index) {
    const ConvAxes dx = coordsOf(index, convInputExtents(s), convInputStrides(s, layout));
    return gatherAt(s, dx, false, dy, convOutputStrides(s, layout), s.K, w, convFilterStrides(s, layout), 2);
}

ConvTerms backwardWeightAt(const ConvShape& s, ConvLayout layout, const double* dy, const double* x, long long index) {
    const ConvAxes dw = coordsOf(index, convFilterExtents(s), convFilterStrides(s, layout));
    const ConvAxes ys = convOutputStrides(s, layout), xs = convInputStrides(s, layout);
    const long long g = dw[0], k = dw[1], c = dw[2];
    const ConvDim& width = s.spatial[2];
    const double* dyChannel = dy + g * ys[1] + k * ys[2];
    const double* xChannel = x + g * xs[1] + c * xs[2];
    ConvTerms t;
    forEachLandingRow(s, dw[3], dw[4], [&](long long n, long long od, long long id, long long oh, long long ih) {
        for (long long ow = 0; ow < width.output; ++ow) {
            const long long iw = inputCoord(width, ow, dw[5]);
            if (iw < 0) continue;
            const double dyv = dyChannel[n * ys[0] + od * ys[3] + oh * ys[4] + ow * ys[5]];
            const double term = dyv * xChannel[n * xs[0] + id * xs[3] + ih * xs[4] + iw * xs[5]];
            t.value += term;
            t.scale += std::fabs(term);
        }
    });
    return t;
}

// bwd_weight at many outputs, the outputs that share a group and a tap together (see
// convReferenceAtMany). Each output's terms are added in backwardWeightAt's order.
std::vector<ConvTerms> backwardWeightAtMany(const ConvShape& s, ConvLayout layout, const double* dy, const double* x,
                                            const std::vector<long long>& indices) {
    struct Pick {
        long long k, c;
        std::size_t slot;
    };
    struct Group {
        long long g, z, y, tapX;
        std::vector<Pick> picks;
    };
    // Groups of at most `chunk` outputs, so that even one tap (a 1x1 filter) spreads over threads.
    const long long cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t chunk = static_cast<std::size_t>(std::max<long long>(16, (static_cast<long long>(indices.size()) + 2 * cores - 1) / (2 * cores)));
    std::map<std::array<long long, 4>, std::vector<Pick>> byTap;
    const ConvAxes extents = convFilterExtents(s), strides = convFilterStrides(s, layout);
    for (std::size_t i = 0; i < indices.size(); ++i) {
        const ConvAxes dw = coordsOf(indices[i], extents, strides);
        byTap[{dw[0], dw[3], dw[4], dw[5]}].push_back({dw[1], dw[2], i});
    }
    std::vector<Group> groups;
    for (const auto& [key, picks] : byTap)
        for (std::size_t first = 0; first < picks.size(); first += chunk)
            groups.push_back({key[0], key[1], key[2], key[3],
                              std::vector<Pick>(picks.begin() + static_cast<std::ptrdiff_t>(first),
                                                picks.begin() + static_cast<std::ptrdiff_t>(std::min(picks.size(), first + chunk)))});
    std::vector<ConvTerms> terms(indices.size());
    const ConvAxes ys = convOutputStrides(s, layout), xs = convInputStrides(s, layout);
    const ConvDim& width = s.spatial[2];
    const double work = static_cast<double>(indices.size()) * static_cast<double>(convReductionLength(s, ConvDirection::BackwardWeight));
    parallelRanges(static_cast<long long>(groups.size()), work, [&](long long begin, long long end) {
        for (long long gi = begin; gi < end; ++gi) {
            const Group& group = groups[static_cast<std::size_t>(gi)];
            std::vector<ConvTerms> sums(group.picks.size());
            const double* dyGroup = dy + group.g * ys[1];
            const double* xGroup = x + group.g * xs[1];
            forEachLandingRow(s, group.z, group.y, [&](long long n, long long od, long long id, long long oh, long long ih) {
                for (long long ow = 0; ow < width.output; ++ow) {
                    const long long iw = inputCoord(width, ow, group.tapX);
                    if (iw < 0) continue;
                    const double* dyPixel = dyGroup + n * ys[0] + od * ys[3] + oh * ys[4] + ow * ys[5];
                    const double* xPixel = xGroup + n * xs[0] + id * xs[3] + ih * xs[4] + iw * xs[5];
                    for (std::size_t p = 0; p < group.picks.size(); ++p) {
                        const double term = dyPixel[group.picks[p].k * ys[2]] * xPixel[group.picks[p].c * xs[2]];
                        sums[p].value += term;
                        sums[p].scale += std::fabs(term);
                    }
                }
            });
            for (std::size_t p = 0; p < group.picks.size(); ++p) terms[group.picks[p].slot] = sums[p];
        }
    });
    return terms;
}

}  // namespace

void conv_detail::forEachOutput(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                                const SlabConsumer& consume) {
    const long long length = convReductionLength(s, direction);
    switch (direction) {
    case ConvDirection::Forward:
    case ConvDirection::BackwardData: forEachSlab(GatherWork(s, layout, direction, A, B), length, consume); break;
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

std::vector<ConvTerms> convReferenceAtMany(const ConvShape& s, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                                           const std::vector<long long>& outputIndices) {
    if (direction == ConvDirection::BackwardWeight) return backwardWeightAtMany(s, layout, A, B, outputIndices);
    std::vector<ConvTerms> terms(outputIndices.size());
    const auto count = static_cast<long long>(outputIndices.size());
    parallelRanges(count, static_cast<double>(count) * static_cast<double>(convReductionLength(s, direction)), [&](long long begin, long long end) {
        for (long long i = begin; i < end; ++i)
            terms[static_cast<std::size_t>(i)] = convReferenceAt(s, layout, direction, A, B, outputIndices[static_cast<std::size_t>(i)]);
    });
    return terms;
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
