// ---- templates/common/fragments.cuh: the swizzled shared-memory layout and the mma.sync fragments ----

// Shared memory has 32 banks of 4 bytes: 128 bytes, eight 16-byte chunks, per row of banks. An
// ldmatrix reads 8 rows of a tile at the same column chunk; stored plainly, rows 64 or 128 bytes
// apart land on the same chunk of the bank row and the reads are served one after another.
// The swizzle stores chunk c of row r at chunk c ^ (r mod 8) (for 64-byte rows, taken over pairs of
// rows, which share a 128-byte line): the 8 rows then hit 8 different chunks, and the 16-byte
// cp.async writes of 8 neighbouring threads do too. No padding is needed, so rows stay dense.
// Returns the chunk's index in the tile (16 bytes each).
template <int ChunksPerRow>
__device__ __forceinline__ int swizzledChunk(int row, int chunk) {
    if constexpr (ChunksPerRow >= 8) {
        return row * ChunksPerRow + (chunk ^ (row & 7));
    } else {  // 4 chunks per row: two rows share each 128-byte line
        const int linear = row * ChunksPerRow + chunk;
        const int line = linear >> 3;
        return (line << 3) | ((linear & 7) ^ (line & 7));
    }
}

// Accumulators of M x N mma tiles (fp32, or int32 for int8), 4 per lane each, set to zero.
template <class Acc, int M, int N>
__device__ __forceinline__ void zeroAccumulators(Acc (&acc)[M][N][4]) {
#pragma unroll
    for (int mi = 0; mi < M; ++mi)
#pragma unroll
        for (int ni = 0; ni < N; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][ni][e] = Acc(0);
}

// Fragments of k-step kk for Tiles mma tiles of a K-major swizzled tile, one ldmatrix.x4 each:
// tile i's at byte offset offset[i] for k-step 0; each k-step (16 two-byte elements) is two
// 16-byte chunks further along the row, found through the same XOR as the offset's chunk.
template <int Tiles>
__device__ __forceinline__ void ldmatrixSwizzledX4(unsigned (&frag)[Tiles][4], unsigned tile, const int (&offset)[Tiles], int kk) {
#pragma unroll
    for (int i = 0; i < Tiles; ++i) ldmatrixX4(frag[i], tile + (offset[i] ^ (kk * 32)));
}

// The same from an MN-major tile (its rows run along K), read transposed: each k-step is
// stepBytes further down the tile.
template <int Tiles>
__device__ __forceinline__ void ldmatrixTransposedX4(unsigned (&frag)[Tiles][4], unsigned tile, const int (&offset)[Tiles], int kk,
                                                     int stepBytes) {
#pragma unroll
    for (int i = 0; i < Tiles; ++i) ldmatrixX4Trans(frag[i], tile + offset[i] + kk * stepBytes);
}

// B's fragments from one ldmatrix.x4 (r): registers (b0, b1) of mma tile 2j, then of tile 2j + 1.
template <int Tiles>
__device__ __forceinline__ void storeBFragments(unsigned (&b)[Tiles][2], int nj, const unsigned (&r)[4]) {
    b[2 * nj][0] = r[0];
    b[2 * nj][1] = r[1];
    b[2 * nj + 1][0] = r[2];
    b[2 * nj + 1][1] = r[3];
}

// ---- end of templates/common/fragments.cuh ----
