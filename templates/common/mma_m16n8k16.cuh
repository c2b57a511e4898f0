// ---- templates/common/mma_m16n8k16.cuh: one tensor-core mma.sync (${mma_type}, fp32 accumulators) ----

// d += a * b for a 16 x 16 piece of A (4 registers of 2 elements), a 16 x 8 piece of B (2
// registers) and a 16 x 8 piece of D in fp32: lane holds d[0], d[1] at row lane/4, columns
// 2*(lane%4) and +1, and d[2], d[3] eight rows below.
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.${mma_type}.${mma_type}.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// ---- end of templates/common/mma_m16n8k16.cuh ----
