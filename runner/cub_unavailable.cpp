// The CUB baseline's stand-in for builds without nvcc: the runner says it has no CUB.
#include "cub_reduce.hpp"

namespace kx::runner {

bool haveCubReduce() { return false; }

std::size_t cubReduceTempBytes(const std::string&, const std::string&, std::size_t, std::string* error) {
    if (error) *error = "this kx-runner was built without nvcc, so without CUB";
    return 0;
}

std::string cubReduce(const std::string&, const std::string&, std::uint64_t, std::uint64_t, std::size_t, std::uint64_t, std::size_t) {
    return "this kx-runner was built without nvcc, so without CUB";
}

}  // namespace kx::runner
