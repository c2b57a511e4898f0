// The GEMM reference's epilogue: C = act(alpha * A*B + beta * D0), the form gemm_mma declares
// (CK's multi-D epilogue with one D). Templates without those parameters get the identity:
// alpha = 1, no D0, no activation.
#pragma once

#include <string>
#include <vector>

namespace kx::engine {

struct CheckContext;

struct GemmEpilogue {
    std::string activation = "none";  // none relu gelu_tanh gelu_erf sigmoid tanh silu
    std::string d0 = "none";          // none, bias (one value per column), residual (M x N)
    double alpha = 1, beta = 1;
    // The largest |act'(x)|: an error in the sum moves the output by at most this much times it.
    double lipschitz = 1;
    const std::vector<double>* d0Values = nullptr;  // D0's values when d0 != none

    // The D0 term of output (row, col) of an N-column C (0 without a D0).
    double d0At(long long row, long long col, long long N) const;
    // act(x) in float64. Throws InputError on an unknown activation.
    double activate(double x) const;
    // The output for a product p and its D0 term d.
    double apply(double p, double d) const { return activate(alpha * p + beta * d); }
    // The magnitude the kernel's error is relative to, for a product whose terms' magnitudes
    // sum to productScale: the fp32 sum's error, carried through alpha and the activation, plus
    // (with an activation) the output's own rounding. Without an epilogue it is productScale.
    double scale(double productScale, double d, double output) const;
};

// The epilogue the context's config declares: the choices "epilogue" and "d0" and the variables
// "alpha_value", "beta_value" and "lipschitz" when present, D0 from the input "D0".
GemmEpilogue gemmEpilogueOf(const CheckContext& ctx);

// Whether cuBLASLt (the cublaslt_gemm baseline, runner/baselines/cublaslt_gemm.cpp) computes the
// same function, so that its output can be compared with the kernel's: it fuses a residual with
// any beta, a bias only unscaled (beta = 1, or 0), and of the activations relu and gelu_tanh;
// e5m2 operands it times as e4m3 (it has no e5m2 x e5m2 GEMM).
bool cublasLtComputesEpilogue(const GemmEpilogue& e, const std::string& operandDtype);

}  // namespace kx::engine
