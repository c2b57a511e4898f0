// Instruction mix of a kernel, read from its PTX or its SASS listing.
//
// STATIC counts: every instruction in the listing counts once, however often it runs. A loop
// body counts once; an unrolled loop counts once per copy; a branch never taken still counts.
// So the mix says what the compiler generated (is the inner loop FFMA or HMMA? are the global
// loads 128-bit? are there local-memory spills?), not what the GPU executed: dynamic counts
// need a profiler (Nsight Compute's "Instruction Statistics").
//
// PTX is the virtual ISA NVRTC emits; ptxas later rewrites it (scheduling, register allocation,
// spills, fusing address arithmetic), so SASS is what runs. Local memory from spills, for one,
// appears only in SASS. Both parsers accept what the tools print:
//   PTX:  NVRTC / nvcc -ptx output (comments, directives, .loc line info, inline-asm braces)
//   SASS: `cuobjdump --dump-sass` ("Function : name" headers) and `nvdisasm -c [-g]`
//         (".section .text.name" headers); "/*0090*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
// Comments, directives, labels, predicates (@%p1, @!P0) and braces are ignored; NOP padding in
// SASS is not counted. Instructions before any kernel header go to a kernel named "".
// Pure functions of the text: thread-safe, never throw.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

// What an instruction does, at the granularity a kernel engineer reasons about. Order is the
// display order of the CLI table and the GUI bars.
enum class InstrCategory {
    Fp32,             // FP32 FMA/ADD/MUL: fma.rn.f32, add.f32, mul.f32; FFMA, FADD, FMUL
    Fp16,             // half/bf16 FMA/ADD/MUL: fma.rn.f16x2, add.bf16x2; HFMA2, HADD2, HMUL2
    Fp64,             // fma.rn.f64; DFMA, DADD, DMUL
    TensorCore,       // mma.sync, wmma.mma, wgmma.mma_async; HMMA, HGMMA, IMMA, QGMMA, ...
    SpecialFunction,  // rcp, sqrt, ex2, sin, ...; MUFU
    Integer,          // integer and address arithmetic, logic, shifts, integer compares; IMAD, IADD3, LOP3, ...
    Conversion,       // cvt; F2F, F2I, I2F, I2I, F2FP
    GlobalLoad,       // ld.global (also .nc), ldu.global; LDG
    GlobalStore,      // st.global; STG
    AsyncCopy,        // global -> shared without registers: cp.async, cp.async.bulk; LDGSTS, UTMALDG, UBLKCP
    SharedLoad,       // ld.shared, ldmatrix; LDS, LDSM
    SharedStore,      // st.shared, stmatrix; STS, STSM
    LocalLoad,        // ld.local; LDL (spills or run-time-indexed arrays)
    LocalStore,       // st.local; STL
    OtherMemory,      // parameter, constant, texture and generic-address loads/stores; LDC, LD, ST, TEX
    Barrier,          // bar.sync, membar, fences, cp.async waits, mbarrier; BAR, MEMBAR, DEPBAR, SYNCS
    Shuffle,          // shfl.sync, redux.sync; SHFL, REDUX
    Atomic,           // atom, red; ATOM, ATOMG, ATOMS, RED, REDG
    Control,          // bra, call, ret, exit; BRA, EXIT, BSSY, BSYNC, CALL, RET
    Other,            // moves, selects, float compares, min/max, votes, special registers
    Count
};
constexpr int kInstrCategoryCount = static_cast<int>(InstrCategory::Count);

// "fp32", "tensor_core", ... : stable keys for JSON, CSV and tests.
const char* categoryKey(InstrCategory category);
// "FP32 FMA/ADD/MUL", "Tensor core", ... : labels for tables and charts.
const char* categoryLabel(InstrCategory category);
// Two or three sentences that teach what the category means for performance (tooltips, --explain).
const char* categoryHelp(InstrCategory category);

// Access width in bits per thread -> number of instructions. 0 = the listing does not say
// (a TMA or bulk copy, a wmma fragment, a cp.async whose size is a register).
using WidthCounts = std::map<int, int>;

struct MixCounts {
    std::array<int, kInstrCategoryCount> byCategory{};
    WidthCounts globalLoads;   // LDG / ld.global: 8, 16, 32, 64, 128
    WidthCounts globalStores;  // STG / st.global
    WidthCounts asyncCopies;   // cp.async / LDGSTS bytes * 8 per thread; 0 for TMA / bulk copies
    WidthCounts sharedLoads;   // LDS / ld.shared; LDSM (ldmatrix) .x1/.x2/.x4 -> 32/64/128
    WidthCounts sharedStores;  // STS / st.shared; STSM
    int total = 0;             // every counted instruction

    int operator[](InstrCategory c) const { return byCategory[static_cast<std::size_t>(c)]; }
    int localMemory() const { return (*this)[InstrCategory::LocalLoad] + (*this)[InstrCategory::LocalStore]; }
    void add(const MixCounts& other);
};

struct KernelMix {
    std::string name;   // the .entry / .func name, or the SASS "Function :" name (mangled as printed)
    bool entry = true;  // false for a PTX .func (a device function not inlined)
    MixCounts counts;
};

enum class MixSource { Ptx, Sass };

struct InstructionMix {
    MixSource source = MixSource::Ptx;
    MixCounts counts;               // the sum over kernels
    std::vector<KernelMix> kernels; // in listing order
    bool hasLocalMemory = false;    // any LDL/STL (ld.local/st.local) in any kernel
    // Plain sentences, most serious first: local memory (spills or run-time-indexed arrays),
    // kernels whose global loads are all 32-bit or narrower.
    std::vector<std::string> warnings;

    int operator[](InstrCategory c) const { return counts[c]; }
    int total() const { return counts.total; }
};

InstructionMix analyzePtx(std::string_view ptx);
InstructionMix analyzeSass(std::string_view sass);

// One instruction's share, as the analyzers count it: opcode with its modifiers ("ld.global.v4.f32",
// "LDG.E.128"), and for PTX its operands (cp.async's size). A SASS NOP adds nothing.
void addPtxInstruction(MixCounts& counts, std::string_view opcode, std::string_view operands);
void addSassInstruction(MixCounts& counts, std::string_view opcode);

// "128-bit", "32-bit", "unsized" for a WidthCounts key.
std::string widthLabel(int bits);

}  // namespace kx::engine
