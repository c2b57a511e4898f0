// ---- templates/common/store_pair.cuh: the epilogue's store of two neighbouring outputs ----

// C[row, col] and C[row, col + 1] of an M x N row-major C, rounded to T: one store of both when
// the pair is aligned (pairOk) and inside the matrix, else each element that is inside.
__device__ __forceinline__ void storePair(T* __restrict__ C, int M, int N, int row, int col, float x, float y, bool pairOk) {
    if (row >= M) return;
    T* p = C + static_cast<long long>(row) * N + col;
    if (pairOk && col + 1 < N) {
        struct alignas(2 * sizeof(T)) Pair { T v[2]; } pair;
        pair.v[0] = T(x);
        pair.v[1] = T(y);
        *reinterpret_cast<Pair*>(p) = pair;
    } else {
        if (col < N) p[0] = T(x);
        if (col + 1 < N) p[1] = T(y);
    }
}

// ---- end of templates/common/store_pair.cuh ----
