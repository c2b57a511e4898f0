// cuBLAS GEMM for the GEMM baseline and for calibration.
#pragma once

#include "device_context.hpp"

#include <cublas_v2.h>

#include <optional>
#include <string>

namespace kx::runner {

struct Cublas {
    cublasHandle_t handle = nullptr;
    Cublas();   // throws RunnerError
    ~Cublas();
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
};

struct GemmShape {
    std::string dtype;  // f32, tf32, f16, bf16
    bool bColMajor = true;
    int M = 0, N = 0, K = 0;
};

// C (row-major M x N) = A (row-major M x K) * B, with fp32 accumulation. Throws RunnerError.
void cublasGemm(const Cublas& blas, const GemmShape& shape, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C);

// 4 for f32/tf32, 2 for f16/bf16.
std::size_t gemmElemBytes(const std::string& dtype);

}  // namespace kx::runner
