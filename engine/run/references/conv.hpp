// Grouped convolution (the conv template) in float64, in its three directions:
//
//     fwd:        y[n,o,g,k]  = sum_{tap,c} x[n, i(o,tap), g, c] * w[g,k,tap,c]
//     bwd_data:   dx[n,i,g,c] = sum_{k, tap, o : i(o,tap) = i} dy[n,o,g,k] * w[g,k,tap,c]
//     bwd_weight: dw[g,k,tap,c] = sum_{n,o} dy[n,o,g,k] * x[n, i(o,tap), g, c]
//
// where along each spatial dimension i(o,tap) = o*stride - pad + tap*dilation, and positions
// outside the input contribute nothing. bwd_data and bwd_weight are the adjoints of fwd with
// respect to x and w. The kernel's arguments per direction (A and B in, D out):
//
//     fwd: A = x, B = w, D = y;   bwd_data: A = dy, B = w, D = dx;   bwd_weight: A = dy, B = x, D = dw.
//
// Tensors are addressed through six logical axes whatever the layout: activations (x, dx, y, dy)
// by (n, g, channel, d, h, w), with channel c of C for x and dx and k of K for y and dy; filters
// (w, dw) by (g, k, c, z, y, x). A layout is a row-major order of those axes:
//
//     nhwgc: x[n][d][h][w][g][c], w[g][k][z][y][x][c], y[n][d][h][w][g][k]  (channels last)
//     nchw:  x[n][g][c][d][h][w], w[g][k][c][z][y][x], y[n][g][k][d][h][w]  (PyTorch's default)
#pragma once

#include "run/reference_registry.hpp"

#include <array>
#include <string>
#include <vector>

namespace kx::engine {

enum class ConvDirection { Forward, BackwardData, BackwardWeight };
enum class ConvLayout { Nhwgc, Nchw };

// The choice names "fwd", "bwd_data", "bwd_weight" and "nhwgc", "nchw"; InputError on another.
ConvDirection convDirectionNamed(const std::string& name);
ConvLayout convLayoutNamed(const std::string& name);
const char* convDirectionName(ConvDirection direction);

// One spatial dimension: the input's extent, the filter's, and the output's (computed).
struct ConvDim {
    long long input = 1, filter = 1, stride = 1, pad = 0, dilation = 1;
    long long output = 1;  // floor((input + 2*pad - dilation*(filter-1) - 1) / stride) + 1
};

struct ConvShape {
    long long N = 1, G = 1, C = 1, K = 1;
    std::array<ConvDim, 3> spatial;  // depth (Di, Z, *_d), height (Hi, Y, *_h), width (Wi, X, *_w)

    long long taps() const { return spatial[0].filter * spatial[1].filter * spatial[2].filter; }
    long long inputPixels() const { return spatial[0].input * spatial[1].input * spatial[2].input; }
    long long outputPixels() const { return spatial[0].output * spatial[1].output * spatial[2].output; }
    long long inputElements() const { return N * G * C * inputPixels(); }    // x, dx
    long long outputElements() const { return N * G * K * outputPixels(); }  // y, dy
    long long filterElements() const { return G * K * C * taps(); }          // w, dw
};

// The shape from the sizes N G C K Di Hi Wi Z Y X stride_d stride_h stride_w pad_d pad_h pad_w
// dil_d dil_h dil_w, with the output extents computed. InputError naming the problem when a size
// is missing, a count or extent is below 1, a stride or dilation is below 1, a padding is
// negative, or an output extent would be below 1 (the dilated filter is larger than the padded
// input).
ConvShape convShapeFromSizes(const SizeMap& sizes);
// The same checks on a shape whose spatial inputs are filled in; sets each output extent.
void convComputeOutputs(ConvShape& shape);

// Extents and element strides of the six logical axes (see the top of this file).
using ConvAxes = std::array<long long, 6>;
ConvAxes convInputExtents(const ConvShape& shape);   // x, dx: (N, G, C, Di, Hi, Wi)
ConvAxes convOutputExtents(const ConvShape& shape);  // y, dy: (N, G, K, Do, Ho, Wo)
ConvAxes convFilterExtents(const ConvShape& shape);  // w, dw: (G, K, C, Z, Y, X)
ConvAxes convInputStrides(const ConvShape& shape, ConvLayout layout);
ConvAxes convOutputStrides(const ConvShape& shape, ConvLayout layout);
ConvAxes convFilterStrides(const ConvShape& shape, ConvLayout layout);

// Element indices in a layout. Coordinates must be in range.
long long convInputIndex(const ConvShape& shape, ConvLayout layout, long long n, long long g, long long c, long long d, long long h,
                         long long w);
long long convOutputIndex(const ConvShape& shape, ConvLayout layout, long long n, long long g, long long k, long long d, long long h,
                          long long w);
long long convFilterIndex(const ConvShape& shape, ConvLayout layout, long long g, long long k, long long c, long long z, long long y,
                          long long x);

// The number of terms in each output of a direction: C*Z*Y*X (fwd), K*Z*Y*X (bwd_data),
// N*Do*Ho*Wo (bwd_weight). Outputs whose taps fall in the padding have fewer.
long long convReductionLength(const ConvShape& shape, ConvDirection direction);
// Elements of a direction's A, B and D.
long long convElementsOfA(const ConvShape& shape, ConvDirection direction);
long long convElementsOfB(const ConvShape& shape, ConvDirection direction);
long long convElementsOfD(const ConvShape& shape, ConvDirection direction);

// One output's value and scale (the sum of |term| over its terms, what tolerance() is relative to).
struct ConvTerms {
    double value = 0;
    double scale = 0;
};

// Output D[outputIndex] (an index in D's layout) of the direction, from A and B in the layout.
// Costs one output's reduction; for sampled checks and tests.
ConvTerms convReferenceAt(const ConvShape& shape, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                          long long outputIndex);

// Outputs D[outputIndices[i]] as convReferenceAt gives them (the same terms in the same order, so
// the same bits), on as many threads as the work justifies: for sampled checks. bwd_weight's
// outputs are grouped by group and tap, and each group walks the pixels once, reading a pixel's dy
// and x channels once for all of its outputs, not once per output: a large layer's tensors are
// read tens of times instead of thousands.
std::vector<ConvTerms> convReferenceAtMany(const ConvShape& shape, ConvLayout layout, ConvDirection direction, const double* A,
                                           const double* B, const std::vector<long long>& outputIndices);

// Every output of the direction into value and scale (convElementsOfD each, in D's layout), on as
// many threads as the machine offers when the work is large. Each output is summed by one thread
// in a fixed order, so results do not depend on the thread count.
void convReference(const ConvShape& shape, ConvLayout layout, ConvDirection direction, const double* A, const double* B,
                   double* value, double* scale);

// For each output of the direction (in D's layout), an upper bound of its scale that costs far
// less than the reference: the product of the norms of its two operand vectors (Cauchy-Schwarz),
// each possibly widened to a superset of its terms (see conv_check.cpp). For comparing every output
// of a large problem with a baseline's.
std::vector<double> convScaleBounds(const ConvShape& shape, ConvLayout layout, ConvDirection direction, const double* A,
                                    const double* B);

// "dx[n=0,g=1,c=2,d=0,h=3,w=4]": D[outputIndex]'s tensor and coordinates, for messages.
std::string convOutputName(const ConvShape& shape, ConvLayout layout, ConvDirection direction, long long outputIndex);

}  // namespace kx::engine
