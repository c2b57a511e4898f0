// Row ops (the rownorm template): softmax, LayerNorm and RMSNorm of each row, in float64, and
// the fused residual add and dropout.
//
//   softmax:   y = exp(x - max) / sum exp(x - max)            (then dropout: 0 where dropped,
//                                                               y / (1 - p) where kept)
//   layernorm: y = (x - mean) / sqrt(var + eps) * gamma + beta  (var: the mean squared deviation)
//   rmsnorm:   y = x / sqrt(mean(x^2) + eps) * gamma
// With the residual fused, x is replaced by h = x + residual as the kernel stored it.
#pragma once

#include "run/reference_registry.hpp"

#include <string>
#include <vector>

namespace kx::engine {

// One row: out[c] and the magnitude its rounding error is relative to, scale[c] (|exp| terms
// for softmax; |x| + |mean| through the normalisation for the norms). gamma and beta may be
// null when the op does not use them.
void rownormReferenceRow(const std::string& op, const double* x, long long cols, const double* gamma, const double* beta,
                         double eps, double* out, double* scale);

}  // namespace kx::engine
