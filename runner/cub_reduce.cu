#include "cub_reduce.hpp"

#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>

namespace kx::runner {

namespace {

// fp32 accumulation whatever the input type, as the template does: the inputs convert to float
// as they enter the operator.
struct SumF {
    __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
struct MaxF {
    __host__ __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

template <class T, class Op>
cudaError_t reduce(void* temp, std::size_t& tempBytes, std::uint64_t in, std::uint64_t out, std::size_t n, Op op, float init) {
    return cub::DeviceReduce::Reduce(temp, tempBytes, reinterpret_cast<const T*>(in), reinterpret_cast<float*>(out),
                                     static_cast<long long>(n), op, init);
}

// Runs `call` with the input type and operator named by dtype and op.
template <class Call>
cudaError_t dispatch(const std::string& dtype, const std::string& op, Call call) {
    const bool max = op == "max";
    if (op != "sum" && !max) return cudaErrorInvalidValue;
    const float init = max ? -INFINITY : 0.0f;
    if (dtype == "f32") return max ? call(static_cast<const float*>(nullptr), MaxF{}, init) : call(static_cast<const float*>(nullptr), SumF{}, init);
    if (dtype == "f16") return max ? call(static_cast<const __half*>(nullptr), MaxF{}, init) : call(static_cast<const __half*>(nullptr), SumF{}, init);
    if (dtype == "bf16")
        return max ? call(static_cast<const __nv_bfloat16*>(nullptr), MaxF{}, init) : call(static_cast<const __nv_bfloat16*>(nullptr), SumF{}, init);
    return cudaErrorInvalidValue;
}

}  // namespace

bool haveCubReduce() { return true; }

std::size_t cubReduceTempBytes(const std::string& dtype, const std::string& op, std::size_t n, std::string* error) {
    std::size_t bytes = 0;
    const cudaError_t status = dispatch(dtype, op, [&](auto typed, auto fn, float init) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(typed)>>;
        return reduce<T>(nullptr, bytes, 0, 0, n, fn, init);
    });
    if (status != cudaSuccess) {
        if (error) *error = std::string("CUB DeviceReduce (") + dtype + " " + op + "): " + cudaGetErrorString(status);
        return 0;
    }
    return bytes;
}

std::string cubReduce(const std::string& dtype, const std::string& op, std::uint64_t in, std::uint64_t out, std::size_t n,
                      std::uint64_t temp, std::size_t tempBytes) {
    cudaError_t status = dispatch(dtype, op, [&](auto typed, auto fn, float init) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(typed)>>;
        return reduce<T>(reinterpret_cast<void*>(temp), tempBytes, in, out, n, fn, init);
    });
    if (status == cudaSuccess) status = cudaGetLastError();
    return status == cudaSuccess ? std::string() : std::string("CUB DeviceReduce failed: ") + cudaGetErrorString(status);
}

}  // namespace kx::runner
