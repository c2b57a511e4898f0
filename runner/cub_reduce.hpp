// CUB's DeviceReduce, the library reduction the reduce template is measured against. Compiled by
// nvcc when the build has one (KX_HAVE_CUB); the functions below are plain C++ so the rest of the
// runner stays host code. CUB runs through the CUDA runtime, which uses the primary context the
// runner made current, so device pointers of the driver API are valid here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kx::runner {

// False when the runner was built without nvcc: the "cub_reduce" baseline is then unavailable.
bool haveCubReduce();

// Temporary storage CUB needs for n items of dtype ("f32", "f16", "bf16") and op ("sum", "max").
// Returns an error in *error (and 0) on an unknown dtype/op or a CUDA error.
std::size_t cubReduceTempBytes(const std::string& dtype, const std::string& op, std::size_t n, std::string* error);

// Reduces n items at `in` into one float at `out` on the default stream, accumulating in fp32.
// Returns "" on success, else CUDA's error in words.
std::string cubReduce(const std::string& dtype, const std::string& op, std::uint64_t in, std::uint64_t out, std::size_t n,
                      std::uint64_t temp, std::size_t tempBytes);

}  // namespace kx::runner
