// Instruction mix: exact counts on hand-written PTX and SASS listings (data/), and plausible facts
// on the PTX NVRTC makes from the shipped templates.
#include "../test_support.hpp"
#include "analysis/instruction_mix.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace kx::engine;
using kx::test::sourceDir;
using C = InstrCategory;

namespace {

std::string readData(const char* name) {
    std::ifstream in(sourceDir() / "tests/engine/analysis/data" / name, std::ios::binary);
    REQUIRE(in);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every category's count, so a test states the whole mix and a stray count fails loudly.
using Expected = std::map<C, int>;
void checkCounts(const MixCounts& counts, const Expected& expected) {
    int sum = 0;
    for (int i = 0; i < kInstrCategoryCount; ++i) {
        const C c = static_cast<C>(i);
        const auto it = expected.find(c);
        const int want = it == expected.end() ? 0 : it->second;
        INFO(categoryKey(c));
        CHECK(counts[c] == want);
        sum += want;
    }
    CHECK(counts.total == sum);
}

bool mentions(const std::vector<std::string>& warnings, const std::string& text) {
    for (const std::string& w : warnings)
        if (w.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("every category has a key, a label and help", "[mix]") {
    for (int i = 0; i < kInstrCategoryCount; ++i) {
        const C c = static_cast<C>(i);
        CHECK(std::string(categoryKey(c)).size() > 1);
        CHECK(std::string(categoryLabel(c)).size() > 1);
        CHECK(std::string(categoryHelp(c)).size() > 20);
    }
    CHECK(std::string(categoryKey(C::TensorCore)) == "tensor_core");
    CHECK(widthLabel(128) == "128-bit");
    CHECK(widthLabel(0) == "unsized");
}

TEST_CASE("PTX: per-kernel counts, widths and warnings of a hand-written listing", "[mix]") {
    const InstructionMix mix = analyzePtx(readData("mix_sample.ptx"));
    CHECK(mix.source == MixSource::Ptx);
    REQUIRE(mix.kernels.size() == 3);
    CHECK(mix.kernels[0].name == "vec_add");
    CHECK(mix.kernels[1].name == "tiled");
    CHECK(mix.kernels[2].name == "helper");
    CHECK(mix.kernels[0].entry);
    CHECK_FALSE(mix.kernels[2].entry);

    SECTION("vec_add: scalar loads, predicated branch, comments ignored") {
        const MixCounts& k = mix.kernels[0].counts;
        checkCounts(k, {{C::OtherMemory, 3},  // ld.param x3
                        {C::Other, 3},        // mov x3
                        {C::Integer, 7},      // mad.lo, setp.s32, cvta x2, mul.wide, add.s64 x2
                        {C::Control, 2},      // @%p1 bra, ret
                        {C::GlobalLoad, 2},   // ld.global.nc.f32, ld.global.f32
                        {C::Fp32, 1},         // add.f32 (the fma in the block comment is not counted)
                        {C::GlobalStore, 1}});
        CHECK(k.globalLoads == WidthCounts{{32, 2}});
        CHECK(k.globalStores == WidthCounts{{32, 1}});
        CHECK(k.localMemory() == 0);
    }
    SECTION("tiled: vector, async, ldmatrix, mma, local memory") {
        const MixCounts& k = mix.kernels[1].counts;
        checkCounts(k, {{C::OtherMemory, 2},   // ld.param x2
                        {C::Integer, 2},       // cvta x2
                        {C::Other, 3},         // mov, setp.f32, selp.f32
                        {C::AsyncCopy, 2},     // cp.async 16 and 8 bytes
                        {C::Barrier, 3},       // commit_group, wait_group, bar.sync
                        {C::GlobalLoad, 1},    // ld.global.v4.f32
                        {C::SharedStore, 1},   // st.shared.v4.f32
                        {C::SharedLoad, 4},    // ld.shared.v4.f32, ld.shared.f32, ldmatrix x4, ldmatrix x2
                        {C::TensorCore, 1},    // mma.sync
                        {C::Fp32, 3},          // fma.rn.f32 x2, mul.f32
                        {C::Fp16, 1},          // fma.rn.f16x2
                        {C::Conversion, 1},    // cvt inside inline-asm braces
                        {C::Shuffle, 1},       // shfl.sync
                        {C::LocalStore, 1},    // st.local
                        {C::LocalLoad, 2},     // ld.local, ld.local.v2
                        {C::Atomic, 2},        // atom.global, red.shared
                        {C::SpecialFunction, 1},  // ex2.approx
                        {C::Control, 2},       // @!%p2 bra.uni, ret
                        {C::GlobalStore, 2}}); // st.global.v2.f32, st.global.u16
        CHECK(k.globalLoads == WidthCounts{{128, 1}});
        CHECK(k.asyncCopies == WidthCounts{{64, 1}, {128, 1}});
        CHECK(k.sharedLoads == WidthCounts{{32, 1}, {64, 1}, {128, 2}});
        CHECK(k.sharedStores == WidthCounts{{128, 1}});
        CHECK(k.globalStores == WidthCounts{{16, 1}, {64, 1}});
        CHECK(k.localMemory() == 3);
    }
    SECTION("helper (.func): parameters go through ld.param / st.param") {
        checkCounts(mix.kernels[2].counts, {{C::OtherMemory, 2}, {C::Integer, 1}, {C::Control, 1}});
    }
    SECTION("the total is the sum of the kernels, with warnings") {
        CHECK(mix.total() == 19 + 35 + 4);
        CHECK(mix[C::Fp32] == 4);
        CHECK(mix[C::Integer] == 10);
        CHECK(mix.counts.globalLoads == WidthCounts{{32, 2}, {128, 1}});
        CHECK(mix.counts.globalStores == WidthCounts{{16, 1}, {32, 1}, {64, 1}});
        CHECK(mix.hasLocalMemory);
        REQUIRE(mix.warnings.size() == 2);
        CHECK(mix.warnings[0] ==
              "3 local-memory instructions in tiled (2 loads, 1 store): spills or a register array indexed at run time");
        CHECK(mix.warnings[1].rfind("global loads narrower than 128 bits: all 2 global loads in vec_add", 0) == 0);
    }
}

TEST_CASE("SASS: cuobjdump --dump-sass listing of two sm_90 kernels", "[mix]") {
    const InstructionMix mix = analyzeSass(readData("mix_sample_sm90.sass"));
    CHECK(mix.source == MixSource::Sass);
    REQUIRE(mix.kernels.size() == 2);
    CHECK(mix.kernels[0].name == "tiled_gemm");
    CHECK(mix.kernels[1].name == "scalar_copy");

    SECTION("tiled_gemm") {
        const MixCounts& k = mix.kernels[0].counts;
        checkCounts(k, {{C::OtherMemory, 2},  // LDC, ULDC.64
                        {C::Other, 1},        // S2R
                        {C::Integer, 3},      // IMAD.WIDE.U32, LEA, ISETP
                        {C::AsyncCopy, 1},    // LDGSTS.E.BYPASS.LTC128B.128
                        {C::Barrier, 3},      // LDGDEPBAR, DEPBAR, BAR.SYNC.DEFER_BLOCKING
                        {C::GlobalLoad, 2},   // LDG.E.128, LDG.E.CONSTANT
                        {C::SharedStore, 1},  // STS.128
                        {C::SharedLoad, 4},   // LDSM .4 and .2, LDS.128, LDS
                        {C::TensorCore, 2},   // HMMA.16816.F32 x2
                        {C::Fp32, 4},         // FFMA x2, FMUL, FADD
                        {C::Fp16, 1},         // HFMA2.MMA (an FP16 FMA, not a tensor-core op)
                        {C::SpecialFunction, 1},  // MUFU.EX2
                        {C::Conversion, 1},   // F2FP
                        {C::Shuffle, 1},      // SHFL.BFLY
                        {C::LocalStore, 2},   // STL, STL.64
                        {C::LocalLoad, 1},    // LDL
                        {C::Control, 3},      // @P0 BRA, EXIT, BRA (the trailing NOPs are not counted)
                        {C::GlobalStore, 2},  // STG.E.128, STG.E.U16
                        {C::Atomic, 1}});     // ATOMG
        CHECK(k.total == 36);  // the listing's addresses 0x000..0x230
        CHECK(k.globalLoads == WidthCounts{{32, 1}, {128, 1}});
        CHECK(k.asyncCopies == WidthCounts{{128, 1}});
        CHECK(k.sharedLoads == WidthCounts{{32, 1}, {64, 1}, {128, 2}});
        CHECK(k.sharedStores == WidthCounts{{128, 1}});
        CHECK(k.globalStores == WidthCounts{{16, 1}, {128, 1}});
    }
    SECTION("scalar_copy") {
        const MixCounts& k = mix.kernels[1].counts;
        checkCounts(k, {{C::OtherMemory, 2}, {C::Other, 1}, {C::Integer, 1}, {C::GlobalLoad, 2}, {C::Conversion, 1},
                        {C::GlobalStore, 1}, {C::Barrier, 1}, {C::Control, 2}});
        CHECK(k.globalLoads == WidthCounts{{8, 1}, {32, 1}});
        CHECK(k.globalStores == WidthCounts{{32, 1}});
    }
    SECTION("total and warnings") {
        CHECK(mix.total() == 36 + 11);
        CHECK(mix.hasLocalMemory);
        REQUIRE(mix.warnings.size() == 2);
        CHECK(mentions(mix.warnings, "3 local-memory instructions in tiled_gemm (1 load, 2 stores)"));
        CHECK(mentions(mix.warnings, "all 2 global loads in scalar_copy are 32-bit or narrower"));
    }
}

TEST_CASE("SASS: nvdisasm -c -g listing, and bare instruction lines", "[mix]") {
    const char* nvdisasm = R"(
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90"
	.section	.text.kern,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=10"
	.align	128
        .global         kern
        .type           kern,@function
        .size           kern,(.L_x_1 - kern)
        .other          kern,@"STO_CUDA_ENTRY STV_DEFAULT"
kern:
.text.kern:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "kernel.cu", line 5
        /*0010*/                   LDG.E.64 R2, desc[UR4][R4.64] ;
        /*0020*/              @!PT FFMA R2, R3, R4, R2 ;
.L_x_0:
        /*0030*/                   BRA `(.L_x_0) ;
        /*0040*/                   NOP ;
.L_x_1:
)";
    const InstructionMix mix = analyzeSass(nvdisasm);
    REQUIRE(mix.kernels.size() == 1);
    CHECK(mix.kernels[0].name == "kern");
    checkCounts(mix.counts, {{C::OtherMemory, 1}, {C::GlobalLoad, 1}, {C::Fp32, 1}, {C::Control, 1}});
    CHECK(mix.counts.globalLoads == WidthCounts{{64, 1}});
    CHECK(mix.warnings.empty());  // a 64-bit load is not "all scalar"

    // Pasted without addresses or a header: one unnamed kernel; header-like lines are skipped.
    const InstructionMix bare = analyzeSass("code for sm_90\n  HMMA.16816.F32 R0, R4, R8, R0 ;\n  LDGSTS.E.64 [R1], desc[UR4][R2.64] ;\nnot an instruction\n");
    REQUIRE(bare.kernels.size() == 1);
    CHECK(bare.kernels[0].name.empty());
    checkCounts(bare.counts, {{C::TensorCore, 1}, {C::AsyncCopy, 1}});
    CHECK(bare.counts.asyncCopies == WidthCounts{{64, 1}});
}

TEST_CASE("PTX: Hopper and later forms", "[mix]") {
    const InstructionMix mix = analyzePtx(R"(
.visible .entry k()
{
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f1}, %rd1, %rd2, 1, 1, 1, 1, 1;
	wgmma.commit_group.sync.aligned;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd3, {%r2, %r3}], [%r4];
	cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r5], 256;
	ld.shared::cta.v2.b32 {%r6, %r7}, [%r8];
	mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r4], 0;
	ld.global.nc.L1::no_allocate.v4.u32 {%r9, %r10, %r11, %r12}, [%rd5];
	ld.global.b128 %rq1, [%rd5];
	ret;
}
)");
    REQUIRE(mix.kernels.size() == 1);
    CHECK(mix.kernels[0].name == "k");
    checkCounts(mix.counts, {{C::Barrier, 3}, {C::TensorCore, 1}, {C::AsyncCopy, 1}, {C::GlobalStore, 1},
                             {C::SharedLoad, 1}, {C::GlobalLoad, 2}, {C::Control, 1}});
    CHECK(mix.counts.asyncCopies == WidthCounts{{0, 1}});
    CHECK(mix.counts.sharedLoads == WidthCounts{{64, 1}});
    CHECK(mix.counts.globalLoads == WidthCounts{{128, 2}});
}

TEST_CASE("empty and comment-only listings give an empty mix", "[mix]") {
    for (const char* text : {"", "// nothing\n", ".version 8.0\n.target sm_90\n"}) {
        const InstructionMix p = analyzePtx(text);
        CHECK(p.total() == 0);
        CHECK(p.kernels.empty());
        CHECK(p.warnings.empty());
        CHECK(analyzeSass(text).total() == 0);
    }
}

TEST_CASE("the PTX of the shipped templates has the expected instruction classes", "[mix][compile][shipped]") {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    const Arch* arch = db.findArch("sm_90");
    REQUIRE(arch);
    Compiler compiler(cacheRoot() / "nvrtc");
    auto compileDefault = [&](const char* id) {
        auto t = lib.find(id);
        REQUIRE(t);
        const PreparedVariant v = prepareVariant(*t, t->defaultConfig(), *arch);
        REQUIRE(v.violations.empty());
        const CompileResult r = compiler.compile(v.request);
        INFO(r.log);
        REQUIRE(r.ok);
        const InstructionMix mix = analyzePtx(r.ptx);
        REQUIRE(mix.kernels.size() == 1);
        CHECK(mix.kernels[0].name == v.name);
        CHECK_FALSE(mix.hasLocalMemory);
        return mix;
    };

    SECTION("gemm: FP32 FMAs fed from shared memory") {
        const InstructionMix mix = compileDefault("gemm");
        CHECK(mix[C::Fp32] > 0);         // fma.rn.f32 in the unrolled inner product
        CHECK(mix[C::SharedLoad] > 0);   // operands read from the shared tiles
        CHECK(mix[C::SharedStore] + mix[C::AsyncCopy] > 0);  // tiles filled (cp.async when available)
        CHECK(mix[C::Barrier] > 0);
        CHECK(mix[C::GlobalStore] > 0);
        CHECK(mix.total() > 100);
    }
    SECTION("reduce: warp shuffles and block barriers") {
        const InstructionMix mix = compileDefault("reduce");
        CHECK(mix[C::Shuffle] > 0);  // shfl.sync.bfly
        CHECK(mix[C::Barrier] > 0);  // bar.sync
        CHECK(mix[C::GlobalLoad] > 0);
        CHECK(mix[C::Fp32] > 0);     // add.f32
    }
}

TEST_CASE("SASS: real nvdisasm output from the GPU machine (reduction for sm_90, first 29 instructions)", "[mix]") {
    // Made by `kx compile reduce --arch sm_90 --emit sass` on an H100 machine (nvdisasm -c -g).
    const InstructionMix mix = analyzeSass(readData("reduce_sm90_nvdisasm.sass"));
    REQUIRE(mix.kernels.size() == 1);
    CHECK(mix.kernels[0].name == "reduce_sum_f32_b256_i4_v4");
    CHECK(mix.counts.total == 29);
    CHECK(mix.counts[C::Control] == 2);
    CHECK_FALSE(mix.hasLocalMemory);
}
