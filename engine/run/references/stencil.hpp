// 3-D stencil: the order-2 (7-point) or order-8 (25-point) finite-difference Laplacian of the
// stencil template, in float64, with the kernel's fp32 coefficients.
//
// Point (x, y, z) of an nx x ny x nz grid is element (z * ny + y) * nx + x. A point at least
// radius = order / 2 from every face is interior:
//     out = C0 * in[x,y,z] + sum_k Ck * (in[x-k,y,z] + in[x+k,y,z] + in[x,y-k,z] + in[x,y+k,z]
//                                       + in[x,y,z-k] + in[x,y,z+k]),   k = 1..radius;
// every other point copies its input.
#pragma once

#include "run/reference_registry.hpp"

#include <vector>

namespace kx::engine {

// Ck of the given order (2 or 8) as the kernel's fp32 constant, exactly: order 2: C0 = -6,
// C1 = 1; order 8: C0 = -205/24, C1 = 8/5, C2 = -1/5, C3 = 8/315, C4 = -1/560, each rounded to
// fp32. Throws InputError for another order; 0 <= k <= order / 2.
double stencilCoefficient(int order, int k);

// Whether (x, y, z) is at least radius points from every face of the grid.
bool stencilInterior(int radius, long long nx, long long ny, long long nz, long long x, long long y, long long z);

// Grid rows [rowBegin, rowEnd), a row being the nx points of one (z, y), numbered z * ny + y:
// out[i] and scale[i] for point rowBegin * nx + i. out is the stencil (or the copied input at a
// non-interior point); scale is the sum of |term| over the terms that make out (|in| for a copy),
// the magnitude the rounding error is relative to. Computed on as many threads as the machine
// offers when the range is large; results do not depend on the thread count.
void stencilReferenceRows(int order, long long nx, long long ny, long long nz, const double* in, long long rowBegin,
                          long long rowEnd, double* out, double* scale);

// The whole grid's output (nx * ny * nz values).
std::vector<double> stencilReference(int order, long long nx, long long ny, long long nz, const std::vector<double>& in);


}  // namespace kx::engine
