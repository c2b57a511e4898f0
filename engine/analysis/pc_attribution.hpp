// Where a kernel's PC samples land in its SASS: the runner reports samples by function and
// byte offset (CUPTI's pcOffset); nvdisasm and cuobjdump print each instruction's offset as
// /*0080*/ under its function's header. This joins the two, per SASS text line.
#pragma once

#include "run/run_report.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

// An instruction of a SASS listing: its 0-based line in the text, its function and offset.
struct SassSite {
    int line = 0;
    std::string function;
    long long offset = 0;
};

// Every instruction line of an nvdisasm (".text.NAME:" headers) or cuobjdump ("Function : NAME")
// listing, in text order.
std::vector<SassSite> sassSites(std::string_view sass);

// Samples gathered on one line (of SASS, or of source once mapped there).
struct LineSamples {
    int line = 0;                 // 0-based line of the text they are attributed to
    long long samples = 0;
    std::map<std::string, long long> stalls;
};

// The samples of `report` per SASS line of `sass`, in line order. Samples whose (function,
// offset) has no line in the listing are counted in *unplaced (when given).
std::vector<LineSamples> samplesPerSassLine(const PcSamplingReport& report, std::string_view sass, long long* unplaced = nullptr);

// The stall reasons of `line` with the most samples, most first, at most `count`; the
// "_not_issued" counters (subsets of other reasons) are left out.
std::vector<std::pair<std::string, long long>> topStalls(const LineSamples& line, size_t count);

}  // namespace kx::engine
