// "cublas_gemm": cuBLAS's GEMM on the kernel's own A and B (args="A,B"), same shape, dtype and
// layout, fp32 accumulation; its C goes to the output buffer when the manifest asks (output="C"),
// so the reference can compare every output with it. Params: dtype (f32, tf32, f16, bf16),
// b_col_major (0/1), M, N, K.
#include "baselines/cublas_gemm.hpp"

#include "baselines/baseline_factories.hpp"

namespace kx::runner {

Cublas::Cublas() {
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw RunnerError("cuBLAS could not start", false);
}

Cublas::~Cublas() {
    if (handle) cublasDestroy(handle);
}

std::size_t gemmElemBytes(const std::string& dtype) { return dtype == "f16" || dtype == "bf16" ? 2 : 4; }

// cuBLAS is column-major, so it computes C^T = B^T A^T: a row-major matrix is its transpose in
// column-major order.
void cublasGemm(const Cublas& blas, const GemmShape& s, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C) {
    cudaDataType type = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    if (s.dtype == "f16") type = CUDA_R_16F;
    else if (s.dtype == "bf16") type = CUDA_R_16BF;
    else if (s.dtype == "tf32") compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    else if (s.dtype != "f32") throw RunnerError("cuBLAS baseline: unknown dtype '" + s.dtype + "'", false);
    const float alpha = 1.0f, beta = 0.0f;
    const cublasStatus_t status = cublasGemmEx(
        blas.handle, s.bColMajor ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &alpha,
        reinterpret_cast<const void*>(B), type, s.bColMajor ? s.K : s.N, reinterpret_cast<const void*>(A), type, s.K, &beta,
        reinterpret_cast<void*>(C), type, s.N, compute, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
        throw RunnerError(std::string("cuBLAS GEMM failed: ") + cublasGetStatusString(status), false);
}

namespace {

class CublasGemmBaseline : public BaselineInstance {
public:
    CublasGemmBaseline(DeviceContext& ctx, GemmShape shape, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c)
        : m_shape(std::move(shape)), m_a(a), m_b(b), m_c(c) {
        if (m_c == 0) {
            m_own.emplace(ctx, static_cast<std::size_t>(m_shape.M) * m_shape.N * gemmElemBytes(m_shape.dtype));
            m_c = m_own->ptr;
        }
    }
    std::string label() const override { return "cuBLAS " + m_shape.dtype + (m_shape.bColMajor ? " (B transposed)" : ""); }
    void run() override { cublasGemm(m_blas, m_shape, lent(m_a), lent(m_b), lent(m_c)); }

private:
    GemmShape m_shape;
    CUdeviceptr m_a, m_b, m_c;
    std::optional<DeviceBuffer> m_own;
    Cublas m_blas;
};

}  // namespace

KX_BASELINE_FACTORY(makeCublasGemm) {
    const std::string name = "cublas_gemm";
    GemmShape s{paramText(params, "dtype", name), paramInt(params, "b_col_major", name) != 0, static_cast<int>(paramInt(params, "M", name)),
                static_cast<int>(paramInt(params, "N", name)), static_cast<int>(paramInt(params, "K", name))};
    const BaselineArg& a = bufferAt(buffers, 0, name);
    const BaselineArg& b = bufferAt(buffers, 1, name);
    return std::make_unique<CublasGemmBaseline>(ctx, std::move(s), a.ptr, b.ptr, buffers.output);
}

}  // namespace kx::runner
