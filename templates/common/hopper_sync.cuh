// ---- templates/common/hopper_sync.cuh: TMA descriptors, mbarriers, wgmma fences, setmaxnreg ----

// A TMA descriptor, passed by value in the kernel's parameter space (__grid_constant__); its
// contents are opaque to the kernel, only its address is used.
struct alignas(64) TensorMap {
    unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned smemAddress(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// An mbarrier counts arrivals and, for TMA, bytes: a phase completes when `count` threads have
// arrived and every expected byte has landed. Waiters name the parity of the phase they wait for.
__device__ __forceinline__ void mbarrierInit(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbarrierArrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrives, and tells the barrier to expect `bytes` more from asynchronous copies in this phase.
__device__ __forceinline__ void mbarrierArriveExpectBytes(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrierWait(unsigned bar, unsigned parity) {
    unsigned done = 0;
    do {
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
}

// A block's ring of `stages` stage barriers, initialised by thread 0 before any thread uses
// them: full[s] completes on the producer's arrive plus the bytes its copies bring, empty[s] on
// one arrive per consumer warpgroup. The fence makes the initialisation visible to the TMA unit.
__device__ __forceinline__ void initStageBarriers(unsigned long long* fullBar, unsigned long long* emptyBar, int stages, unsigned consumers) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) {
            mbarrierInit(smemAddress(&fullBar[s]), 1);
            mbarrierInit(smemAddress(&emptyBar[s]), consumers);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
}

// A wgmma shared-memory matrix descriptor for a tile the TMA wrote with the 128-byte swizzle:
// 128-byte rows, 8-row groups 1024 bytes apart (the stride byte offset), swizzle mode 1 in bits
// 62-63. The leading byte offset matters only for an operand read N-major (transposed, as
// attention's V): there it is the distance from one 64-column slice to the next.
__device__ __forceinline__ unsigned long long descriptor(unsigned addr, unsigned leadingBytes = 16) {
    return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) | (static_cast<unsigned long long>(leadingBytes >> 4) << 16) |
           (static_cast<unsigned long long>(1024 >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wgmmaFence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// A consumer's start of k-slice `slice`: waits until the slice's stage of the ring (`stages` of
// `stageBytes` from `base`) is full, and fences the accumulators before the wgmma's that read
// it. Returns the stage's address, and the stage in `stage`.
__device__ __forceinline__ unsigned beginFullStage(unsigned long long* fullBar, int slice, int stages, unsigned base, int stageBytes, int& stage) {
    stage = slice % stages;
    mbarrierWait(smemAddress(&fullBar[stage]), (slice / stages) & 1);
    wgmmaFence();
    return base + stage * stageBytes;
}

__device__ __forceinline__ void wgmmaCommit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void wgmmaWait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory"); }

// A consumer warpgroup's own barrier among its 128 threads: id 1 for consumer 0, 2 for consumer 1
// (0 is __syncthreads'). The ids are immediates: with an id from a register ptxas must assume
// that any of the block's 16 barriers may be used.
__device__ __forceinline__ void consumerBarrier(int consumer) {
    if (consumer == 0) asm volatile("bar.sync 1, 128;\n" ::: "memory");
    else asm volatile("bar.sync 2, 128;\n" ::: "memory");
}

// setmaxnreg moves registers between warpgroups: the producer needs few, the consumers' accumulators many.
__device__ __forceinline__ void growRegisters() { asm volatile("setmaxnreg.inc.sync.aligned.u32 ${CONSUMER_REGS};\n"); }
__device__ __forceinline__ void shrinkRegisters() { asm volatile("setmaxnreg.dec.sync.aligned.u32 ${PRODUCER_REGS};\n"); }

// ---- end of templates/common/hopper_sync.cuh ----
