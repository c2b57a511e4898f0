// ---- templates/common/wgmma_ss.cuh: wgmma with both operands in shared memory ----

// wgmma names every accumulator register in its operand list. KX_ACC32(C, i) lists d[i] to
// d[i + 31] with the constraint C ("+f": read and written; "=f": written only), and KX_REGS_A_B is
// the text "%A, ..., %B" that the instruction's accumulator vector spells out.
#define KX_ACC8(C, i) C(d[i]), C(d[i + 1]), C(d[i + 2]), C(d[i + 3]), C(d[i + 4]), C(d[i + 5]), C(d[i + 6]), C(d[i + 7])
#define KX_ACC32(C, i) KX_ACC8(C, i), KX_ACC8(C, i + 8), KX_ACC8(C, i + 16), KX_ACC8(C, i + 24)
#define KX_REGS_0_7 "%0, %1, %2, %3, %4, %5, %6, %7"
#define KX_REGS_0_15 KX_REGS_0_7 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define KX_REGS_0_31 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define KX_REGS_32_63 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define KX_REGS_64_95 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define KX_REGS_96_127 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define KX_REGS_0_63 KX_REGS_0_31 ", " KX_REGS_32_63
#define KX_REGS_0_127 KX_REGS_0_63 ", " KX_REGS_64_95 ", " KX_REGS_96_127

// d (+)= A (64 x k) * B (k x N), both read from shared memory through descriptors, issued by all
// 128 threads of a warpgroup; scaleD = 0 ignores d's old value. k is ${wgmma_k}: 32 bytes of each
// operand row whatever the type (16 f16 or bf16, 8 tf32, 32 fp8 elements). The 16-bit types end
// with two transpose immediates, the string KX_WGMMA_TRANSPOSE that the including template defines
// (", 0, 0": both K-major; 1 reads that operand MN-major); tf32 and fp8, K-major only, with "".
// One overload per N (16, 32, 64, 128, 256), chosen by the accumulator array's size. Thread t of
// the warpgroup holds rows 16*(t/32) + (t%32)/4 and +8 of d, columns 8j + 2*(t%4) and +1, in
// d[4j..4j+3]: the mma.sync fragment layout, repeated.
//
// KX_WGMMA_SS(N, R, A, B, S, REGS, ...) defines the overload for N columns: R = N / 2
// accumulators a thread, which are operands 0 to R - 1 (the text REGS; the constraint list is the
// rest), then descA, descB and scaleD as operands A, B and S (R, R + 1 and R + 2).
#define KX_WGMMA_SS(N, R, A, B, S, REGS, ...)                                                                               \
    __device__ __forceinline__ void wgmmaSS(float (&d)[R], unsigned long long descA, unsigned long long descB, int scaleD) { \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #S ", 0;\n"                                                       \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k${wgmma_k}.f32.${mma_type}.${mma_type} {" REGS "}, %" #A        \
                     ", %" #B ", p, 1, 1" KX_WGMMA_TRANSPOSE ";\n}\n"                                                        \
                     : __VA_ARGS__                                                                                          \
                     : "l"(descA), "l"(descB), "r"(scaleD));                                                                 \
    }
KX_WGMMA_SS(16, 8, 8, 9, 10, KX_REGS_0_7, KX_ACC8("+f", 0))
KX_WGMMA_SS(32, 16, 16, 17, 18, KX_REGS_0_15, KX_ACC8("+f", 0), KX_ACC8("+f", 8))
KX_WGMMA_SS(64, 32, 32, 33, 34, KX_REGS_0_31, KX_ACC32("+f", 0))
KX_WGMMA_SS(128, 64, 64, 65, 66, KX_REGS_0_63, KX_ACC32("+f", 0), KX_ACC32("+f", 32))
KX_WGMMA_SS(256, 128, 128, 129, 130, KX_REGS_0_127, KX_ACC32("+f", 0), KX_ACC32("+f", 32), KX_ACC32("+f", 64), KX_ACC32("+f", 96))
#undef KX_WGMMA_SS

// ---- end of templates/common/wgmma_ss.cuh ----
