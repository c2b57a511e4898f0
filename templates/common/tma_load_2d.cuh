// ---- templates/common/tma_load_2d.cuh: one TMA copy of a 2-D box ----

// One TMA copy of a box of the tensor at (x = k, y = row) into shared memory; the mbarrier
// receives the bytes. Parts of the box outside the matrix are filled with zeros.
__device__ __forceinline__ void tmaLoad2d(unsigned dst, const TensorMap& map, int x, int y, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(bar)
        : "memory");
}

// ---- end of templates/common/tma_load_2d.cuh ----
