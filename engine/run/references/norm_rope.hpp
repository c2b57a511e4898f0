// RMSNorm + rotary embedding (the norm_rope template), per head vector v of length d:
//     n[i] = v[i] / sqrt(mean(v^2) + eps) * weight[i]
//     y[i]       = n[i] * cos_sin[pos][i] - n[i + d/2] * cos_sin[pos][d/2 + i]
//     y[i + d/2] = n[i + d/2] * cos_sin[pos][i] + n[i] * cos_sin[pos][d/2 + i]      (i < d/2)
// with pos = positions[token].
#pragma once

#include "run/reference_registry.hpp"

namespace kx::engine {

// One head vector: out[i] and scale[i], the magnitude of the terms that make it.
void normRopeReference(const double* v, int headDim, const double* weight, const double* cosSinRow, double eps, double* out,
                       double* scale);

}  // namespace kx::engine
