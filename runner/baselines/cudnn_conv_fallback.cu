// The cudnn_conv baseline's last resort, when cuDNN cannot be loaded or refuses the problem:
// templates/conv's implicit GEMM made explicit. A gather kernel materialises the GEMM's gathered
// operand in a temporary (im2col), cuBLAS multiplies all G groups as one strided batch with fp32
// accumulation, and a copy kernel puts the result in D's layout. Per group, row-major:
//
//   fwd         Y[N*O][K]  = P[N*O][R] * W[K][R]^T     P: x's patches, R = C*T
//   bwd_data    dX[N*I][C] = Q[N*I][T*K] * Wt[T*K][C]  Q: dy's patches, gathered (no atomics)
//   bwd_weight  dW[K][R]   = dY[N*O][K]^T * P[N*O][R]
//
// with O (I) the output (input) positions and T = Z*Y*X the filter taps. R is ordered as the
// filter lies in memory (nhwgc: tap, then c; nchw: c, then tap), so w serves as W in place and
// bwd_weight's product is already dw. The kernels only move elements (one thread each, through
// the index functions below), so they work on raw 2- or 4-byte words whatever the dtype; the
// GEMM rounds to the dtype once.
#include "baselines/cudnn_conv.hpp"

#include "baselines/cublas_gemm.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>

namespace kx::runner {

namespace {

// [SECTION] Index functions

__host__ __device__ inline long long product(const long long (&v)[3]) { return v[0] * v[1] * v[2]; }

// (d, h, w) of a linear position (d*H + h)*W + w within extent (D, H, W); also filter taps.
__device__ inline void split(long long index, const long long (&extent)[3], long long (&coord)[3]) {
    coord[2] = index % extent[2];
    coord[1] = index / extent[2] % extent[1];
    coord[0] = index / (extent[2] * extent[1]);
}

__device__ inline long long join(const long long (&coord)[3], const long long (&extent)[3]) {
    return (coord[0] * extent[1] + coord[1]) * extent[2] + coord[2];
}

// Offset of element (n, g, channel, position) of an activation tensor with `channels` per group
// and `positions` = D*H*W each: x and dx (C, input positions), y and dy (K, output positions).
__device__ inline long long activationOffset(const ConvShape& s, long long n, long long g, long long channel, long long channels,
                                             long long position, long long positions) {
    return s.channelsLast ? ((n * positions + position) * s.groups + g) * channels + channel
                          : ((n * s.groups + g) * channels + channel) * positions + position;
}

// Offset of w[g][k][c][tap] in either layout (nhwgc: w[g][k][tap][c]; nchw: w[g][k][c][tap]).
__device__ inline long long filterOffset(const ConvShape& s, long long g, long long k, long long c, long long tap) {
    const long long taps = product(s.filter);
    return s.channelsLast ? ((g * s.outChannels + k) * taps + tap) * s.inChannels + c
                          : ((g * s.outChannels + k) * s.inChannels + c) * taps + tap;
}

// Column r of P and W (and dW) as (c, tap), in the filter's memory order.
__device__ inline void splitFilterColumn(const ConvShape& s, long long r, long long& c, long long& tap) {
    const long long taps = product(s.filter);
    c = s.channelsLast ? r % s.inChannels : r / taps;
    tap = s.channelsLast ? r / s.inChannels : r % taps;
}

__device__ inline long long firstIndex() { return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline long long gridStride() { return static_cast<long long>(gridDim.x) * blockDim.x; }

// [SECTION] Kernels (E: the element as a raw word, unsigned short or unsigned int)

// P[g][m][r] = x at the input position that output position m's tap reads; 0 in the padding.
template <class E>
__global__ void gatherInputPatches(const E* x, E* patches, ConvShape s) {
    const long long R = s.inChannels * product(s.filter), outPositions = product(s.out), rows = s.batch * outPositions;
    for (long long i = firstIndex(); i < s.groups * rows * R; i += gridStride()) {
        const long long r = i % R, m = i / R % rows, g = i / (R * rows);
        long long c, tap, o[3], t[3], at[3];
        splitFilterColumn(s, r, c, tap);
        split(m % outPositions, s.out, o);
        split(tap, s.filter, t);
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
            at[d] = o[d] * s.stride[d] - s.pad[d] + t[d] * s.dil[d];
            inside = inside && at[d] >= 0 && at[d] < s.in[d];
        }
        patches[i] = inside ? x[activationOffset(s, m / outPositions, g, c, s.inChannels, join(at, s.in), product(s.in))] : E(0);
    }
}

// Q[g][m][tap*K + k] = dy at the output position whose tap `tap` reads input position m, 0 when
// none does (between strides, or past the output's edge): bwd_data as a gather.
template <class E>
__global__ void gatherGradientPatches(const E* dy, E* patches, ConvShape s) {
    const long long R = product(s.filter) * s.outChannels, inPositions = product(s.in), rows = s.batch * inPositions;
    for (long long i = firstIndex(); i < s.groups * rows * R; i += gridStride()) {
        const long long col = i % R, m = i / R % rows, g = i / (R * rows);
        const long long tap = col / s.outChannels, k = col % s.outChannels;
        long long p[3], t[3], o[3];
        split(m % inPositions, s.in, p);
        split(tap, s.filter, t);
        bool hit = true;
        for (int d = 0; d < 3; ++d) {  // forward reads p = o*stride - pad + t*dil
            const long long shifted = p[d] + s.pad[d] - t[d] * s.dil[d];
            o[d] = shifted / s.stride[d];
            hit = hit && shifted >= 0 && shifted % s.stride[d] == 0 && o[d] < s.out[d];
        }
        patches[i] = hit ? dy[activationOffset(s, m / inPositions, g, k, s.outChannels, join(o, s.out), product(s.out))] : E(0);
    }
}

// Wt[g][tap*K + k][c] = w[g][k][c][tap]: bwd_data's B, with K and the taps as the reduction.
template <class E>
__global__ void reorderFilterForData(const E* w, E* reordered, ConvShape s) {
    const long long rows = product(s.filter) * s.outChannels, perGroup = rows * s.inChannels;
    for (long long i = firstIndex(); i < s.groups * perGroup; i += gridStride()) {
        const long long c = i % s.inChannels, row = i / s.inChannels % rows, g = i / perGroup;
        reordered[i] = w[filterOffset(s, g, row % s.outChannels, c, row / s.outChannels)];
    }
}

// Between an activation tensor and the matrix [G][N*positions][channels] that the GEMMs read or
// write; each element moves once.
template <class E>
__global__ void copyActivationMatrix(const E* from, E* to, ConvShape s, long long channels, long long positions, bool toMatrix) {
    const long long rows = s.batch * positions;
    for (long long i = firstIndex(); i < s.groups * rows * channels; i += gridStride()) {
        const long long ch = i % channels, m = i / channels % rows, g = i / (channels * rows);
        const long long offset = activationOffset(s, m / positions, g, ch, channels, m % positions, positions);
        if (toMatrix) to[i] = from[offset];
        else to[offset] = from[i];
    }
}

// [SECTION] Launch helpers

constexpr int kThreads = 256;

template <class... Params, class... Args>
void launch(const char* what, void (*kernel)(Params...), long long elements, Args... args) {
    const long long blocks = std::clamp<long long>((elements + kThreads - 1) / kThreads, 1, 65536);  // grid-stride beyond
    kernel<<<static_cast<unsigned>(blocks), kThreads>>>(args...);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) throw RunnerError(std::string("im2col conv: ") + what + " failed: " + cudaGetErrorString(status), true);
}

template <class T>
T* device(CUdeviceptr ptr) {
    return reinterpret_cast<T*>(ptr);
}

// Row-major C[m][n] = A * B for each of `groups` groups stored one after another, A [m][k] (or
// [k][m] when aTransposed), B [k][n] (or [n][k] when bTransposed).
struct GroupGemm {
    long long m = 0, n = 0, k = 0;
    bool aTransposed = false, bTransposed = false;
};

// [SECTION] The fallback

class Im2colConv : public BaselineInstance {
public:
    Im2colConv(DeviceContext& ctx, const ConvProblem& problem, const ConvOperands& operands, const std::string& why);
    std::string label() const override { return "im2col + cuBLAS conv " + describeConv(m_problem) + " (" + m_why + ")"; }
    void run() override {
        if (convElementBytes(m_problem.dtype) == 2) runWith<unsigned short>();
        else runWith<unsigned int>();
    }

private:
    template <class E>
    void runWith();
    void gemm(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) const;

    ConvProblem m_problem;
    ConvOperands m_operands;
    std::string m_why;
    GroupGemm m_gemm;
    // Temporaries: gathered = P or Q; reordered = Wt (bwd_data) or dY as a matrix (bwd_weight);
    // product = the GEMM's result before it goes to D's layout (fwd, bwd_data).
    std::unique_ptr<DeviceBuffer> m_gathered, m_reordered, m_product;
    Cublas m_blas;
};

// The direction's GEMM per group, as in the table at the top.
GroupGemm gemmFor(const ConvProblem& problem) {
    const ConvShape& s = problem.shape;
    const long long taps = product(s.filter), outRows = s.batch * product(s.out), inRows = s.batch * product(s.in);
    switch (problem.direction) {
    case ConvDirection::Forward: return {outRows, s.outChannels, s.inChannels * taps, false, true};
    case ConvDirection::BackwardData: return {inRows, s.inChannels, taps * s.outChannels, false, false};
    case ConvDirection::BackwardWeight: return {s.outChannels, s.inChannels * taps, outRows, true, false};
    }
    return {};
}

Im2colConv::Im2colConv(DeviceContext& ctx, const ConvProblem& problem, const ConvOperands& operands, const std::string& why)
    : m_problem(problem), m_operands(operands), m_why(why), m_gemm(gemmFor(problem)) {
    const GroupGemm& g = m_gemm;
    if (std::max({g.m, g.n, g.k}) > INT_MAX)
        throw RunnerError("cudnn_conv: " + why + "; and the im2col fallback's GEMM (" + std::to_string(g.m) + " x " + std::to_string(g.n) +
                              " x " + std::to_string(g.k) + ") exceeds cuBLAS's int sizes", false);
    const long long groups = problem.shape.groups;
    auto temporary = [&](long long elements) {
        return std::make_unique<DeviceBuffer>(ctx, static_cast<std::size_t>(groups * elements) * convElementBytes(problem.dtype));
    };
    switch (problem.direction) {
    case ConvDirection::Forward:  // P [m][k], Y [m][n]
        m_gathered = temporary(g.m * g.k), m_product = temporary(g.m * g.n);
        break;
    case ConvDirection::BackwardData:  // Q [m][k], Wt [k][n], dX [m][n]
        m_gathered = temporary(g.m * g.k), m_reordered = temporary(g.k * g.n), m_product = temporary(g.m * g.n);
        break;
    case ConvDirection::BackwardWeight:  // dY [k][m], P [k][n]; the product is dw itself
        m_reordered = temporary(g.k * g.m), m_gathered = temporary(g.k * g.n);
        break;
    }
}

template <class E>
void Im2colConv::runWith() {
    const ConvShape& s = m_problem.shape;
    const long long outPositions = product(s.out), inPositions = product(s.in);
    E* gathered = device<E>(m_gathered->ptr);
    switch (m_problem.direction) {
    case ConvDirection::Forward:
        launch("gathering x's patches", gatherInputPatches<E>, s.groups * m_gemm.m * m_gemm.k, device<const E>(lent(m_operands.a)), gathered, s);
        gemm(m_gathered->ptr, lent(m_operands.b), m_product->ptr);
        launch("writing y", copyActivationMatrix<E>, s.groups * m_gemm.m * m_gemm.n, device<const E>(m_product->ptr),
               device<E>(lent(m_operands.d)), s, s.outChannels, outPositions, false);
        break;
    case ConvDirection::BackwardData:
        launch("gathering dy's patches", gatherGradientPatches<E>, s.groups * m_gemm.m * m_gemm.k, device<const E>(lent(m_operands.a)), gathered, s);
        launch("reordering w", reorderFilterForData<E>, filterElements(s), device<const E>(lent(m_operands.b)), device<E>(m_reordered->ptr), s);
        gemm(m_gathered->ptr, m_reordered->ptr, m_product->ptr);
        launch("writing dx", copyActivationMatrix<E>, s.groups * m_gemm.m * m_gemm.n, device<const E>(m_product->ptr),
               device<E>(lent(m_operands.d)), s, s.inChannels, inPositions, false);
        break;
    case ConvDirection::BackwardWeight:
        launch("gathering x's patches", gatherInputPatches<E>, s.groups * m_gemm.k * m_gemm.n, device<const E>(lent(m_operands.b)), gathered, s);
        launch("reading dy", copyActivationMatrix<E>, s.groups * m_gemm.k * m_gemm.m, device<const E>(lent(m_operands.a)),
               device<E>(m_reordered->ptr), s, s.outChannels, outPositions, true);
        gemm(m_reordered->ptr, m_gathered->ptr, lent(m_operands.d));
        break;
    }
}

// cuBLAS is column-major, where a row-major X is X^T: it computes C^T = op(B)^T op(A)^T.
void Im2colConv::gemm(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) const {
    const GroupGemm& g = m_gemm;
    const cudaDataType type = m_problem.dtype == "f16" ? CUDA_R_16F : m_problem.dtype == "bf16" ? CUDA_R_16BF : CUDA_R_32F;
    const float one = 1.0f, zero = 0.0f;
    const cublasStatus_t status = cublasGemmStridedBatchedEx(
        m_blas.handle, g.bTransposed ? CUBLAS_OP_T : CUBLAS_OP_N, g.aTransposed ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(g.n),
        static_cast<int>(g.m), static_cast<int>(g.k), &one, reinterpret_cast<const void*>(b), type,
        static_cast<int>(g.bTransposed ? g.k : g.n), g.k * g.n, reinterpret_cast<const void*>(a), type,
        static_cast<int>(g.aTransposed ? g.m : g.k), g.m * g.k, &zero, reinterpret_cast<void*>(c), type, static_cast<int>(g.n), g.m * g.n,
        static_cast<int>(m_problem.shape.groups), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS) throw RunnerError(std::string("im2col conv: cuBLAS GEMM failed: ") + cublasGetStatusString(status), false);
}

}  // namespace

std::unique_ptr<BaselineInstance> makeIm2colConv(DeviceContext& ctx, const ConvProblem& problem, const ConvOperands& operands,
                                                 const std::string& why) {
    return std::make_unique<Im2colConv>(ctx, problem, operands, why);
}

}  // namespace kx::runner
