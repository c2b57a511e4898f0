// The map template's reference: the element-wise operations in float64.
#pragma once

#include <string>

namespace kx::engine {

// op(x, y, z) in float64 for the map template's operations (add, saxpy, scale, relu, gelu,
// sigmoid, exp, fma), alpha being saxpy's and scale's factor. Throws InputError on another op.
double mapReference(const std::string& op, double x, double y, double z, double alpha);

// The magnitude the kernel's fp32 rounding errors are relative to: the sum of the terms'
// magnitudes for sums (|alpha x| + |y|), |x| for GELU (whose 1 + tanh cancels for negative x),
// and the result's own magnitude for the rest.
double mapScale(const std::string& op, double x, double y, double z, double alpha, double result);

}  // namespace kx::engine
