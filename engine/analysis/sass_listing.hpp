// A SASS listing with what nvdisasm knows about each instruction: its source line, its PTX
// line, the registers live at it, and its control bits decoded from the encoding.
//
// nvdisasm prints each kind of annotation in a separate mode, so the listing is assembled from
// up to three outputs of the same CUBIN, matched by (function, offset):
//   nvdisasm -c -gi -hex   source lines ("//## File "F", line N [inlined at "G", line M]") and
//                          each instruction's encoding ("/* 0x... */", two 64-bit words)
//   nvdisasm -c -gp        PTX lines (".nv_debug_ptx_txt", line N): needs the CUBIN built with
//                          line info from PTX that ptxas was given as text
//   nvdisasm -c -lrm count live registers after each instruction (GPR, predicate, uniform)
// `cuobjdump --dump-sass` output is accepted as the first text too (encodings, no lines).
//
// Control bits (Volta and later: one 128-bit word per instruction). The scheduler's directions
// sit in bits 105..125, i.e. bits 41..61 of the second 64-bit word nvdisasm prints:
//   bits  0..3   stall: cycles the warp waits before issuing its next instruction
//   bit   4      yield: 0 lets the scheduler switch to another warp after this one (shown 'Y')
//   bits  5..7   write barrier: scoreboard 0..5 the instruction releases when its (variable-
//                latency) result is written; 7 = none
//   bits  8..10  read barrier: scoreboard released when its source registers have been read
//                (so they may be overwritten); 7 = none
//   bits 11..16  wait mask: scoreboards (bit i = SB i) that must be released before it issues
//   bits 17..20  reuse: operand slots a, b, c, d kept in the register reuse cache
// This is the layout public SASS assemblers (maxas, turingas, CuAssembler) use, and the reuse
// bits agree with nvdisasm's own ".reuse" markers (tests/engine/analysis/test_sass_listing.cpp).
// Pure functions of the text: thread-safe, never throw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

struct ControlCode {
    int stall = 0;            // 0..15 cycles
    bool yield = false;       // the yield hint is set (the encoded bit is 0)
    int writeBarrier = -1;    // 0..5, -1 for none
    int readBarrier = -1;     // 0..5, -1 for none
    unsigned waitMask = 0;    // bit i: waits on scoreboard i
    unsigned reuse = 0;       // bit i: operand slot i (a, b, c, d) stays in the reuse cache

    // CuAssembler's notation, one fixed width: "R-R-:B0-2---:R-:W1:Y:S04"
    // (reuse slots, wait mask, read barrier, write barrier, yield, stall).
    std::string text() const;
    // A short column for the code view: "S04 Y W1 R- B0,2" style, fixed width.
    std::string compact() const;
    bool operator==(const ControlCode& o) const = default;
};

// Decodes the second 64-bit word of a Volta+ instruction encoding.
ControlCode decodeControlCode(std::uint64_t highWord);

struct SassInstruction {
    std::string function;     // the kernel (section .text.NAME or "Function : NAME")
    int offset = 0;           // byte offset within the function
    std::string text;         // "@!P1 LDC R4, c[0x0][0x210]" (no address, no ';')
    std::string opcode;       // "LDC", "LDG.E.128" (with modifiers, without predicate)
    int listingLine = 0;      // 1-based line of SassListing::text
    // Source location, from -gi: the innermost location inside the kernel's own source file
    // (an inlined header function counts as the line that called it). 0 when unknown.
    int sourceLine = 0;
    int ptxLine = 0;          // 1-based line of the PTX text, from -gp; 0 when unknown
    int liveRegisters = -1;   // general-purpose registers live here; -1 when unknown
    int livePredicates = -1;
    int liveUniform = -1;
    std::optional<ControlCode> control;  // when the encoding was printed (Volta and later)
    bool isSpill() const;     // STL / LDL: local memory, which is how ptxas spills
};

struct SassListing {
    // The listing as shown: `nvdisasm -c` without annotations or encodings, each instruction
    // as "/*0a30*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;" (predicates right-aligned in 5 columns).
    std::string text;
    std::vector<SassInstruction> instructions;   // in listing order
    std::vector<int> instructionAtLine;          // per line of text (0-based): index or -1
    int peakLiveRegisters = -1;                  // max liveRegisters over the listing
    bool hasSourceLines = false;                 // any instruction has a sourceLine
    bool hasPtxLines = false;
    bool hasLiveRanges = false;
    bool hasControlCodes = false;

    const SassInstruction* atLine(int line1) const;  // 1-based line of text; null when none
};

// Builds the listing from the first output (-c -gi -hex, or cuobjdump --dump-sass) and the
// optional others (empty when not run). sourceFile names the kernel's source as the compiler
// saw it ("kernel.cu"); -gi locations in other files (toolkit headers) count as the line of
// the kernel's source they were inlined at.
SassListing parseSassListing(std::string_view annotated, std::string_view ptxLines, std::string_view lifeRanges,
                             std::string_view sourceFile);

}  // namespace kx::engine
