// Instruction mix of AMD CDNA assembly (clang's -S output for gfx90a, gfx942).
//
// STATIC counts, as for NVIDIA (instruction_mix.hpp): each instruction in the listing once,
// however often it runs. Comments (';'), directives ('.'), labels and the metadata block are
// skipped. The categories follow the CDNA ISA's own units: matrix cores (MFMA), the vector ALU
// (VALU, by data type), the scalar ALU (SALU), LDS (ds_*), vector memory (global_*, buffer_*,
// flat_*), scalar memory (s_load_*), scratch, and the waits (s_waitcnt) that keep them ordered.
// Pure functions of the text: thread-safe, never throw.
#pragma once

#include "analysis/instruction_mix.hpp"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

enum class AmdInstrCategory {
    Mfma,            // v_mfma_*, v_smfmac_*: matrix-core multiply-accumulate
    ValuFp32,        // v_fma_f32, v_fmac_f32, v_add_f32, v_mul_f32, v_pk_fma_f32, ...
    ValuFp16,        // f16 / bf16 VALU: v_fma_f16, v_pk_fma_f16, v_dot2_f32_f16, ...
    ValuFp64,        // v_fma_f64, v_add_f64, ...
    ValuTranscendental,  // v_rcp, v_rsq, v_sqrt, v_exp, v_log, v_sin, v_cos
    ValuConversion,  // v_cvt_*
    ValuInteger,     // integer and address arithmetic, logic, shifts on VGPRs
    ValuOther,       // v_mov, v_cndmask, compares, lane reads/writes (v_readlane, v_readfirstlane)
    Salu,            // s_add, s_and, s_mov, s_cmp, s_lshl, ... (uniform work on SGPRs)
    ScalarLoad,      // s_load_*, s_buffer_load_*: kernel arguments and uniform data
    GlobalLoad,      // global_load_*, buffer_load_*, flat_load_*
    GlobalStore,     // global_store_*, buffer_store_*, flat_store_*
    LdsRead,         // ds_read_*, ds_read2_*, ds_load_*
    LdsWrite,        // ds_write_*, ds_write2_*, ds_store_*
    LdsOther,        // ds_bpermute, ds_permute, ds_swizzle (cross-lane), LDS atomics
    ScratchLoad,     // scratch_load_*: spills or private arrays
    ScratchStore,    // scratch_store_*
    Atomic,          // global_atomic_*, buffer_atomic_*, flat_atomic_*
    Waitcnt,         // s_waitcnt (vmcnt, lgkmcnt, expcnt): waiting for memory
    Barrier,         // s_barrier, cache writebacks and invalidates (buffer_wbl2, buffer_inv, buffer_wbinvl1)
    Branch,          // s_branch, s_cbranch_*, s_endpgm, s_setpc, s_swappc
    Other,           // s_nop, s_setprio, s_sleep, ...
    Count
};
constexpr int kAmdInstrCategoryCount = static_cast<int>(AmdInstrCategory::Count);

const char* amdCategoryKey(AmdInstrCategory category);    // "mfma", "valu_fp32", ...
const char* amdCategoryLabel(AmdInstrCategory category);  // "MFMA (matrix core)", ...

struct AmdMixCounts {
    std::array<int, kAmdInstrCategoryCount> byCategory{};
    WidthCounts globalLoads;   // bits per lane: global_load_dwordx4 -> 128
    WidthCounts globalStores;
    WidthCounts ldsReads;      // ds_read_b128 -> 128; ds_read2_b32 -> 64 (two 32-bit values)
    WidthCounts ldsWrites;
    int total = 0;
    int operator[](AmdInstrCategory c) const { return byCategory[static_cast<std::size_t>(c)]; }
    int scratch() const { return (*this)[AmdInstrCategory::ScratchLoad] + (*this)[AmdInstrCategory::ScratchStore]; }
};

struct AmdKernelMix {
    std::string name;
    AmdMixCounts counts;
};

struct AmdInstructionMix {
    AmdMixCounts counts;               // the sum over kernels
    std::vector<AmdKernelMix> kernels; // in listing order
    // Plain sentences, most serious first: scratch traffic, global loads all 32-bit or narrower,
    // matrix-core kernels... (see amdMixWarnings).
    std::vector<std::string> warnings;
    int operator[](AmdInstrCategory c) const { return counts[c]; }
    int total() const { return counts.total; }
};

AmdInstructionMix analyzeAmdIsa(std::string_view isa);

// One instruction's share (mnemonic as printed: "global_load_dwordx4", "v_mfma_f32_32x32x8f16").
void addAmdInstruction(AmdMixCounts& counts, std::string_view mnemonic);

}  // namespace kx::engine
