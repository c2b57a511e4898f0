// 8-bit floating-point formats: the two of the OCP 8-bit floating point specification that NVIDIA
// GPUs use (sm_89 and later), and the two "FNUZ" variants of AMD's CDNA3 (gfx942).
//
//   e4m3      OCP E4M3 ("fn"): bias 7, no infinity, NaN = S.1111.111, largest finite 448
//   e5m2      OCP E5M2: IEEE-like, bias 15, infinities and NaNs at exponent 31, largest finite 57344
//   e4m3fnuz  AMD fp8: bias 8, no infinity, no -0, the single NaN is 0x80, largest finite 240
//   e5m2fnuz  AMD bf8: bias 16, no infinity, no -0, the single NaN is 0x80, largest finite 57344
//
// Conversion from double rounds to nearest, ties to even, and saturates to the largest finite
// value (the OCP "satfinite" conversion, the one kernels use when they write fp8 and the one the
// input generators need: an out-of-range input becomes the largest value, never a NaN). NaN
// converts to the format's NaN. Every fp8 value is a double, so decoding is exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kx::engine {

enum class Fp8Format { E4M3, E5M2, E4M3Fnuz, E5M2Fnuz };

// The format a dtype name ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz") stands for; nullopt otherwise.
std::optional<Fp8Format> fp8FormatNamed(std::string_view dtype);

// The exact value of an 8-bit pattern (NaN for the format's NaN patterns, +-infinity for e5m2's).
double fromFp8Bits(std::uint8_t bits, Fp8Format format);

// x rounded to the format as described above.
std::uint8_t toFp8Bits(double x, Fp8Format format);

}  // namespace kx::engine
