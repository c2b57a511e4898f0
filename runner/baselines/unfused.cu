// The unfused sequences of the fused templates: the same operation as separate kernels, each
// reading its input from memory and writing its result back, as an eager framework runs it. The
// ratio to the fused kernel is what fusion buys. Each kernel is written the plain, competent way:
// 16-byte vector accesses where the row allows, one block per row, fp32 statistics.
//
//   unfused_rowwise  (templates/rownorm)  params op (softmax|layernorm|rmsnorm), fuse
//                    (none|residual|dropout), dtype (f16|bf16|f32), rows, cols, eps, p, seed,
//                    offset; lent x, residual, gamma, beta.
//                    residual: h = x + residual, then the norm of h. dropout: the softmax, then
//                    dropout of its result (Philox4x32-10, as the template).
//   unfused_glu      (templates/glu)  params op (swiglu|geglu), dtype, rows, cols; lent x
//                    (rows x 2 cols: gate, then up). act(gate) to a temporary, then its product
//                    with up.
//   unfused_norm_rope (templates/norm_rope)  params dtype, rows (tokens x heads), head_dim, heads,
//                    eps; lent x, weight, positions, cos_sin. The RMSNorm of each head's vector,
//                    then the rotary embedding of the result.
//   attention_composed (templates/attention)  params dtype (f16|bf16), batch, heads, kv_heads,
//                    seq_q, seq_k, head_dim, causal (0|1), scale; lent Q, K, V ([batch, heads,
//                    seq, head_dim]). cuBLAS for S = scale * Q K^T into fp32 scores, a masked
//                    softmax to probabilities in dtype, cuBLAS for O = P V: attention as an eager
//                    framework runs it without a fused kernel, its score matrix through memory.
//   unfused_ln_linear (templates/ln_linear)  params dtype (f16|bf16), M, N, K, eps; lent X, W,
//                    gamma, beta. The LayerNorm of X's rows to a temporary (one warp a row with
//                    the row in registers where K is a multiple of 8 up to 4096, else the
//                    one-block-per-row kernel), then cuBLAS Y = n W^T (W stored N x K).
// Each writes its final result to a buffer of its own (or the output the manifest asks for).
#include "baselines/baseline_factories.hpp"
#include "baselines/cublas_gemm.hpp"
#include "baselines/layer_norm_rows.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

namespace kx::runner {

namespace {

// [SECTION] Element helpers

// fp32 <-> storage type; cuda_fp16.h and cuda_bf16.h convert from float with round-to-nearest-even.
template <class T> __device__ __forceinline__ float toFloat(T v) { return static_cast<float>(v); }
template <class T> __device__ __forceinline__ T fromFloat(float v) { return static_cast<T>(v); }

// 16 bytes of T.
template <class T>
struct alignas(16) Pack {
    static constexpr int kCount = 16 / sizeof(T);
    T v[kCount];
};

enum class RowOp { Softmax, LayerNorm, RmsNorm };
enum class Act { Silu, Gelu };

// The block's sum (or max) of one value per thread; every thread gets it.
template <bool Max>
__device__ float blockReduce(float value) {
    __shared__ float partial[32];
    for (int offset = 16; offset > 0; offset /= 2) {
        const float other = __shfl_xor_sync(0xffffffffu, value, offset);
        value = Max ? fmaxf(value, other) : value + other;
    }
    const int warps = (blockDim.x + 31) / 32;
    if (warps == 1) return value;
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = value;
    __syncthreads();
    float total = partial[0];
    for (int w = 1; w < warps; ++w) total = Max ? fmaxf(total, partial[w]) : total + partial[w];
    __syncthreads();
    return total;
}

// Calls f(index, value) for every element of row `in` (cols long) that this thread owns,
// 16 bytes at a time when the row is aligned to them.
template <class T, class F>
__device__ __forceinline__ void forRow(const T* in, int cols, F f) {
    constexpr int V = Pack<T>::kCount;
    if (cols % V == 0) {
        for (int c = threadIdx.x * V; c < cols; c += blockDim.x * V) {
            const Pack<T> p = *reinterpret_cast<const Pack<T>*>(in + c);
            for (int e = 0; e < V; ++e) f(c + e, toFloat(p.v[e]));
        }
    } else {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) f(c, toFloat(in[c]));
    }
}

// [SECTION] Kernels

// Philox4x32-10's four words for `counter` and `seed` (rownorm's dropout rule,
// engine/run/references/philox.hpp).
__device__ __forceinline__ void philoxBlock(unsigned long long counter, unsigned long long seed, unsigned int (&c)[4]) {
    c[0] = static_cast<unsigned int>(counter), c[1] = static_cast<unsigned int>(counter >> 32), c[2] = 0, c[3] = 0;
    unsigned int k0 = static_cast<unsigned int>(seed), k1 = static_cast<unsigned int>(seed >> 32);
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        const unsigned int lo0 = 0xD2511F53u * c[0], hi0 = __umulhi(0xD2511F53u, c[0]);
        const unsigned int lo1 = 0xCD9E8D57u * c[2], hi1 = __umulhi(0xCD9E8D57u, c[2]);
        c[0] = hi1 ^ c[1] ^ k0, c[1] = lo1, c[2] = hi0 ^ c[3] ^ k1, c[3] = lo0;
        k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
    }
}

// out = a + b, element-wise.
template <class T>
__global__ void addKernel(const T* a, const T* b, T* out, long long n) {
    constexpr int V = Pack<T>::kCount;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n / V; i += stride) {
        const Pack<T> p = reinterpret_cast<const Pack<T>*>(a)[i], q = reinterpret_cast<const Pack<T>*>(b)[i];
        Pack<T> r;
        for (int e = 0; e < V; ++e) r.v[e] = fromFloat<T>(toFloat(p.v[e]) + toFloat(q.v[e]));
        reinterpret_cast<Pack<T>*>(out)[i] = r;
    }
    for (long long i = n / V * V + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = fromFloat<T>(toFloat(a[i]) + toFloat(b[i]));
}

// One block per row (rows of `stride` elements, of which the first cols are the row): the row
// is read from memory once into shared memory when it fits (`staged`), then a pass over it per
// statistic, then a pass that writes.
template <class T, RowOp Op>
__global__ void rowKernel(const T* in, const float* gamma, const float* beta, T* out, int cols, long long stride, float eps, bool staged) {
    extern __shared__ __align__(16) unsigned char stage[];
    const T* row = in + blockIdx.x * stride;
    T* outRow = out + blockIdx.x * stride;
    if (staged) {
        T* copy = reinterpret_cast<T*>(stage);
        constexpr int V = Pack<T>::kCount;
        if (cols % V == 0) {
            for (int c = threadIdx.x * V; c < cols; c += blockDim.x * V)
                *reinterpret_cast<Pack<T>*>(copy + c) = *reinterpret_cast<const Pack<T>*>(row + c);
        } else {
            for (int c = threadIdx.x; c < cols; c += blockDim.x) copy[c] = row[c];
        }
        __syncthreads();
        row = copy;
    }
    float shift = 0.0f, scale = 1.0f;
    if (Op == RowOp::Softmax) {
        float m = -INFINITY;
        forRow(row, cols, [&](int, float v) { m = fmaxf(m, v); });
        shift = blockReduce<true>(m);
        float s = 0.0f;
        forRow(row, cols, [&](int, float v) { s += __expf(v - shift); });
        scale = 1.0f / blockReduce<false>(s);
    } else {
        float s = 0.0f;
        forRow(row, cols, [&](int, float v) { s += Op == RowOp::RmsNorm ? v * v : v; });
        s = blockReduce<false>(s);
        if (Op == RowOp::RmsNorm) {
            scale = rsqrtf(s / cols + eps);
        } else {
            shift = s / cols;
            float d = 0.0f;
            forRow(row, cols, [&](int, float v) { d += (v - shift) * (v - shift); });
            scale = rsqrtf(blockReduce<false>(d) / cols + eps);
        }
    }
    auto result = [&](int c, float v) {
        float r = Op == RowOp::Softmax ? __expf(v - shift) * scale : (v - shift) * scale * gamma[c];
        if (Op == RowOp::LayerNorm) r += beta[c];
        return fromFloat<T>(r);
    };
    constexpr int V = Pack<T>::kCount;
    if (cols % V == 0) {  // 16-byte stores
        for (int c = threadIdx.x * V; c < cols; c += blockDim.x * V) {
            const Pack<T> p = *reinterpret_cast<const Pack<T>*>(row + c);
            Pack<T> q;
            for (int e = 0; e < V; ++e) q.v[e] = result(c + e, toFloat(p.v[e]));
            *reinterpret_cast<Pack<T>*>(outRow + c) = q;
        }
    } else {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) outRow[c] = result(c, toFloat(row[c]));
    }
}

// out = in where kept (scaled by 1 / (1 - p)), 0 where dropped. Element i is element offset + i
// of the rule: the 16-bit half (offset + i) % 8 of Philox block (offset + i) / 8. One thread per
// block, so each block is made once for its 8 elements, as an element-wise dropout kernel of a
// framework makes one per 4 outputs.
template <class T>
__global__ void dropoutKernel(const T* in, T* out, long long n, float p, unsigned long long seed, unsigned long long offset) {
    if (n <= 0) return;
    const float keepScale = 1.0f / (1.0f - p);
    const unsigned long long firstBlock = offset / 8, lastBlock = (offset + static_cast<unsigned long long>(n) - 1) / 8;
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long b = firstBlock + static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; b <= lastBlock; b += stride) {
        unsigned int w[4];
        philoxBlock(b, seed, w);
        auto keep = [&](int h, T x) {
            const unsigned int half = h % 2 == 0 ? w[h / 2] & 0xffffu : w[h / 2] >> 16;
            return fromFloat<T>(static_cast<float>(half) * 0x1p-16f < p ? 0.0f : toFloat(x) * keepScale);
        };
        const long long i0 = static_cast<long long>(8 * b - offset);  // the block's first element (may be < 0)
        if (offset % 8 == 0 && i0 + 8 <= n) {
            // A whole block of 8 aligned elements: one vector load and store.
            struct alignas(8 * sizeof(T)) Eight { T v[8]; };
            Eight x = *reinterpret_cast<const Eight*>(in + i0);
#pragma unroll
            for (int h = 0; h < 8; ++h) x.v[h] = keep(h, x.v[h]);
            *reinterpret_cast<Eight*>(out + i0) = x;
            continue;
        }
#pragma unroll
        for (int h = 0; h < 8; ++h)
            if (i0 + h >= 0 && i0 + h < n) out[i0 + h] = keep(h, in[i0 + h]);
    }
}

// tmp[r, c] = act(x[r, c]) for the gate half (row pitch 2 cols).
template <class T, Act A>
__global__ void activationKernel(const T* x, T* tmp, long long rows, int cols) {
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * cols; i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long r = i / cols;
        const float g = toFloat(x[r * 2 * cols + i % cols]);
        tmp[i] = fromFloat<T>(A == Act::Silu ? g / (1.0f + __expf(-g)) : 0.5f * g * (1.0f + erff(g * 0.70710678f)));
    }
}

// out[r, c] = tmp[r, c] * x[r, cols + c] (the up half).
template <class T>
__global__ void multiplyKernel(const T* tmp, const T* x, T* out, long long rows, int cols) {
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * cols; i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long r = i / cols;
        out[i] = fromFloat<T>(toFloat(tmp[i]) * toFloat(x[r * 2 * cols + cols + i % cols]));
    }
}

// NeoX-style rotary embedding of each head vector (head_dim d): element i < d/2 pairs with
// i + d/2, rotated by the angle whose cosine and sine are cos_sin[pos, i] and cos_sin[pos, d/2 + i].
template <class T>
__global__ void ropeKernel(const T* in, const int* positions, const float* cosSin, T* out, long long rows, int heads, int headDim) {
    const int half = headDim / 2;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * half; i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long row = i / half;
        const int k = static_cast<int>(i % half);
        const float* cs = cosSin + static_cast<long long>(positions[row / heads]) * headDim;
        const float a = toFloat(in[row * headDim + k]), b = toFloat(in[row * headDim + half + k]);
        out[row * headDim + k] = fromFloat<T>(a * cs[k] - b * cs[half + k]);
        out[row * headDim + half + k] = fromFloat<T>(b * cs[k] + a * cs[half + k]);
    }
}

// [SECTION] Launch helpers

constexpr int kThreads = 256;

int streamingBlocks(long long n) {
    return static_cast<int>(std::max(1LL, std::min((n + kThreads - 1) / kThreads, 262144LL / kThreads * 8)));
}

// One block per row of fp32 scores: row `row` is query row % seqQ of its head, which sees the
// first `visible` keys (causal: query + seqK - seqQ + 1, clamped). Writes the probabilities in
// T, zeros for hidden keys, and a zero row when no key is visible.
template <class T>
__global__ void maskedSoftmaxKernel(const float* __restrict__ scores, T* __restrict__ probs, int seqQ, int seqK, bool causal) {
    const long long row = blockIdx.x;
    const float* s = scores + row * seqK;
    T* p = probs + row * seqK;
    const int query = static_cast<int>(row % seqQ);
    const int visible = causal ? max(0, min(seqK, query + seqK - seqQ + 1)) : seqK;
    float localMax = -INFINITY;
    for (int j = threadIdx.x; j < visible; j += blockDim.x) localMax = fmaxf(localMax, s[j]);
    const float rowMax = blockReduce<true>(localMax);
    float localSum = 0;
    for (int j = threadIdx.x; j < visible; j += blockDim.x) localSum += __expf(s[j] - rowMax);
    const float inverse = visible > 0 ? 1.0f / blockReduce<false>(localSum) : 0.0f;
    for (int j = threadIdx.x; j < seqK; j += blockDim.x) p[j] = fromFloat<T>(j < visible ? __expf(s[j] - rowMax) * inverse : 0.0f);
}

void checkLaunch(const std::string& what) {
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) throw RunnerError(what + " failed: " + cudaGetErrorString(status), true);
}

template <class T>
void launchRow(RowOp op, const T* in, const float* gamma, const float* beta, T* out, long long rows, int cols, float eps) {
    // A warp per row for short rows (head vectors), a block for long ones; the row staged in
    // shared memory when it fits in 48 KiB.
    const int threads = cols <= 1024 ? 32 : kThreads;
    const bool staged = static_cast<std::size_t>(cols) * sizeof(T) <= 48 * 1024;
    const std::size_t smem = staged ? static_cast<std::size_t>(cols) * sizeof(T) : 0;
    for (long long first = 0; first < rows; first += 2147483647LL) {
        const auto count = static_cast<unsigned int>(std::min(rows - first, 2147483647LL));
        const T* rowIn = in + first * cols;
        T* rowOut = out + first * cols;
        if (op == RowOp::Softmax) rowKernel<T, RowOp::Softmax><<<count, threads, smem>>>(rowIn, gamma, beta, rowOut, cols, cols, eps, staged);
        else if (op == RowOp::LayerNorm) rowKernel<T, RowOp::LayerNorm><<<count, threads, smem>>>(rowIn, gamma, beta, rowOut, cols, cols, eps, staged);
        else rowKernel<T, RowOp::RmsNorm><<<count, threads, smem>>>(rowIn, gamma, beta, rowOut, cols, cols, eps, staged);
    }
}

// Calls f(T*) with the element type named by dtype.
template <class F>
void withDtype(const std::string& dtype, const std::string& baseline, F f) {
    if (dtype == "f32") f(static_cast<float*>(nullptr));
    else if (dtype == "f16") f(static_cast<__half*>(nullptr));
    else if (dtype == "bf16") f(static_cast<__nv_bfloat16*>(nullptr));
    else throw RunnerError(baseline + ": dtype must be f32, f16 or bf16", false);
}

std::size_t elementBytes(const std::string& dtype) { return dtype == "f32" ? 4 : 2; }

// [SECTION] The baselines

class UnfusedRowwise : public BaselineInstance {
public:
    UnfusedRowwise(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "unfused_rowwise";
        m_op = paramText(params, "op", name), m_fuse = paramText(params, "fuse", name), m_dtype = paramText(params, "dtype", name);
        m_rows = paramInt(params, "rows", name), m_cols = paramInt(params, "cols", name);
        m_eps = static_cast<float>(paramNumber(params, "eps", name)), m_p = static_cast<float>(paramNumber(params, "p", name));
        m_seed = static_cast<unsigned long long>(paramInt(params, "seed", name));
        m_offset = static_cast<unsigned long long>(paramInt(params, "offset", name));
        if (m_op != "softmax" && m_op != "layernorm" && m_op != "rmsnorm") throw RunnerError(name + ": op must be softmax, layernorm or rmsnorm", false);
        if (m_fuse != "none" && m_fuse != "residual" && m_fuse != "dropout") throw RunnerError(name + ": fuse must be none, residual or dropout", false);
        const std::size_t bytes = static_cast<std::size_t>(m_rows * m_cols) * elementBytes(m_dtype);
        m_x = bufferAt(buffers, 0, bytes, "rows x cols elements", name).ptr;
        if (m_fuse == "residual") m_residual = bufferAt(buffers, 1, bytes, "rows x cols elements", name).ptr;
        if (m_op != "softmax") m_gamma = bufferAt(buffers, 2, static_cast<std::size_t>(m_cols) * 4, "cols floats", name).ptr;
        if (m_op == "layernorm") m_beta = bufferAt(buffers, 3, static_cast<std::size_t>(m_cols) * 4, "cols floats", name).ptr;
        m_out = outputOrOwn(ctx, buffers, bytes, name, m_ownOut);
        if (m_fuse != "none") m_temp = std::make_unique<DeviceBuffer>(ctx, bytes);
    }
    std::string label() const override {
        if (m_fuse == "residual") return "unfused: add, then " + m_op + " " + m_dtype;
        if (m_fuse == "dropout") return "unfused: softmax, then dropout " + m_dtype;
        return "plain " + m_op + " kernel " + m_dtype;
    }
    void run() override {
        withDtype(m_dtype, "unfused_rowwise", [&](auto typed) {
            using T = std::remove_pointer_t<decltype(typed)>;
            const RowOp op = m_op == "softmax" ? RowOp::Softmax : m_op == "layernorm" ? RowOp::LayerNorm : RowOp::RmsNorm;
            const long long n = m_rows * m_cols;
            auto* out = reinterpret_cast<T*>(lent(m_out));
            const auto* gamma = reinterpret_cast<const float*>(lent(m_gamma));
            const auto* beta = reinterpret_cast<const float*>(lent(m_beta));
            if (m_fuse == "residual") {
                auto* h = reinterpret_cast<T*>(m_temp->ptr);
                addKernel<T><<<streamingBlocks(n / 8 + 1), kThreads>>>(reinterpret_cast<const T*>(lent(m_x)), reinterpret_cast<const T*>(lent(m_residual)), h, n);
                launchRow<T>(op, h, gamma, beta, out, m_rows, static_cast<int>(m_cols), m_eps);
            } else if (m_fuse == "dropout") {
                auto* soft = reinterpret_cast<T*>(m_temp->ptr);
                launchRow<T>(op, reinterpret_cast<const T*>(lent(m_x)), gamma, beta, soft, m_rows, static_cast<int>(m_cols), m_eps);
                dropoutKernel<T><<<streamingBlocks(n / 8 + 2), kThreads>>>(soft, out, n, m_p, m_seed, m_offset);
            } else {
                launchRow<T>(op, reinterpret_cast<const T*>(lent(m_x)), gamma, beta, out, m_rows, static_cast<int>(m_cols), m_eps);
            }
            checkLaunch(label());
        });
    }

private:
    std::string m_op, m_fuse, m_dtype;
    long long m_rows = 0, m_cols = 0;
    float m_eps = 0, m_p = 0;
    unsigned long long m_seed = 0, m_offset = 0;
    CUdeviceptr m_x = 0, m_residual = 0, m_gamma = 0, m_beta = 0, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut, m_temp;
};

class UnfusedGlu : public BaselineInstance {
public:
    UnfusedGlu(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "unfused_glu";
        m_op = paramText(params, "op", name), m_dtype = paramText(params, "dtype", name);
        m_rows = paramInt(params, "rows", name), m_cols = paramInt(params, "cols", name);
        if (m_op != "swiglu" && m_op != "geglu") throw RunnerError(name + ": op must be swiglu or geglu", false);
        const std::size_t bytes = static_cast<std::size_t>(m_rows * m_cols) * elementBytes(m_dtype);
        m_x = bufferAt(buffers, 0, 2 * bytes, "rows x 2 cols elements", name).ptr;
        m_out = outputOrOwn(ctx, buffers, bytes, name, m_ownOut);
        m_temp = std::make_unique<DeviceBuffer>(ctx, bytes);
    }
    std::string label() const override { return std::string("unfused: ") + (m_op == "swiglu" ? "silu" : "gelu") + "(gate), then x up " + m_dtype; }
    void run() override {
        withDtype(m_dtype, "unfused_glu", [&](auto typed) {
            using T = std::remove_pointer_t<decltype(typed)>;
            const auto* x = reinterpret_cast<const T*>(lent(m_x));
            auto* tmp = reinterpret_cast<T*>(m_temp->ptr);
            const int blocks = streamingBlocks(m_rows * m_cols), cols = static_cast<int>(m_cols);
            if (m_op == "swiglu") activationKernel<T, Act::Silu><<<blocks, kThreads>>>(x, tmp, m_rows, cols);
            else activationKernel<T, Act::Gelu><<<blocks, kThreads>>>(x, tmp, m_rows, cols);
            multiplyKernel<T><<<blocks, kThreads>>>(tmp, x, reinterpret_cast<T*>(lent(m_out)), m_rows, cols);
            checkLaunch(label());
        });
    }

private:
    std::string m_op, m_dtype;
    long long m_rows = 0, m_cols = 0;
    CUdeviceptr m_x = 0, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut, m_temp;
};

class UnfusedNormRope : public BaselineInstance {
public:
    UnfusedNormRope(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "unfused_norm_rope";
        m_dtype = paramText(params, "dtype", name);
        m_rows = paramInt(params, "rows", name), m_headDim = static_cast<int>(paramInt(params, "head_dim", name));
        m_heads = static_cast<int>(paramInt(params, "heads", name));
        m_eps = static_cast<float>(paramNumber(params, "eps", name));
        const std::size_t bytes = static_cast<std::size_t>(m_rows * m_headDim) * elementBytes(m_dtype);
        m_x = bufferAt(buffers, 0, bytes, "tokens x heads x head_dim elements", name).ptr;
        m_weight = bufferAt(buffers, 1, static_cast<std::size_t>(m_headDim) * 4, "head_dim floats", name).ptr;
        m_positions = bufferAt(buffers, 2, static_cast<std::size_t>(m_rows / m_heads) * 4, "a position per token", name).ptr;
        m_cosSin = bufferAt(buffers, 3, static_cast<std::size_t>(m_headDim) * 4, "the cos/sin table", name).ptr;
        m_out = outputOrOwn(ctx, buffers, bytes, name, m_ownOut);
        m_temp = std::make_unique<DeviceBuffer>(ctx, bytes);
    }
    std::string label() const override { return "unfused: rmsnorm, then rope " + m_dtype; }
    void run() override {
        withDtype(m_dtype, "unfused_norm_rope", [&](auto typed) {
            using T = std::remove_pointer_t<decltype(typed)>;
            auto* normed = reinterpret_cast<T*>(m_temp->ptr);
            launchRow<T>(RowOp::RmsNorm, reinterpret_cast<const T*>(lent(m_x)), reinterpret_cast<const float*>(lent(m_weight)), nullptr, normed, m_rows,
                         m_headDim, m_eps);
            ropeKernel<T><<<streamingBlocks(m_rows * m_headDim / 2), kThreads>>>(normed, reinterpret_cast<const int*>(lent(m_positions)),
                                                                                   reinterpret_cast<const float*>(lent(m_cosSin)),
                                                                                   reinterpret_cast<T*>(lent(m_out)), m_rows, m_heads, m_headDim);
            checkLaunch(label());
        });
    }

private:
    std::string m_dtype;
    long long m_rows = 0;
    int m_headDim = 0, m_heads = 1;
    float m_eps = 0;
    CUdeviceptr m_x = 0, m_weight = 0, m_positions = 0, m_cosSin = 0, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut, m_temp;
};

}  // namespace

class AttentionComposed : public BaselineInstance {
public:
    AttentionComposed(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "attention_composed";
        m_dtype = paramText(params, "dtype", name);
        if (m_dtype != "f16" && m_dtype != "bf16") throw RunnerError(name + ": dtype must be f16 or bf16", false);
        m_batch = paramInt(params, "batch", name), m_heads = paramInt(params, "heads", name), m_kvHeads = paramInt(params, "kv_heads", name);
        m_seqQ = paramInt(params, "seq_q", name), m_seqK = paramInt(params, "seq_k", name), m_headDim = paramInt(params, "head_dim", name);
        m_causal = paramInt(params, "causal", name) != 0;
        m_scale = static_cast<float>(paramNumber(params, "scale", name));
        if (m_kvHeads <= 0 || m_heads % m_kvHeads != 0) throw RunnerError(name + ": heads must be a multiple of kv_heads", false);
        const std::size_t qBytes = static_cast<std::size_t>(m_batch * m_heads * m_seqQ * m_headDim) * 2;
        const std::size_t kvBytes = static_cast<std::size_t>(m_batch * m_kvHeads * m_seqK * m_headDim) * 2;
        m_q = bufferAt(buffers, 0, qBytes, "batch x heads x seq_q x head_dim elements", name).ptr;
        m_k = bufferAt(buffers, 1, kvBytes, "batch x kv_heads x seq_k x head_dim elements", name).ptr;
        m_v = bufferAt(buffers, 2, kvBytes, "batch x kv_heads x seq_k x head_dim elements", name).ptr;
        m_out = outputOrOwn(ctx, buffers, qBytes, name, m_ownOut);
        const std::size_t scoreCount = static_cast<std::size_t>(m_batch * m_heads * m_seqQ * m_seqK);
        m_scores = std::make_unique<DeviceBuffer>(ctx, scoreCount * 4);
        m_probs = std::make_unique<DeviceBuffer>(ctx, scoreCount * 2);
    }
    std::string label() const override { return "composed: cuBLAS Q K^T, " + std::string(m_causal ? "causal " : "") + "softmax, cuBLAS P V " + m_dtype; }
    void run() override {
        // The query heads that share a key/value head are consecutive in Q, so each (batch,
        // kv head) is one GEMM of (group x seq_q) rows; a strided batch covers them all. cuBLAS is
        // column-major: a row-major X is X^T to it, so S^T = K Q^T and O^T = V^T P^T.
        const cudaDataType type = m_dtype == "f16" ? CUDA_R_16F : CUDA_R_16BF;
        const long long group = m_heads / m_kvHeads, rows = group * m_seqQ, count = m_batch * m_kvHeads;
        const float one = 1.0f, zero = 0.0f;
        cublasStatus_t status = cublasGemmStridedBatchedEx(
            m_blas.handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(m_seqK), static_cast<int>(rows), static_cast<int>(m_headDim), &m_scale,
            reinterpret_cast<const void*>(lent(m_k)), type, static_cast<int>(m_headDim), m_seqK * m_headDim, reinterpret_cast<const void*>(lent(m_q)), type,
            static_cast<int>(m_headDim), rows * m_headDim, &zero, reinterpret_cast<void*>(m_scores->ptr), CUDA_R_32F, static_cast<int>(m_seqK),
            rows * m_seqK, static_cast<int>(count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        if (status != CUBLAS_STATUS_SUCCESS) throw RunnerError(std::string("cuBLAS Q K^T failed: ") + cublasGetStatusString(status), false);
        withDtype(m_dtype, "attention_composed", [&](auto typed) {
            using T = std::remove_pointer_t<decltype(typed)>;
            maskedSoftmaxKernel<T><<<static_cast<unsigned>(m_batch * m_heads * m_seqQ), kThreads>>>(
                reinterpret_cast<const float*>(m_scores->ptr), reinterpret_cast<T*>(m_probs->ptr), static_cast<int>(m_seqQ),
                static_cast<int>(m_seqK), m_causal);
        });
        checkLaunch(label());
        status = cublasGemmStridedBatchedEx(
            m_blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(m_headDim), static_cast<int>(rows), static_cast<int>(m_seqK), &one,
            reinterpret_cast<const void*>(lent(m_v)), type, static_cast<int>(m_headDim), m_seqK * m_headDim, reinterpret_cast<const void*>(m_probs->ptr),
            type, static_cast<int>(m_seqK), rows * m_seqK, &zero, reinterpret_cast<void*>(lent(m_out)), type, static_cast<int>(m_headDim),
            rows * m_headDim, static_cast<int>(count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        if (status != CUBLAS_STATUS_SUCCESS) throw RunnerError(std::string("cuBLAS P V failed: ") + cublasGetStatusString(status), false);
    }

private:
    std::string m_dtype;
    long long m_batch = 0, m_heads = 0, m_kvHeads = 0, m_seqQ = 0, m_seqK = 0, m_headDim = 0;
    bool m_causal = false;
    float m_scale = 1;
    CUdeviceptr m_q = 0, m_k = 0, m_v = 0, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut, m_scores, m_probs;
    Cublas m_blas;
};

class UnfusedLnLinear : public BaselineInstance {
public:
    UnfusedLnLinear(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers) {
        const std::string name = "unfused_ln_linear";
        m_shape.dtype = paramText(params, "dtype", name);
        if (m_shape.dtype != "f16" && m_shape.dtype != "bf16") throw RunnerError(name + ": dtype must be f16 or bf16", false);
        m_shape.bColMajor = true;
        m_shape.M = static_cast<int>(paramInt(params, "M", name));
        m_shape.N = static_cast<int>(paramInt(params, "N", name));
        m_shape.K = static_cast<int>(paramInt(params, "K", name));
        m_eps = static_cast<float>(paramNumber(params, "eps", name));
        const std::size_t xBytes = static_cast<std::size_t>(m_shape.M) * m_shape.K * 2;
        m_x = bufferAt(buffers, 0, xBytes, "M x K elements", name).ptr;
        m_w = bufferAt(buffers, 1, static_cast<std::size_t>(m_shape.N) * m_shape.K * 2, "N x K elements", name).ptr;
        m_gamma = bufferAt(buffers, 2, static_cast<std::size_t>(m_shape.K) * 4, "K floats", name).ptr;
        m_beta = bufferAt(buffers, 3, static_cast<std::size_t>(m_shape.K) * 4, "K floats", name).ptr;
        m_out = outputOrOwn(ctx, buffers, static_cast<std::size_t>(m_shape.M) * m_shape.N * 2, name, m_ownOut);
        m_normalised = std::make_unique<DeviceBuffer>(ctx, xBytes);
    }
    std::string label() const override { return "unfused: layernorm, then cuBLAS " + m_shape.dtype; }
    void run() override {
        withDtype(m_shape.dtype, "unfused_ln_linear", [&](auto typed) {
            using T = std::remove_pointer_t<decltype(typed)>;
            const T* x = reinterpret_cast<const T*>(lent(m_x));
            const float* gamma = reinterpret_cast<const float*>(lent(m_gamma));
            const float* beta = reinterpret_cast<const float*>(lent(m_beta));
            T* normalised = reinterpret_cast<T*>(m_normalised->ptr);
            if constexpr (sizeof(T) == 2) {
                // Rows that fit a warp's registers (16-byte aligned: K a multiple of 8, and the
                // buffers' 256-byte alignment) take the warp-a-row kernel, 8 rows a block.
                if (m_shape.K % 8 == 0 && m_shape.K <= 32 * kLnHeld * 8) {
                    const long long blocks = (static_cast<long long>(m_shape.M) + 7) / 8;
                    layerNormWarpRows<T><<<static_cast<unsigned>(blocks), 256>>>(x, gamma, beta, normalised, m_shape.M, m_shape.K, m_eps);
                    return;
                }
            }
            launchRow<T>(RowOp::LayerNorm, x, gamma, beta, normalised, m_shape.M, m_shape.K, m_eps);
        });
        checkLaunch(label());
        cublasGemm(m_blas, m_shape, m_normalised->ptr, lent(m_w), lent(m_out));
    }

private:
    GemmShape m_shape;
    float m_eps = 1e-5f;
    CUdeviceptr m_x = 0, m_w = 0, m_gamma = 0, m_beta = 0, m_out = 0;
    std::unique_ptr<DeviceBuffer> m_ownOut, m_normalised;
    Cublas m_blas;
};

KX_BASELINE_FACTORY(makeUnfusedRowwise) { return std::make_unique<UnfusedRowwise>(ctx, params, buffers); }
KX_BASELINE_FACTORY(makeUnfusedGlu) { return std::make_unique<UnfusedGlu>(ctx, params, buffers); }
KX_BASELINE_FACTORY(makeUnfusedNormRope) { return std::make_unique<UnfusedNormRope>(ctx, params, buffers); }
KX_BASELINE_FACTORY(makeAttentionComposed) { return std::make_unique<AttentionComposed>(ctx, params, buffers); }
KX_BASELINE_FACTORY(makeUnfusedLnLinear) { return std::make_unique<UnfusedLnLinear>(ctx, params, buffers); }

}  // namespace kx::runner
