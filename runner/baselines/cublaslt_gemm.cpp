// "cublaslt_gemm": cuBLASLt's GEMM with its fused epilogue on the kernel's own A, B and D0
// (args="A,B,D0"), fp32 accumulation and fp32 scalars; C goes to the output buffer when the
// manifest asks (output="C"), so the reference can compare every output with it. In the
// row-major math view, for i < M, j < N:
//   C[i,j] = act(alpha * sum_k A[i,k] B[k,j] + beta * D0term(i,j)),  C row-major M x N in dtype
//   D0term = 0 (d0=none: D0 is not read), D0[j] (bias, N elements), D0[i*N+j] (residual, M x N)
//   A[i,k] at i*K+k (a_col_major=0) or k*M+i (1); B[k,j] at k*N+j (b_col_major=0) or j*K+k (1)
// Params: dtype (f16, bf16, f32, tf32; i8 with int32 C; e4m3 and e5m2 with f16 C and D0, and
// e4m3_bf16, e5m2_bf16, e4m3_f32, e5m2_f32 with a bf16 or f32 C and D0),
// a_col_major, b_col_major (0/1), M, N, K, epilogue (none, relu, gelu_tanh, gelu_erf, sigmoid,
// tanh, silu), d0 (none, bias, residual), alpha, beta. The 8-bit types take layout rcr only
// (cuBLASLt's int8 and fp8 GEMMs are "TN"), and cuBLASLt has no e5m2 x e5m2 GEMM: e5m2 is timed
// as the e4m3 GEMM of the same bytes (the same tensor-core work), its label says so, and its
// output is not the formula's.
//
// cuBLASLt fuses the residual (its C, scaled by beta), relu and gelu_tanh (its GELU is the tanh
// form) and the bias, which it adds unscaled: only when beta is 1 (at beta 0 the bias adds
// nothing). What it cannot fuse is left out, and the label says so; the output is then not the
// formula's, and the GEMM reference (engine/run/references/gemm.hpp, cublasLtComputesEpilogue)
// does not compare it.
//
// cuBLASLt is column-major, so it computes C^T (N x M, ld N) = B^T A^T, as cublas_gemm does: a
// row-major matrix is its transpose in column-major order. Its first operand is our B: stored
// K x N row-major it is B^T (N x K, ld N) as is; stored N x K it is B (K x N, ld K), transposed.
// Its second is our A: row-major it is A^T (K x M, ld K); column-major A (M x K, ld M),
// transposed. Its bias runs along D's rows, which are our columns j: D0[j].
#include "baselines/baseline_factories.hpp"

#include <cublasLt.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <sstream>
#include <type_traits>
#include <utility>

namespace kx::runner {

namespace {

const std::string kName = "cublaslt_gemm";
// NVIDIA's recommendation for Hopper: room for every algorithm the heuristic may choose.
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

struct DtypeInfo {
    const char* name;
    cudaDataType type;     // of A and B
    cudaDataType outType;  // of C and D0
    cublasComputeType_t compute;
    cudaDataType scaleType;  // of alpha and beta
    std::size_t bytes, outBytes;
    const char* timedAs;  // the type cuBLASLt runs instead, when it has no GEMM of this one
};
const DtypeInfo kDtypes[] = {
    {"f16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, nullptr},
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, nullptr},
    {"f32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 4, 4, nullptr},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, 4, 4, nullptr},
    {"i8", CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I, 1, 4, nullptr},
    {"e4m3", CUDA_R_8F_E4M3, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1, 2, nullptr},
    {"e5m2", CUDA_R_8F_E4M3, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1, 2, "e4m3"},
    {"e4m3_bf16", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1, 2, nullptr},
    {"e5m2_bf16", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1, 2, "e4m3_bf16"},
    {"e4m3_f32", CUDA_R_8F_E4M3, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1, 4, nullptr},
    {"e5m2_f32", CUDA_R_8F_E4M3, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1, 4, "e4m3_f32"},
};

// cuBLASLt's epilogue for each activation, without and with the bias; the ones it lacks run as
// the plain GEMM (fused false).
struct ActivationInfo {
    const char* name;
    bool fused;
    cublasLtEpilogue_t plain, withBias;
};
const ActivationInfo kActivations[] = {
    {"none", true, CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS},
    {"relu", true, CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU_BIAS},
    {"gelu_tanh", true, CUBLASLT_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU_BIAS},
    {"gelu_erf", false, CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS},
    {"sigmoid", false, CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS},
    {"tanh", false, CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS},
    {"silu", false, CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS},
};

enum class D0 { None, Bias, Residual };
struct D0Info { const char* name; D0 kind; };
const D0Info kD0s[] = {{"none", D0::None}, {"bias", D0::Bias}, {"residual", D0::Residual}};

template <typename T, std::size_t n>
const T* findByName(const T (&table)[n], const std::string& name) {
    for (const T& row : table)
        if (name == row.name) return &row;
    return nullptr;
}

// table's row called `value`, or RunnerError naming the values allowed for `key`.
template <typename T, std::size_t n>
const T& lookup(const T (&table)[n], const char* key, const std::string& value) {
    if (const T* row = findByName(table, value)) return *row;
    std::string names;
    for (std::size_t i = 0; i < n; ++i) names += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + table[i].name;
    throw RunnerError(kName + ": " + key + " must be " + names + " (got '" + value + "')", false);
}

bool biasFused(D0 d0, double beta) { return d0 == D0::Bias && beta == 1.0; }
bool biasLeftOut(D0 d0, double beta) { return d0 == D0::Bias && beta != 1.0 && beta != 0.0; }

struct LtGemm {
    const DtypeInfo* dtype = nullptr;
    bool aColMajor = false, bColMajor = true;
    std::uint64_t M = 0, N = 0, K = 0;
    const ActivationInfo* act = nullptr;
    D0 d0 = D0::None;
    double alpha = 1.0, beta = 0.0;
};

std::uint64_t dimension(const nlohmann::json& params, const char* key) {
    const long long value = paramInt(params, key, kName);
    if (value < 1 || value > INT_MAX)
        throw RunnerError(kName + ": " + key + " = " + std::to_string(value) + " must lie in [1, " + std::to_string(INT_MAX) + "]", false);
    return static_cast<std::uint64_t>(value);
}

LtGemm parseGemm(const nlohmann::json& params) {
    LtGemm g;
    g.dtype = &lookup(kDtypes, "dtype", paramText(params, "dtype", kName));
    g.aColMajor = paramInt(params, "a_col_major", kName) != 0;
    g.bColMajor = paramInt(params, "b_col_major", kName) != 0;
    g.M = dimension(params, "M");
    g.N = dimension(params, "N");
    g.K = dimension(params, "K");
    g.act = &lookup(kActivations, "epilogue", paramText(params, "epilogue", kName));
    g.d0 = lookup(kD0s, "d0", paramText(params, "d0", kName)).kind;
    g.alpha = paramNumber(params, "alpha", kName);
    g.beta = paramNumber(params, "beta", kName);
    return g;
}

// "cuBLASLt f16 rcr + bias + relu", "... (sigmoid is not a cuBLASLt epilogue: left out)": the
// layout code is A's, B's and C's order (C is always row-major).
std::string labelOf(const LtGemm& g) {
    std::string text = std::string("cuBLASLt ") + (g.dtype->timedAs ? g.dtype->timedAs : g.dtype->name) + " " + (g.aColMajor ? "c" : "r") +
                       (g.bColMajor ? "c" : "r") + "r";
    if (g.dtype->timedAs) text += std::string(" (no ") + g.dtype->name + " x " + g.dtype->name + " GEMM in cuBLASLt: timed as " + g.dtype->timedAs + ")";
    if (g.d0 == D0::Residual) text += " + residual";
    if (biasFused(g.d0, g.beta)) text += " + bias";
    if (g.act->fused && g.act->plain != CUBLASLT_EPILOGUE_DEFAULT) text += std::string(" + ") + g.act->name;
    std::ostringstream beta;
    beta << g.beta;
    const std::string bias = biasLeftOut(g.d0, g.beta) ? "bias x beta=" + beta.str() : "";
    const std::string act = g.act->fused ? "" : g.act->name;
    if (!bias.empty() && !act.empty()) text += " (" + bias + " and " + act + " are not cuBLASLt epilogues: left out)";
    else if (!bias.empty() || !act.empty()) text += " (" + bias + act + " is not a cuBLASLt epilogue: left out)";
    return text;
}

void check(cublasStatus_t status, const std::string& call) {
    if (status != CUBLAS_STATUS_SUCCESS) throw RunnerError(kName + ": " + call + " failed: " + cublasLtGetStatusString(status), false);
}

// cuBLASLt's handle and descriptors, destroyed with their owner.
template <typename T, cublasStatus_t (*destroy)(T)>
struct LtDestroy {
    void operator()(T object) const { destroy(object); }
};
template <typename T, cublasStatus_t (*destroy)(T)>
using LtOwned = std::unique_ptr<std::remove_pointer_t<T>, LtDestroy<T, destroy>>;
using LtHandle = LtOwned<cublasLtHandle_t, cublasLtDestroy>;
using LtMatmulDesc = LtOwned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtLayout = LtOwned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = LtOwned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

LtLayout makeLayout(cudaDataType type, std::uint64_t rows, std::uint64_t cols, std::uint64_t ld) {
    cublasLtMatrixLayout_t layout = nullptr;
    check(cublasLtMatrixLayoutCreate(&layout, type, rows, cols, static_cast<std::int64_t>(ld)), "cublasLtMatrixLayoutCreate");
    return LtLayout(layout);
}

// One attribute of a descriptor or preference, through its setter (call names it in errors).
template <typename Object, typename Attribute, typename V>
void set(cublasStatus_t (*setter)(Object, Attribute, const void*, std::size_t), Object object, Attribute attribute, const V& value,
         const std::string& call) {
    check(setter(object, attribute, &value, sizeof value), call);
}

// The heuristic assumes 256-byte aligned buffers unless told less; tell it the truth.
std::uint32_t alignmentOf(CUdeviceptr ptr) {
    std::uint32_t alignment = 256;
    while (alignment > 1 && ptr % alignment != 0) alignment /= 2;
    return alignment;
}

const void* in(CUdeviceptr ptr) { return reinterpret_cast<const void*>(ptr); }

class CublasLtGemmBaseline : public BaselineInstance {
public:
    CublasLtGemmBaseline(DeviceContext& ctx, const LtGemm& g, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d0, CUdeviceptr c,
                         std::unique_ptr<DeviceBuffer> own)
        : m_g(g), m_a(a), m_b(b), m_d0(d0), m_c(c), m_alpha(static_cast<float>(g.alpha)),
          m_beta(g.d0 == D0::Residual ? static_cast<float>(g.beta) : 0.0f), m_alphaInt(static_cast<int>(g.alpha)),
          m_betaInt(g.d0 == D0::Residual ? static_cast<int>(g.beta) : 0), m_own(std::move(own)), m_workspace(ctx, kWorkspaceBytes) {
        cublasLtHandle_t handle = nullptr;
        check(cublasLtCreate(&handle), "cublasLtCreate");
        m_handle.reset(handle);
        describe();
        chooseAlgorithm();
    }
    std::string label() const override { return labelOf(m_g); }
    // cuBLASLt's C is the residual when there is one; else D itself, never read at beta 0.
    void run() override {
        const bool ints = m_g.dtype->scaleType == CUDA_R_32I;
        const void* alpha = ints ? static_cast<const void*>(&m_alphaInt) : &m_alpha;
        const void* beta = ints ? static_cast<const void*>(&m_betaInt) : &m_beta;
        check(cublasLtMatmul(m_handle.get(), m_desc.get(), alpha, in(lent(m_b)), m_layoutB.get(), in(lent(m_a)), m_layoutA.get(), beta,
                             in(lent(cInput())), m_layoutC.get(), reinterpret_cast<void*>(lent(m_c)), m_layoutC.get(), &m_algo,
                             reinterpret_cast<void*>(m_workspace.ptr), kWorkspaceBytes, nullptr /* the default stream */),
              "cublasLtMatmul");
    }

private:
    // The fused bias is read through the operation's descriptor: it follows the rotation there.
    void prepareSet(int) override {
        if (biasFused(m_g.d0, m_g.beta))
            set(cublasLtMatmulDescSetAttribute, m_desc.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, in(lent(m_d0)),
                "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
    }

    CUdeviceptr cInput() const { return m_g.d0 == D0::Residual ? m_d0 : m_c; }

    // The operation and the three layouts (see the top of the file for why these).
    void describe() {
        const cudaDataType type = m_g.dtype->type, outType = m_g.dtype->outType;
        cublasLtMatmulDesc_t desc = nullptr;
        check(cublasLtMatmulDescCreate(&desc, m_g.dtype->compute, m_g.dtype->scaleType), "cublasLtMatmulDescCreate");
        m_desc.reset(desc);
        const auto attribute = [desc](cublasLtMatmulDescAttributes_t key, const auto& value, const char* name) {
            set(cublasLtMatmulDescSetAttribute, desc, key, value, std::string("cublasLtMatmulDescSetAttribute(") + name + ")");
        };
        const cublasOperation_t opB = m_g.bColMajor ? CUBLAS_OP_T : CUBLAS_OP_N, opA = m_g.aColMajor ? CUBLAS_OP_T : CUBLAS_OP_N;
        attribute(CUBLASLT_MATMUL_DESC_TRANSA, opB, "TRANSA");
        attribute(CUBLASLT_MATMUL_DESC_TRANSB, opA, "TRANSB");
        const bool bias = biasFused(m_g.d0, m_g.beta);
        attribute(CUBLASLT_MATMUL_DESC_EPILOGUE, bias ? m_g.act->withBias : m_g.act->plain, "EPILOGUE");
        if (bias) {
            // Set before the heuristic, which reads the pointer's alignment.
            attribute(CUBLASLT_MATMUL_DESC_BIAS_POINTER, in(m_d0), "BIAS_POINTER");
            attribute(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, static_cast<std::int32_t>(outType), "BIAS_DATA_TYPE");
        }
        const std::uint64_t M = m_g.M, N = m_g.N, K = m_g.K;
        m_layoutB = m_g.bColMajor ? makeLayout(type, K, N, K) : makeLayout(type, N, K, N);
        m_layoutA = m_g.aColMajor ? makeLayout(type, M, K, M) : makeLayout(type, K, M, K);
        m_layoutC = makeLayout(outType, N, M, N);
    }

    // Once, here: run() then only launches. The heuristic's first choice, as cuBLAS would take.
    void chooseAlgorithm() {
        cublasLtMatmulPreference_t raw = nullptr;
        check(cublasLtMatmulPreferenceCreate(&raw), "cublasLtMatmulPreferenceCreate");
        const LtPreference pref(raw);
        const std::string call = "cublasLtMatmulPreferenceSetAttribute";
        set(cublasLtMatmulPreferenceSetAttribute, raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, std::uint64_t{kWorkspaceBytes}, call);
        const std::pair<cublasLtMatmulPreferenceAttributes_t, CUdeviceptr> alignments[] = {
            {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, m_b}, {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, m_a},
            {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, cInput()}, {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, m_c}};
        for (const auto& [attribute, ptr] : alignments) set(cublasLtMatmulPreferenceSetAttribute, raw, attribute, alignmentOf(ptr), call);
        cublasLtMatmulHeuristicResult_t result{};
        int count = 0;
        const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(m_handle.get(), m_desc.get(), m_layoutB.get(), m_layoutA.get(),
                                                                     m_layoutC.get(), m_layoutC.get(), raw, 1, &result, &count);
        if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && count == 0))
            throw RunnerError(kName + ": cuBLASLt's heuristic offers no algorithm for " + labelOf(m_g) + " at M=" +
                                  std::to_string(m_g.M) + " N=" + std::to_string(m_g.N) + " K=" + std::to_string(m_g.K) +
                                  " on this GPU (most of its kernels want leading dimensions that are multiples of 16 bytes, " +
                                  std::to_string(16 / m_g.dtype->bytes) + " " + m_g.dtype->name + " elements; the 8-bit types also want layout rcr)",
                              false);
        check(status, "cublasLtMatmulAlgoGetHeuristic");
        m_algo = result.algo;
    }

    LtGemm m_g;
    CUdeviceptr m_a, m_b, m_d0, m_c;
    float m_alpha, m_beta;  // cuBLASLt's beta: 0 unless C is the residual
    int m_alphaInt, m_betaInt;  // the same for int8's int32 scalars
    std::unique_ptr<DeviceBuffer> m_own;
    DeviceBuffer m_workspace;
    LtHandle m_handle;
    LtMatmulDesc m_desc;
    LtLayout m_layoutB, m_layoutA, m_layoutC;  // cuBLASLt's A (our B), B (our A), C and D
    cublasLtMatmulAlgo_t m_algo{};
};

}  // namespace

KX_BASELINE_FACTORY(makeCublasLtGemm) {
    const LtGemm g = parseGemm(params);
    const auto lent = [&](std::size_t index, std::uint64_t count, std::size_t bytes, const char* shape) {
        const std::string what = std::string(shape) + " = " + std::to_string(count) + " elements of " + std::to_string(bytes) + " bytes";
        return bufferAt(buffers, index, count * bytes, what, kName).ptr;
    };
    const std::size_t bytes = g.dtype->bytes, outBytes = g.dtype->outBytes;
    const CUdeviceptr a = lent(0, g.M * g.K, bytes, "M x K"), b = lent(1, g.K * g.N, bytes, "K x N");
    CUdeviceptr d0 = 0;  // D0 is lent but not read when d0=none
    if (g.d0 == D0::Bias) d0 = lent(2, g.N, outBytes, "the bias's N");
    if (g.d0 == D0::Residual) d0 = lent(2, g.M * g.N, outBytes, "M x N");
    std::unique_ptr<DeviceBuffer> own;
    const CUdeviceptr c = outputOrOwn(ctx, buffers, g.M * g.N * outBytes, kName, own);
    return std::make_unique<CublasLtGemmBaseline>(ctx, g, a, b, d0, c, std::move(own));
}

}  // namespace kx::runner
