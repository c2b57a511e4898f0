// The AMD instruction mix: categories and widths of CDNA mnemonics, listings parsed per kernel,
// and the mix of a real clang compile.
#include "../test_support.hpp"
#include "analysis/amd_instruction_mix.hpp"
#include "compile/hip_compiler.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;
using C = AmdInstrCategory;

namespace {
C categoryOf(std::string_view mnemonic) {
    AmdMixCounts counts;
    addAmdInstruction(counts, mnemonic);
    for (int i = 0; i < kAmdInstrCategoryCount; ++i)
        if (counts.byCategory[static_cast<std::size_t>(i)] == 1) return static_cast<C>(i);
    return C::Count;
}
}  // namespace

TEST_CASE("AMD mnemonics fall in their units' categories", "[analysis][mix][amd]") {
    CHECK(categoryOf("v_mfma_f32_32x32x8f16") == C::Mfma);
    CHECK(categoryOf("v_mfma_f32_16x16x32_fp8_fp8") == C::Mfma);
    CHECK(categoryOf("v_fmac_f32_e32") == C::ValuFp32);
    CHECK(categoryOf("v_pk_fma_f16") == C::ValuFp16);
    CHECK(categoryOf("v_fma_f64") == C::ValuFp64);
    CHECK(categoryOf("v_rsq_f32_e32") == C::ValuTranscendental);
    CHECK(categoryOf("v_cvt_f32_f16_e32") == C::ValuConversion);
    CHECK(categoryOf("v_lshl_add_u32") == C::ValuInteger);
    CHECK(categoryOf("v_cndmask_b32_e32") == C::ValuOther);
    CHECK(categoryOf("v_accvgpr_read_b32") == C::ValuOther);
    CHECK(categoryOf("s_add_u32") == C::Salu);
    CHECK(categoryOf("s_load_dwordx4") == C::ScalarLoad);
    CHECK(categoryOf("global_load_dwordx4") == C::GlobalLoad);
    CHECK(categoryOf("buffer_load_dword") == C::GlobalLoad);
    CHECK(categoryOf("global_store_short") == C::GlobalStore);
    CHECK(categoryOf("ds_read_b128") == C::LdsRead);
    CHECK(categoryOf("ds_write2_b32") == C::LdsWrite);
    CHECK(categoryOf("ds_bpermute_b32") == C::LdsOther);
    CHECK(categoryOf("scratch_load_dword") == C::ScratchLoad);
    CHECK(categoryOf("scratch_store_dwordx2") == C::ScratchStore);
    CHECK(categoryOf("global_atomic_inc") == C::Atomic);
    CHECK(categoryOf("s_waitcnt") == C::Waitcnt);
    CHECK(categoryOf("s_barrier") == C::Barrier);
    CHECK(categoryOf("buffer_inv") == C::Barrier);
    CHECK(categoryOf("s_cbranch_execz") == C::Branch);
    CHECK(categoryOf("s_nop") == C::Other);
}

TEST_CASE("AMD access widths per lane", "[analysis][mix][amd]") {
    AmdMixCounts c;
    for (const char* m : {"global_load_dwordx4", "global_load_dwordx2", "global_load_dword", "global_load_ushort", "global_load_ubyte",
                          "ds_read_b128", "ds_read2_b32", "ds_read2_b64", "ds_read_u16", "ds_write_b64", "ds_write_b8",
                          "global_store_dwordx4"})
        addAmdInstruction(c, m);
    CHECK(c.globalLoads == WidthCounts{{8, 1}, {16, 1}, {32, 1}, {64, 1}, {128, 1}});
    CHECK(c.ldsReads == WidthCounts{{16, 1}, {64, 1}, {128, 2}});
    CHECK(c.ldsWrites == WidthCounts{{8, 1}, {64, 1}});
    CHECK(c.globalStores == WidthCounts{{128, 1}});
    CHECK(c.total == 12);
}

TEST_CASE("an AMD listing is counted per kernel, skipping comments, directives, labels and metadata", "[analysis][mix][amd]") {
    const char* isa = R"(	.text
	.type	first,@function
first:                                  ; @first
; %bb.0:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	global_load_dword v1, v[4:5], off
	scratch_store_dword off, v1, s0
	s_endpgm
	.type	second,@function
second:
	global_load_dwordx4 v[0:3], v[4:5], off
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
	s_endpgm
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name: first
	.end_amdgpu_metadata
)";
    const AmdInstructionMix mix = analyzeAmdIsa(isa);
    REQUIRE(mix.kernels.size() == 2);
    CHECK(mix.kernels[0].name == "first");
    CHECK(mix.kernels[0].counts.total == 5);
    CHECK(mix.kernels[1].name == "second");
    CHECK(mix.kernels[1].counts[C::Mfma] == 1);
    CHECK(mix.total() == 8);
    CHECK(mix[C::ScratchStore] == 1);
    CHECK(mix.counts.globalLoads == WidthCounts{{32, 1}, {128, 1}});
    REQUIRE(mix.warnings.size() == 2);
    CHECK(mix.warnings[0].find("first: 1 scratch") == 0);
    CHECK(mix.warnings[1].find("first: every global load is 32-bit") == 0);
}

TEST_CASE("the mix of a real gfx942 compile: wide loads, LDS, waits, no scratch", "[analysis][mix][amd][hip]") {
    INFO(hipClangMissingMessage());
    REQUIRE(findHipClang().has_value());
    HipCompiler compiler({}, kx::test::sourceDir() / "assets/hip/kx_hip_prelude.h");
    const HipCompileResult ok = compiler.compile({.source = R"(
struct alignas(16) F4 { float v[4]; };
extern "C" __global__ void __launch_bounds__(256) stage(const F4* in, F4* out) {
    __shared__ F4 tile[256];
    tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];
}
)", .arch = "gfx942", .fileName = "stage.hip", .options = {}});
    INFO(ok.log);
    REQUIRE(ok.ok);
    const AmdInstructionMix mix = analyzeAmdIsa(ok.isa);
    REQUIRE(mix.kernels.size() == 1);
    CHECK(mix.kernels[0].name == "stage");
    CHECK(mix.counts.globalLoads.at(128) == 1);
    CHECK(mix.counts.globalStores.at(128) == 1);
    CHECK(mix.counts.ldsReads.at(128) == 1);
    CHECK(mix.counts.ldsWrites.at(128) == 1);
    CHECK(mix[C::Waitcnt] >= 2);
    CHECK(mix[C::Barrier] >= 1);
    CHECK(mix.counts.scratch() == 0);
    CHECK(mix.warnings.empty());
}
