// ---- templates/common/attention_math.cuh: the softmax's fast exponential and its -inf ----

// 2^x in one MUFU.EX2 instruction (about 2 ulp); exp(x) = 2^(x * log2 e), and log2 e is folded
// into the scale, so each probability costs one FFMA and one EX2.
__device__ __forceinline__ float exp2Fast(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float negativeInfinity() { return __int_as_float(0xff800000); }

// ---- end of templates/common/attention_math.cuh ----
