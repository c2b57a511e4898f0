// ---- templates/common/wgmma_staged_store.cuh: a warp's wgmma outputs stored through shared memory ----
// Uses the including template's TAcc (the accumulators), TOut (C), kBN (the
// tile's columns), kAcc (accumulators per thread of an m64 block) and kStoreChunkCols (columns of
// C stored per pass: 128 bytes of them, or 64 when the tile is that narrow; the tile is whole
// chunks wide wherever this is called).

constexpr int kStoreChunkBytes = kStoreChunkCols * int(sizeof(TOut));
constexpr int kStorePieces = kStoreChunkBytes / 16;  // 16-byte pieces of a chunk's row
constexpr int kStoreRowsPerStep = 32 / kStorePieces;  // rows a warp reads back per step, a piece a lane
static_assert(kStorePieces == 8 || kStorePieces == 4, "a chunk row is 128 or 64 bytes");

// Where piece p of row r sits: XOR-swizzled so that the 8 rows one fragment write touches fall in
// different banks (128-byte rows: by r mod 8; 64-byte rows, two to a 128-byte bank line: by r / 2).
__device__ __forceinline__ int stagedPiece(int r, int p) { return kStorePieces == 8 ? p ^ (r % 8) : p ^ ((r / 2) % 4); }

// One consumer warp's 16 rows of an m64 block (columns col0..col0+kBN of a matrix N wide; the warp's
// row r, 0..15, is stored if hasRow(r), from rowStart(r) on) through its 2 KB of
// shared memory at `buffer`, a column chunk at a time: the fragments are written with their
// 16-byte pieces swizzled by row, then each lane reads one piece back, kStoreRowsPerStep rows per
// step, and the warp stores whole chunk rows (element by element at the matrix's edge or when
// rows are not 16-byte aligned).
template <class HasRow, class RowStart>
__device__ __forceinline__ void storeStagedRows(HasRow hasRow, RowStart rowStart, int N, int col0, const TAcc (&acc)[kAcc], unsigned char* buffer, bool vectorOk) {
    constexpr int kPieceCols = 16 / int(sizeof(TOut));
    const int lane = static_cast<int>(threadIdx.x) % 32;
#pragma unroll
    for (int q = 0; q < kBN / kStoreChunkCols; ++q) {
#pragma unroll
        for (int jj = 0; jj < kStoreChunkCols / 8; ++jj) {
            const int j = q * (kStoreChunkCols / 8) + jj;  // the n8 block of the fragment
            const int byte = (jj * 8 + (lane % 4) * 2) * int(sizeof(TOut));
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = lane / 4 + 8 * h;
                struct alignas(2 * sizeof(TOut)) Pair { TOut v[2]; } pair;
                pair.v[0] = TOut(acc[4 * j + 2 * h]);
                pair.v[1] = TOut(acc[4 * j + 2 * h + 1]);
                *reinterpret_cast<Pair*>(buffer + r * kStoreChunkBytes + stagedPiece(r, byte / 16) * 16 + byte % 16) = pair;
            }
        }
        __syncwarp();
#pragma unroll
        for (int step = 0; step < 16 / kStoreRowsPerStep; ++step) {
            const int r = step * kStoreRowsPerStep + lane / kStorePieces, piece = lane % kStorePieces;
            const uint4 v = *reinterpret_cast<const uint4*>(buffer + r * kStoreChunkBytes + stagedPiece(r, piece) * 16);
            const int gc = col0 + q * kStoreChunkCols + piece * kPieceCols;
            if (hasRow(r)) {
                TOut* p = rowStart(r) + gc;
                if (vectorOk && gc + kPieceCols <= N) {
                    *reinterpret_cast<uint4*>(p) = v;
                } else {
                    const TOut* e = reinterpret_cast<const TOut*>(&v);
#pragma unroll
                    for (int k = 0; k < kPieceCols; ++k)
                        if (gc + k < N) p[k] = e[k];
                }
            }
        }
        __syncwarp();  // the next chunk overwrites the buffer
    }
}

// The same for rows row0.. of an M x N matrix whose rows are ldc elements apart.
__device__ __forceinline__ void storeStaged(TOut* __restrict__ C, int M, int N, long long ldc, int row0, int col0, const TAcc (&acc)[kAcc],
                                            unsigned char* buffer, bool vectorOk) {
    storeStagedRows([=](int r) { return row0 + r < M; }, [=](int r) { return C + (row0 + r) * ldc; }, N, col0, acc, buffer, vectorOk);
}

// ---- end of templates/common/wgmma_staged_store.cuh ----
