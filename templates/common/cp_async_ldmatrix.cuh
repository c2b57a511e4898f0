// ---- templates/common/cp_async_ldmatrix.cuh: the Ampere copy and fragment-load wrappers ----

__device__ __forceinline__ unsigned smemAddress(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// cp.async copies 16 bytes global -> shared without passing through registers, so the next
// stages load while this one is multiplied. srcBytes = 0 reads nothing and writes zeros: rows
// and columns past the data become zeros (what each template makes of them is said there).
__device__ __forceinline__ void cpAsync16(unsigned dst, const void* src, int srcBytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(srcBytes) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most Pending of this thread's committed groups are in flight; other threads'
// copies become visible only after the __syncthreads() that follows.
template <int Pending>
__device__ __forceinline__ void cpAsyncWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory"); }

// ldmatrix.x4: four 8 x 8 matrices of 16-bit elements; lanes 8i..8i+7 give the addresses of
// matrix i's 8 rows (16 bytes each), and every lane receives, in register i, the two elements of
// matrix i that the mma expects in that lane: row lane/4, columns 2*(lane%4) and +1. The .trans
// form hands out the transpose, which turns a k-major tile into n-major fragments.
__device__ __forceinline__ void ldmatrixX4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrixX4Trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// ---- end of templates/common/cp_async_ldmatrix.cuh ----
