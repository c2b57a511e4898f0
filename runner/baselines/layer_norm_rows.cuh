// The unfused LayerNorm + Linear pair's LayerNorm (baselines/unfused.cu): one warp a row, the
// row held in registers, for 16-bit rows whose length is a multiple of 8 up to 4096.
#pragma once

#include <cuda_runtime.h>

namespace kx::runner {

// Eight 16-bit elements: one 16-byte load or store.
template <class T>
struct alignas(16) Row16 {
    T v[8];
};

// LayerNorm with one warp a row and the row held in registers (16-bit T, cols a multiple of 8 and
// at most 32 x kLnHeld x 8): the row is read from memory once, every load in flight together,
// then its mean and the squared deviations from it (no cancellation) from the registers, and
// it is written 16 bytes at a time. As fast as a LayerNorm of such rows gets: the unfused
// pair's first kernel should be a good one, or the fusion looks better than it is.
constexpr int kLnHeld = 16;
template <class T>
__global__ void __launch_bounds__(256) layerNormWarpRows(const T* __restrict__ in, const float* __restrict__ gamma, const float* __restrict__ beta,
                                                         T* __restrict__ out, long long rows, int cols, float eps) {
    static_assert(sizeof(T) == 2, "16-bit elements");
    const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = static_cast<int>(threadIdx.x % 32);
    if (row >= rows) return;
    const Row16<T>* x = reinterpret_cast<const Row16<T>*>(in + row * cols);
    Row16<T>* y = reinterpret_cast<Row16<T>*>(out + row * cols);
    const int chunks = cols / 8;
    Row16<T> held[kLnHeld];
#pragma unroll
    for (int i = 0; i < kLnHeld; ++i)
        if (lane + 32 * i < chunks) held[i] = x[lane + 32 * i];
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kLnHeld; ++i)
        if (lane + 32 * i < chunks)
#pragma unroll
            for (int e = 0; e < 8; ++e) sum += static_cast<float>(held[i].v[e]);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const float mean = sum / cols;
    float squares = 0.0f;
#pragma unroll
    for (int i = 0; i < kLnHeld; ++i)
        if (lane + 32 * i < chunks)
#pragma unroll
            for (int e = 0; e < 8; ++e) {
                const float d = static_cast<float>(held[i].v[e]) - mean;
                squares += d * d;
            }
    for (int offset = 16; offset > 0; offset /= 2) squares += __shfl_xor_sync(0xffffffffu, squares, offset);
    const float rstd = rsqrtf(squares / cols + eps);
#pragma unroll
    for (int i = 0; i < kLnHeld; ++i) {
        const int chunk = lane + 32 * i;
        if (chunk >= chunks) continue;
        const float4* g = reinterpret_cast<const float4*>(gamma + 8 * chunk);
        const float4* b = reinterpret_cast<const float4*>(beta + 8 * chunk);
        const float4 g0 = __ldg(g), g1 = __ldg(g + 1), b0 = __ldg(b), b1 = __ldg(b + 1);
        const float gs[8] = {g0.x, g0.y, g0.z, g0.w, g1.x, g1.y, g1.z, g1.w}, bs[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
        Row16<T> o;
#pragma unroll
        for (int e = 0; e < 8; ++e) o.v[e] = static_cast<T>((static_cast<float>(held[i].v[e]) - mean) * rstd * gs[e] + bs[e]);
        y[chunk] = o;
    }
}

}  // namespace kx::runner
