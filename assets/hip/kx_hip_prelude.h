// kx_hip_prelude.h: the part of <hip/hip_runtime.h> that Kernel Explorer's HIP templates use,
// built from clang's AMDGPU builtins alone, so that a HIP template compiles to AMD ISA with
// nothing but clang (clang++ -x hip --cuda-device-only -nogpulib -nogpuinc, no ROCm installed).
//
// Kernel Explorer force-includes this file (-include) and defines KX_HIP_PRELUDE; the generated
// sources include <hip/hip_runtime.h> only when KX_HIP_PRELUDE is not defined, so the same file
// builds with hipcc on a ROCm machine, where the real runtime headers replace everything here.
//
// Device code only: there is no host side, no device library (ocml/ockl) and no printf. Math is
// what clang lowers to AMDGPU instructions itself (fmaxf, sqrtf, expf, fma, ...).
//
// Index
//   [SECTION] Qualifiers
//   [SECTION] Work-item and workgroup ids
//   [SECTION] Barriers and fences
//   [SECTION] Lane ids, shuffles and votes
//   [SECTION] Atomics
//   [SECTION] Half and bfloat16
//   [SECTION] Math
#pragma once

#ifndef __HIP__
#error "kx_hip_prelude.h is for HIP device compiles (clang -x hip)"
#endif

// [SECTION] Qualifiers

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
// HIP's __launch_bounds__(MAX_THREADS[, MIN_WAVES_PER_EU]): the flat workgroup size bound, and
// optionally the waves per execution unit (SIMD) the compiler must leave room for.
#define KX_LB_1(maxThreads) __attribute__((amdgpu_flat_work_group_size(1, maxThreads)))
#define KX_LB_2(maxThreads, minWaves) \
    __attribute__((amdgpu_flat_work_group_size(1, maxThreads), amdgpu_waves_per_eu(minWaves)))
#define KX_LB_PICK(_1, _2, name, ...) name
#define __launch_bounds__(...) KX_LB_PICK(__VA_ARGS__, KX_LB_2, KX_LB_1, unused)(__VA_ARGS__)

// Wave size: a compile-time constant on AMD (64 on CDNA).
#define warpSize __AMDGCN_WAVEFRONT_SIZE

// [SECTION] Work-item and workgroup ids
//
// threadIdx.x and friends as properties, the way clang's own CUDA wrapper declares them: each read
// is one builtin (a VGPR for the work-item id, an SGPR for the workgroup id, a load of the
// kernel's hidden arguments for blockDim and gridDim).

struct kx_dim3 {
    unsigned int x = 1, y = 1, z = 1;
    __device__ __host__ constexpr kx_dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef kx_dim3 dim3;

#define KX_BUILTIN_TRIPLE(Name, FX, FY, FZ)                                          \
    struct Name {                                                                    \
        static __device__ __forceinline__ unsigned int getX() { return FX; }         \
        static __device__ __forceinline__ unsigned int getY() { return FY; }         \
        static __device__ __forceinline__ unsigned int getZ() { return FZ; }         \
        __declspec(property(get = getX)) unsigned int x;                             \
        __declspec(property(get = getY)) unsigned int y;                             \
        __declspec(property(get = getZ)) unsigned int z;                             \
    }

KX_BUILTIN_TRIPLE(kx_thread_idx, __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
                  __builtin_amdgcn_workitem_id_z());
KX_BUILTIN_TRIPLE(kx_block_idx, __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
                  __builtin_amdgcn_workgroup_id_z());
KX_BUILTIN_TRIPLE(kx_block_dim, __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
                  __builtin_amdgcn_workgroup_size_z());
// gridDim: the workgroup counts the runtime passes as the first hidden kernel arguments
// (hidden_block_count_x/y/z, code object v5, clang 19's default), as HIP's own device library reads them.
__device__ __forceinline__ unsigned int kx_block_count(int dim) {
    return static_cast<const unsigned int*>(__builtin_amdgcn_implicitarg_ptr())[dim];
}
KX_BUILTIN_TRIPLE(kx_grid_dim, kx_block_count(0), kx_block_count(1), kx_block_count(2));
#undef KX_BUILTIN_TRIPLE

extern const __device__ __attribute__((weak)) kx_thread_idx threadIdx;
extern const __device__ __attribute__((weak)) kx_block_idx blockIdx;
extern const __device__ __attribute__((weak)) kx_block_dim blockDim;
extern const __device__ __attribute__((weak)) kx_grid_dim gridDim;

// [SECTION] Barriers and fences
//
// As HIP does it: release the workgroup's writes, wait at the barrier, acquire the others'.

__device__ __forceinline__ void __syncthreads() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ __forceinline__ void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__device__ __forceinline__ void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ __forceinline__ void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }

// [SECTION] Lane ids, shuffles and votes
//
// Shuffles go through ds_bpermute_b32 (a crossbar in the LDS unit that does not touch LDS memory):
// lane i reads the 32-bit value of the lane whose byte address (lane * 4) it passes. `width`
// splits the wave into segments, as in HIP: a source outside the caller's segment reads itself.

__device__ __forceinline__ unsigned int __lane_id() {
    return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

__device__ __forceinline__ int kx_bpermute(int srcLane, int value) { return __builtin_amdgcn_ds_bpermute(srcLane << 2, value); }

__device__ __forceinline__ int __shfl(int var, int srcLane, int width = warpSize) {
    const int self = static_cast<int>(__lane_id());
    const int index = srcLane + (self & ~(width - 1));
    return kx_bpermute(index, var);
}
__device__ __forceinline__ int __shfl_xor(int var, int laneMask, int width = warpSize) {
    const int self = static_cast<int>(__lane_id());
    int index = self ^ laneMask;
    index = index >= ((self + width) & ~(width - 1)) ? self : index;
    return kx_bpermute(index, var);
}
__device__ __forceinline__ int __shfl_down(int var, unsigned int delta, int width = warpSize) {
    const int self = static_cast<int>(__lane_id());
    int index = self + static_cast<int>(delta);
    index = static_cast<int>(static_cast<unsigned int>(self & (width - 1)) + delta) >= width ? self : index;
    return kx_bpermute(index, var);
}
__device__ __forceinline__ int __shfl_up(int var, unsigned int delta, int width = warpSize) {
    const int self = static_cast<int>(__lane_id());
    int index = self - static_cast<int>(delta);
    index = index < (self & ~(width - 1)) ? self : index;
    return kx_bpermute(index, var);
}
__device__ __forceinline__ unsigned int __shfl(unsigned int v, int s, int w = warpSize) { return static_cast<unsigned int>(__shfl(static_cast<int>(v), s, w)); }
__device__ __forceinline__ unsigned int __shfl_xor(unsigned int v, int m, int w = warpSize) { return static_cast<unsigned int>(__shfl_xor(static_cast<int>(v), m, w)); }
__device__ __forceinline__ unsigned int __shfl_down(unsigned int v, unsigned int d, int w = warpSize) { return static_cast<unsigned int>(__shfl_down(static_cast<int>(v), d, w)); }
__device__ __forceinline__ unsigned int __shfl_up(unsigned int v, unsigned int d, int w = warpSize) { return static_cast<unsigned int>(__shfl_up(static_cast<int>(v), d, w)); }
__device__ __forceinline__ float __shfl(float v, int s, int w = warpSize) { return __builtin_bit_cast(float, __shfl(__builtin_bit_cast(int, v), s, w)); }
__device__ __forceinline__ float __shfl_xor(float v, int m, int w = warpSize) { return __builtin_bit_cast(float, __shfl_xor(__builtin_bit_cast(int, v), m, w)); }
__device__ __forceinline__ float __shfl_down(float v, unsigned int d, int w = warpSize) { return __builtin_bit_cast(float, __shfl_down(__builtin_bit_cast(int, v), d, w)); }
__device__ __forceinline__ float __shfl_up(float v, unsigned int d, int w = warpSize) { return __builtin_bit_cast(float, __shfl_up(__builtin_bit_cast(int, v), d, w)); }

// 64-bit values move as two 32-bit halves.
#define KX_SHFL_64(Name, Arg)                                                                          \
    __device__ __forceinline__ long long Name(long long v, Arg a, int w = warpSize) {                  \
        const int lo = Name(static_cast<int>(v), a, w);                                                \
        const int hi = Name(static_cast<int>(static_cast<unsigned long long>(v) >> 32), a, w);         \
        return static_cast<long long>((static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32) | static_cast<unsigned int>(lo)); \
    }
KX_SHFL_64(__shfl, int)
KX_SHFL_64(__shfl_xor, int)
KX_SHFL_64(__shfl_down, unsigned int)
KX_SHFL_64(__shfl_up, unsigned int)
#undef KX_SHFL_64

// One bit per lane of the wave (64 bits on CDNA).
__device__ __forceinline__ unsigned long long __ballot(int predicate) { return __builtin_amdgcn_ballot_w64(predicate != 0); }
__device__ __forceinline__ int __any(int predicate) { return __ballot(predicate) != 0; }
__device__ __forceinline__ int __all(int predicate) { return __ballot(predicate) == __ballot(1); }
__device__ __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__device__ __forceinline__ int __popc(unsigned int x) { return __builtin_popcount(x); }
__device__ __forceinline__ int __ffsll(unsigned long long x) { return x == 0 ? 0 : __builtin_ctzll(x) + 1; }
__device__ __forceinline__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }

// [SECTION] Atomics
//
// Device-wide (agent scope) and relaxed, like CUDA's atomicAdd and friends.

// One line per read-modify-write: CUDA's name, and the HIP builtin that does it.
#define KX_RELAXED_AGENT_ATOMIC(name, builtin)                                        \
    template <typename T>                                                             \
    __device__ __forceinline__ T name(T* address, T value) {                          \
        return builtin(address, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  \
    }
KX_RELAXED_AGENT_ATOMIC(atomicAdd, __hip_atomic_fetch_add)
KX_RELAXED_AGENT_ATOMIC(atomicMax, __hip_atomic_fetch_max)
KX_RELAXED_AGENT_ATOMIC(atomicMin, __hip_atomic_fetch_min)
KX_RELAXED_AGENT_ATOMIC(atomicExch, __hip_atomic_exchange)
#undef KX_RELAXED_AGENT_ATOMIC
template <typename T>
__device__ __forceinline__ T atomicCAS(T* address, T compare, T value) {
    __hip_atomic_compare_exchange_strong(address, &compare, value, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    return compare;
}
// ((old >= limit) ? 0 : old + 1), in one instruction (global_atomic_inc).
__device__ __forceinline__ unsigned int atomicInc(unsigned int* address, unsigned int limit) {
    return __builtin_amdgcn_atomic_inc32(address, limit, __ATOMIC_RELAXED, "agent");
}

// [SECTION] Half and bfloat16
//
// Native types stand in for HIP's __half and __hip_bfloat16 structs; the templates use only the
// conversion functions, which both provide.

typedef _Float16 __half;
typedef __bf16 __hip_bfloat16;
__device__ __forceinline__ float __half2float(__half x) { return static_cast<float>(x); }
__device__ __forceinline__ __half __float2half(float x) { return static_cast<__half>(x); }
__device__ __forceinline__ float __bfloat162float(__hip_bfloat16 x) { return static_cast<float>(x); }
__device__ __forceinline__ __hip_bfloat16 __float2bfloat16(float x) { return static_cast<__hip_bfloat16>(x); }
// Round to nearest even, like the conversions above.
__device__ __forceinline__ __half __float2half_rn(float x) { return static_cast<__half>(x); }
__device__ __forceinline__ __hip_bfloat16 __float2bfloat16_rn(float x) { return static_cast<__hip_bfloat16>(x); }

// [SECTION] Math
//
// Only what clang turns into instructions; no ocml behind it.

__device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__device__ __forceinline__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__device__ __forceinline__ float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__device__ __forceinline__ unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
// Rounded to nearest, never fused into an FMA (clang contracts a * b + c across statements otherwise).
__device__ __forceinline__ float __fmul_rn(float a, float b) {
#pragma clang fp contract(off)
    return a * b;
}
__device__ __forceinline__ float __fadd_rn(float a, float b) {
#pragma clang fp contract(off)
    return a + b;
}
__device__ __forceinline__ float __fsub_rn(float a, float b) {
#pragma clang fp contract(off)
    return a - b;
}
// Correctly rounded: HIP's fp32 division and sqrt are IEEE unless fast math is asked for.
__device__ __forceinline__ float __fdiv_rn(float a, float b) { return a / b; }
__device__ __forceinline__ int __float2int_rz(float x) { return static_cast<int>(x); }  // C++ truncates
__device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
__device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
__device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ __forceinline__ float sqrtf(float x) { return __builtin_sqrtf(x); }
__device__ __forceinline__ float rsqrtf(float x) { return __builtin_amdgcn_rsqf(x); }
__device__ __forceinline__ float expf(float x) { return __builtin_expf(x); }
__device__ __forceinline__ float exp2f(float x) { return __builtin_exp2f(x); }
__device__ __forceinline__ float logf(float x) { return __builtin_logf(x); }
// tanh from one exponential: 1 - 2 / (e^(2x) + 1), exact at the limits (+-1) and within a few
// ulps elsewhere; ocml's is more careful near 0, where this loses relative accuracy.
__device__ __forceinline__ float tanhf(float x) { return 1.0f - 2.0f / (__builtin_expf(2.0f * x) + 1.0f); }
__device__ __forceinline__ float __expf(float x) { return __builtin_amdgcn_exp2f(x * 1.4426950408889634f); }
__device__ __forceinline__ float __fdividef(float a, float b) { return a * __builtin_amdgcn_rcpf(b); }
// The high 32 bits of a 32 x 32-bit product (v_mul_hi_u32).
__device__ __forceinline__ unsigned int __umulhi(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
__device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
__device__ __forceinline__ unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
__device__ __forceinline__ long long min(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ long long max(long long a, long long b) { return a > b ? a : b; }
