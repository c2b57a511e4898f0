// ---- templates/common/pack_pair.cuh: two fp32 values as one register of T ----

// Two fp32 values rounded to ${dtype} and packed in one register, the lower index in the low half.
__device__ __forceinline__ unsigned packPair(float lo, float hi) {
    struct alignas(4) Pair { T v[2]; } p;
    p.v[0] = T(lo);
    p.v[1] = T(hi);
    return *reinterpret_cast<unsigned*>(&p);
}

// ---- end of templates/common/pack_pair.cuh ----
