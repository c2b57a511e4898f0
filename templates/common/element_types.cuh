// ---- templates/common/element_types.cuh: fp32 <-> T, and VEC elements per load or store ----

__device__ __forceinline__ float toFloat(float v) { return v; }
__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class U> __device__ __forceinline__ U fromFloat(float v);
template <> __device__ __forceinline__ float fromFloat<float>(float v) { return v; }
template <> __device__ __forceinline__ __half fromFloat<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// kVec elements of T moved by one load or store instruction.
struct alignas(kVec * sizeof(T)) Pack {
    T v[kVec];
};

// ---- end of templates/common/element_types.cuh ----
