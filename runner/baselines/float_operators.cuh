// The fp32 operators the CUB baselines hand to their reductions: fp32 accumulation whatever the
// input type, as the kernels they are compared with accumulate.
#pragma once

#include <cuda_runtime.h>

namespace kx::runner {

struct SumF {
    __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
struct MinF {
    __host__ __device__ float operator()(float a, float b) const { return fminf(a, b); }
};
struct MaxF {
    __host__ __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

}  // namespace kx::runner
