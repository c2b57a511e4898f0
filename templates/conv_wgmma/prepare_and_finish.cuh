// ---- templates/conv_wgmma/prepare_and_finish.cuh: the kernels launched around the convolution ----
// Part of conv_wgmma.cu (after the convolution kernel): ${KERNEL_NAME}_prepare (FOLD's copies, or
// backward data's mirrored and transposed filter) before it, ${KERNEL_NAME}_finish (bwd_weight's Split-K) after.

// [SECTION] Prepare
//
// Launched first, and timed with the convolution, with FOLD or bwd_data's transposed filter.
//
// bwd_data with GATHER=halo or DATA_FILTER=transposed: Wf is the filter mirrored (tap t of Z x Y x
// X becomes taps - 1 - t, each axis reversed) and transposed (G x C x taps x K), one element a
// thread. At stride 1 dx is then the forward convolution of dy with Wf (padding dil (filter - 1) -
// pad), K channels summed; strided, each stride phase reads its taps' rows of Wf.
//
// FOLD: a layer with few channels (an
// image's 3) gives the TMA rows shorter than its 16 bytes and each tap only C values to sum. Xf
// holds, for every output column wo of every input row, the row's X taps side by side as one
// pixel's channels, j = tap * C + c: x at column wo * stride_w - pad_w + tap * dil_w (zero past
// the image's edges), zeros from X * C to CE. Forward, Wf holds each filter's rows likewise
// (bwd_weight computes the filter's gradient in that folded layout, which is dw's own).
//
// The first kFoldRowBlocks blocks (or one per row, if fewer) walk the input rows (n, d, h): each
// copies a row into shared memory, between pad_w columns of zeros on each side that it writes
// once, then writes the row of Xf in order, one 16-byte chunk (8 channels) a thread. A thread
// keeps the same group and chunk for every column and row it visits, so its divisions are done
// once. The blocks after them fold the filter, a chunk a thread. The copy is instruction-bound
// unless the loops stay this lean: with one group and no dilation a chunk is 8 neighbouring
// values of the row.

namespace kx_conv_wgmma {

constexpr int kFoldRowBlocks = 1024;  // the manifest's fold launch assumes the same

struct alignas(16) Chunk8 {
    T v[8];
};

// One folded column: chunk (g, j0 / 8) at line index `at`, that of (tap0, channel 0) in the row.
__device__ __forceinline__ Chunk8 foldedChunk(const T* line, int at, int tap0, int c0, int j0, int X, int C, int rowChannels, int tapStep,
                                              bool contiguous) {
    Chunk8 chunk;
    if (contiguous) {  // one group, no dilation: channel j of the column is line[at - tap0 * C + j]
        const T* src = line + at - tap0 * C + j0;
#pragma unroll
        for (int e = 0; e < 8; ++e) chunk.v[e] = j0 + e < rowChannels ? src[e] : T(0.0f);
        return chunk;
    }
    int tap = tap0, c = c0;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        chunk.v[e] = tap < X ? line[at + c] : T(0.0f);
        if (++c == C) c = 0, ++tap, at += tapStep;
    }
    return chunk;
}

}  // namespace kx_conv_wgmma

extern "C" __global__ void __launch_bounds__(256) ${KERNEL_NAME}_prepare(KX_CONV_WGMMA_PARAMS) {
    (void)D, (void)partials, (void)tmA, (void)tmB, (void)tmH, (void)Xf;
    if constexpr (kFilterTransposed) {
        const int taps = Z * Y * X;
        const long long i = blockIdx.x * 256LL + threadIdx.x;
        if (i >= static_cast<long long>(G) * C * taps * K) return;
        const int k = static_cast<int>(i % K), mirrored = static_cast<int>(i / K % taps);
        const long long gc = i / (static_cast<long long>(K) * taps);  // g * C + c
        const long long g = gc / C, c = gc % C;
        Wf[i] = B[((g * K + k) * taps + (taps - 1 - mirrored)) * C + c];
    }
    if constexpr (kFold) {
        const int Wo = (Wi + 2 * pad_w - dil_w * (X - 1) - 1) / stride_w + 1;
        const int folded = foldedChannels(X, C), chunks = folded / 8, rowChannels = X * C;
        const int rows = N * Di * Hi, rowBlocks = min(rows, kFoldRowBlocks), GC = G * C;
        const int tid = static_cast<int>(threadIdx.x);
        const T* __restrict__ x = kDir == 2 ? B : A;
        if (static_cast<int>(blockIdx.x) >= rowBlocks) {  // forward's filter: rows (g, k, z, y) of X * C contiguous values, then zeros
            const long long chunk = (blockIdx.x - rowBlocks) * 256LL + tid;
            if (chunk >= static_cast<long long>(G) * K * Z * Y * chunks) return;
            const long long row = chunk / chunks;
            const int j0 = static_cast<int>(chunk % chunks) * 8;
            Chunk8 out;
#pragma unroll
            for (int e = 0; e < 8; ++e) out.v[e] = j0 + e < rowChannels ? B[row * rowChannels + j0 + e] : T(0.0f);
            reinterpret_cast<Chunk8*>(Wf)[chunk] = out;
            return;
        }
        // The row in shared memory: columns -pad_w .. Wi + pad_w - 1, the padding zeros.
        extern __shared__ unsigned char smemRaw[];
        T* line = reinterpret_cast<T*>(smemRaw);
        const int padElems = pad_w * GC, rowElems = Wi * GC;
        for (int i = tid; i < padElems; i += 256) line[i] = line[padElems + rowElems + i] = T(0.0f);
        // Thread: group g, chunk j0 / 8 of columns slot, slot + perPass, ... of each row.
        const int perColumn = G * chunks, perPass = 256 / perColumn;
        const int slot = tid / perColumn, q = tid % perColumn;
        const int g = q / chunks, j0 = q % chunks * 8, tap0 = j0 / C, c0 = j0 % C;
        const bool contiguous = G == 1 && dil_w == 1;
        for (int row = static_cast<int>(blockIdx.x); row < rows; row += rowBlocks) {
            __syncthreads();  // the previous row's chunks are written
            const T* src = x + static_cast<long long>(row) * rowElems;
            for (int i = tid; i < rowElems; i += 256) line[padElems + i] = src[i];
            __syncthreads();
            if (slot >= perPass) continue;
            Chunk8* out = reinterpret_cast<Chunk8*>(Xf) + static_cast<long long>(row) * Wo * perColumn;
            for (int wo = slot; wo < Wo; wo += perPass)
                out[wo * perColumn + q] = foldedChunk(line, (wo * stride_w + tap0 * dil_w) * GC + g * C, tap0, c0, j0, X, C, rowChannels, dil_w * GC,
                                                      contiguous);
        }
    }
}

// [SECTION] Split-K finish
//
// Launched only for bwd_weight with SPLITK > 1: each element of dw is the sum of its SPLITK
// partial sums, added in split order (the result does not depend on which unit finished first)
// and rounded once.
extern "C" __global__ void __launch_bounds__(256) ${KERNEL_NAME}_finish(KX_CONV_WGMMA_PARAMS) {
    (void)A, (void)B, (void)Xf, (void)Wf, (void)tmA, (void)tmB, (void)tmH;
    if constexpr (kDir == 2 && kSplitK > 1) {
        const Problem p = makeProblem(KX_CONV_WGMMA_SIZES);
        const long long total = static_cast<long long>(G) * K * p.taps * p.dwC;  // every element of dw
        for (long long i = blockIdx.x * 256LL + threadIdx.x; i < total; i += static_cast<long long>(gridDim.x) * 256) {
            float sum = 0.0f;
#pragma unroll
            for (int s = 0; s < kSplitK; ++s) sum += partials[s * total + i];
            D[i] = T(sum);
        }
    }
}

// ---- end of templates/conv_wgmma/prepare_and_finish.cuh ----
