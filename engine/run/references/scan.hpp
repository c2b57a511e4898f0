// Prefix scan (templates/scan): the reference scan and the check of a kernel's output against it.
#pragma once

#include "run/reference_registry.hpp"

#include <string>
#include <vector>

namespace kx::engine {

enum class ScanOp { Sum, Max, Min };

// "sum", "max" or "min"; throws InputError on anything else.
ScanOp scanOpNamed(const std::string& name);

// How the scanned values are represented: floats are scanned in float64; integers exactly, in
// two's complement of intBits bits (32 or 64), sums wrapping around like the kernel's.
struct ScanArithmetic {
    bool isInteger = false;
    int intBits = 64;
};

// The scan of in:
//   inclusive: out[i] = in[0] op ... op in[i]
//   exclusive: out[i] = identity op in[0] op ... op in[i-1], out[0] = identity
// The identity is 0 for a sum, -infinity (floats) or the lowest intBits-bit integer for a max,
// +infinity or the highest integer for a min. Float sums are compensated (Neumaier), so each is
// the exact prefix sum rounded once for any practical n; float max and min skip NaNs like CUDA's
// fmaxf and fminf. Integer inputs must be integers representable in intBits bits; the results
// are exact (every result of the default fills is below 2^53, so the doubles hold it exactly).
std::vector<double> scanReference(const std::vector<double>& in, ScanOp op, bool exclusive, ScanArithmetic arithmetic);


}  // namespace kx::engine
