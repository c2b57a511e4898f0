// ---- templates/common/gpu_scope_atomics.cuh: GPU-scope loads and stores of published flags (scan, filter, radix_sort) ----

// GPU-scope loads and stores for flags that blocks publish to each other (a decoupled look-back's
// tile status). Relaxed: atomic (never torn) and not cached in L1, but no ordering with other
// accesses. Acquire: later loads of this thread see whatever the releasing writer wrote before
// its store. Release: every earlier write of this thread is visible to a reader that acquires
// the value. 32- and 64-bit words.

__device__ __forceinline__ unsigned loadRelaxed(const unsigned* p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long loadRelaxed(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long loadAcquire(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void storeRelaxed(unsigned* p, unsigned v) { asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void storeRelaxed(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void storeRelease(unsigned long long* p, unsigned long long v) {
    asm volatile("st.release.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// ---- end of templates/common/gpu_scope_atomics.cuh ----
