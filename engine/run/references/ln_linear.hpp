// LayerNorm + Linear (the ln_linear template): Y = LayerNorm(X) W^T, W stored N x K.
//     n[k] = (x[k] - mean) / sqrt(var + eps) * gamma[k] + beta[k]     (var: the mean square deviation)
//     y[j] = sum_k n[k] W[j][k]
#pragma once

#include "run/reference_registry.hpp"

#include <vector>

namespace kx::engine {

// One row of X normalised in float64: n (K values).
std::vector<double> layerNormRow(const double* x, long long K, const double* gamma, const double* beta, double eps);

}  // namespace kx::engine
