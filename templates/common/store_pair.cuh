// ---- templates/common/store_pair.cuh: the epilogue's store of two neighbouring outputs ----

// C[row, col] and C[row, col + 1] of an M x N row-major C, converted to Out (rounded, for a
// narrower float): one store of both when the pair is aligned (pairOk) and inside the matrix, else
// each element that is inside.
template <class Out, class Acc>
__device__ __forceinline__ void storePair(Out* __restrict__ C, int M, int N, int row, int col, Acc x, Acc y, bool pairOk) {
    if (row >= M) return;
    Out* p = C + static_cast<long long>(row) * N + col;
    if (pairOk && col + 1 < N) {
        struct alignas(2 * sizeof(Out)) Pair { Out v[2]; } pair;
        pair.v[0] = Out(x);
        pair.v[1] = Out(y);
        *reinterpret_cast<Pair*>(p) = pair;
    } else {
        if (col < N) p[0] = Out(x);
        if (col + 1 < N) p[1] = Out(y);
    }
}

// ---- end of templates/common/store_pair.cuh ----
