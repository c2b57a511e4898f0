// Which PTX and SASS lines each source line became, and what they are.
//
// PTX: NVRTC with line info (CompileRequest::lineInfo) puts `.loc FILE LINE COL` before the
// instructions of each source location; `.file N "name"` names the files. An inlined function's
// `.loc` also says where it was inlined (`inlined_at F L C`): code from another file (a toolkit
// header) counts as the kernel-source line that called it. `.loc F 0 C` ends a location.
// SASS: each instruction's sourceLine from nvdisasm (sass_listing.hpp), else the source line of
// its PTX line.
//
// Per source line, the static counts of the instructions it became (from SASS when there is a
// listing, else from PTX), by the instruction-mix categories: "where the work is" before any run.
// SourceLineInfo is the per-line record the views read; measured data per line (PC samples,
// stall reasons) belongs there as further members.
// Pure functions of the text: thread-safe, never throw.
#pragma once

#include "analysis/instruction_mix.hpp"
#include "analysis/sass_listing.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

struct SourceLineInfo {
    std::vector<int> ptxLines;    // 1-based PTX lines holding its instructions, ascending
    std::vector<int> sassLines;   // 1-based lines of SassListing::text, ascending
    MixCounts counts;             // its instructions by category (SASS when present, else PTX)
    bool countsFromSass = false;
    int spills = 0;               // STL/LDL among its SASS instructions
};

struct LineMap {
    std::map<int, SourceLineInfo> bySource;  // 1-based source line -> its code
    std::vector<int> sourceOfPtx;            // per PTX line (0-based index): source line or 0
    std::vector<int> sourceOfSass;           // per SASS listing line (0-based index): source line or 0
    bool hasPtx = false;                     // the PTX carried line info
    bool hasSass = false;                    // the SASS listing had source lines (or PTX lines)

    // The source line of a PTX / SASS line (1-based); 0 when none.
    int sourceOfPtxLine(int line1) const;
    int sourceOfSassLine(int line1) const;
    const SourceLineInfo* info(int sourceLine) const;  // null when the line made no code
};

// Per PTX line (0-based index), the source line its instruction came from, 0 for lines that are
// not instructions or carry no location. sourceFile: the compile's file name ("kernel.cu");
// empty takes file 1.
std::vector<int> ptxSourceLines(std::string_view ptx, std::string_view sourceFile);

// sass may be null (no disassembler).
LineMap buildLineMap(std::string_view ptx, const SassListing* sass, std::string_view sourceFile);

// A short text of a line's counts for a gutter, the heaviest classes first, at most maxItems:
// "2 MMA 4 LDS128" style. Empty for no instructions.
std::string lineCountsSummary(const MixCounts& counts, int maxItems = 3);

// The line of the text that opens the first kernel, for showing a file at its entry rather than
// its header comment: `__global__` in CUDA source, `.entry` in PTX, the first instruction in SASS.
// 1-based; 1 when none is found.
int kernelEntryLine(std::string_view text);

// `kx compile --emit map`: one row per source line that made code, as a table (line, PTX lines,
// SASS lines as ranges "41-44,47", the summary of its instructions, the source text) or as JSON
// ({"source_file", "sass", "peak_live_registers", "lines": [{"line", "source", "ptx": [{"line",
// "text"}], "sass": [{"line", "text", "control", "live_registers"}], "counts": {category: n},
// "spills"}]}). sass may be null.
std::string lineMapText(const LineMap& map, std::string_view source, std::string_view ptx, const SassListing* sass);
std::string lineMapJson(const LineMap& map, std::string_view source, std::string_view ptx, const SassListing* sass,
                        std::string_view sourceFile);

// "41-44,47" for ascending line numbers.
std::string lineRanges(const std::vector<int>& lines);

}  // namespace kx::engine
