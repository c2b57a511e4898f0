// CPU references the runner checks kernels against, and the number formats they need.
//
// Every reference computes in float64 from inputs that are already representable in the kernel's
// data type (the runner rounds its random inputs with roundToDtype before uploading them and
// before calling a reference), so the only differences left to explain are the kernel's own
// rounding: fp32 accumulation and the final rounding to the output type. tolerance() bounds those.
//
// Half and bfloat16 conversions are written out bit by bit (no CUDA headers, no host FP16 types),
// round to nearest even like the GPU's __float2half_rn / __float2bfloat16_rn, and give the same
// bits on every host.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kx::engine {

// [SECTION] GEMM

// C = A * B in float64. A is M x K row-major; B is K x N row-major, or, when bColMajor, N x K
// row-major (that is, K x N column-major, the "rcr" layout); C is M x N row-major and is
// overwritten. K = 0 gives zeros. Blocked for cache and split over the machine's cores when the
// product is large (1024^3 takes well under a second on a few cores); each element of C is
// computed by one thread in a fixed order, so results do not depend on the thread count.
void gemmReference(int M, int N, int K, bool bColMajor, const double* A, const double* B, double* C);

// One element C[row][col] of the same product, for sampled checks of large problems. Requires
// 0 <= row < M and 0 <= col < N.
double gemmReferenceAt(int M, int N, int K, bool bColMajor, const double* A, const double* B, int row, int col);

// [SECTION] Reduction

// The sum (compensated, so the result is the exact sum rounded once for any practical n) or the
// maximum of data[0..n). The maximum skips NaNs, like CUDA's fmaxf; n = 0 gives 0 for the sum and
// -infinity for the maximum. A sum with an infinity or NaN in it follows IEEE rules (inf, or NaN).
double reduceReference(bool isMax, const double* data, std::size_t n);

// [SECTION] Number formats

// x rounded to the nearest value of dtype ("f64", "f32", "f16", "bf16"), ties to even, with
// overflow to +-infinity and gradual underflow. NaN stays NaN. The fp8 formats ("e4m3", "e5m2",
// "e4m3fnuz", "e5m2fnuz") round the same way but saturate (run/fp8.hpp). Throws InputError on
// another dtype.
double roundToDtype(double x, std::string_view dtype);

// IEEE binary16 bits of x rounded to nearest even (rounded once, straight from the double, never
// through float). Overflow gives +-infinity (0x7c00), values below half the smallest subnormal
// give +-0, NaN gives a quiet NaN of the same sign (0x7e00 | sign).
std::uint16_t toHalfBits(double x);
// bfloat16 bits (the upper half of an fp32) of x rounded to nearest even; same rules as above
// (infinity 0x7f80, quiet NaN 0x7fc0 | sign).
std::uint16_t toBf16Bits(double x);
// Exact values of the given bits (every half and bfloat16 value is a double).
double fromHalfBits(std::uint16_t bits);
double fromBf16Bits(std::uint16_t bits);
// Every 16-bit pattern's value (half or bfloat16), decoded once: rounding and reading back
// hundreds of millions of elements are then table lookups.
const std::array<double, 65536>& sixteenBitValues(bool half);

// [SECTION] Tolerance

// The relative error a correct kernel may show in a result made of reductionLength terms
// (K for GEMM, n for a reduction) accumulated in fp32 and rounded once to dtype:
//
//     tolerance = u(dtype) + kLambda * sqrt(reductionLength) * u(f32),     kLambda = 8
//
// where u is the unit roundoff (f64 2^-53, f32 2^-24, bf16 2^-8, f16 2^-11). The first term is
// the final rounding to dtype; the second is fp32 accumulation: the worst case grows like
// n * u, but rounding errors are independent and of either sign, so their sum grows like
// sqrt(n) * u (Higham and Mary, "A new approach to probabilistic rounding error analysis", 2019),
// and kLambda = 8 makes a false failure about as likely as e^-32 per element.
//
// It is relative to the magnitude of the terms, not to the result, because a sum of terms of
// mixed sign can cancel to almost nothing while its rounding error does not. The check is
//
//     |got - ref| <= tolerance(dtype, len) * scale
//
// with scale = the same reference computed on absolute values (sum of |a_ik * b_kj| for GEMM,
// sum of |x_i| for a sum). A maximum is exact in every dtype (fp32 holds each input exactly), so
// any tolerance passes a correct one. Increases with reductionLength (lengths below 1 count as 1);
// throws InputError on an unknown dtype.
double tolerance(std::string_view dtype, int reductionLength);

}  // namespace kx::engine
