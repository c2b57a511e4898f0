// Gated linear units (the glu template): out[r, c] = act(gate) * up with gate = x[r, c] and
// up = x[r, cols + c] (x is rows x 2 cols), act = silu (swiglu) or the erf GELU (geglu).
#pragma once

#include "run/reference_registry.hpp"

#include <string>

namespace kx::engine {

// The output for one gate and up value, in float64.
double gluReference(const std::string& op, double gate, double up);

}  // namespace kx::engine
