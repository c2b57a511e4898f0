// The parts of the instruction-mix analyzers shared by their translation units
// (instruction_mix.cpp: categories, counting, SASS; instruction_mix_ptx.cpp: PTX). Not an API:
// include instruction_mix.hpp instead. Pure functions of the text; never throw.
#pragma once

#include "analysis/instruction_mix.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kx::engine::mix_detail {

// What one instruction adds: a category, and for memory the width in bits (-1 when none).
struct Classified {
    InstrCategory category = InstrCategory::Other;
    int widthBits = -1;
};

// [SECTION] Small text helpers (instruction_mix.cpp)
bool isSpace(char c);
std::string_view trim(std::string_view s);
// The first whitespace-separated word, and what follows it (trimmed).
std::pair<std::string_view, std::string_view> firstWord(std::string_view s);
// "ld.global.v4.f32" -> {"ld", "global", "v4", "f32"}.
std::vector<std::string_view> splitDots(std::string_view opcode);
// Whether a modifier (any part after the first) is p.
bool has(const std::vector<std::string_view>& parts, std::string_view p);
// The whole of s as an int, else fallback.
int toInt(std::string_view s, int fallback);

// [SECTION] PTX (instruction_mix_ptx.cpp)
// An instruction by its opcode with modifiers and its operands (cp.async's size).
Classified classifyPtx(std::string_view opcode, std::string_view operands);
// Comments removed (strings kept), line directives dropped; newlines kept.
std::string cleanPtx(std::string_view ptx);
// Strips leading braces, labels ("$L__BB0_2:") and a guard predicate ("@!%p1").
std::string_view stripPrefixes(std::string_view s);
// For a ".entry"/".func" directive with a body: the function's name and where its body starts
// (just after the '{'). Returns false for prototypes (.extern .func ...;) and other directives.
bool parseFunctionHeader(std::string_view stmt, std::string* name, bool* entry, std::string_view* rest);

}  // namespace kx::engine::mix_detail
