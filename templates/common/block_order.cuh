// ---- templates/common/block_order.cuh: the GEMM blocks' order for L2 reuse ----

// Block order: down a column of kGroupM block rows, then on to the next column. The blocks that
// run together read a few rows of A and columns of B, which L2 keeps between them. Returns the
// first row (x) and column (y) of block blockIdx.x's kBM x kBN tile of the M x N output.
__device__ __forceinline__ int2 groupedBlockOrigin(int M, int N) {
    const int blocksM = (M + kBM - 1) / kBM, blocksN = (N + kBN - 1) / kBN;
    const int id = static_cast<int>(blockIdx.x);
    const int firstM = id / (kGroupM * blocksN) * kGroupM;
    const int groupRows = min(blocksM - firstM, kGroupM);
    return make_int2((firstM + id % groupRows) * kBM, (id % (kGroupM * blocksN)) / groupRows * kBN);
}

// ---- end of templates/common/block_order.cuh ----
