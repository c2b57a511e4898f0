#include "util/text.hpp"
#include "analysis/sass_listing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <filesystem>
#include <map>
#include <utility>

namespace kx::engine {

// [SECTION] Control codes

ControlCode decodeControlCode(std::uint64_t highWord) {
    const std::uint64_t bits = highWord >> 41;
    ControlCode c;
    c.stall = static_cast<int>(bits & 0xF);
    c.yield = ((bits >> 4) & 1) == 0;
    const int write = static_cast<int>((bits >> 5) & 7);
    const int read = static_cast<int>((bits >> 8) & 7);
    c.writeBarrier = write == 7 ? -1 : write;
    c.readBarrier = read == 7 ? -1 : read;
    c.waitMask = static_cast<unsigned>((bits >> 11) & 0x3F);
    c.reuse = static_cast<unsigned>((bits >> 17) & 0xF);
    return c;
}

std::string ControlCode::text() const {
    std::string reuseText, wait;
    for (int i = 0; i < 4; ++i) reuseText += (reuse >> i) & 1 ? 'R' : '-';
    for (int i = 0; i < 6; ++i) wait += (waitMask >> i) & 1 ? static_cast<char>('0' + i) : '-';
    auto barrier = [](int b) { return b < 0 ? std::string("-") : std::to_string(b); };
    return fmt::format("{}:B{}:R{}:W{}:{}:S{:02}", reuseText, wait, barrier(readBarrier), barrier(writeBarrier),
                       yield ? "Y" : "-", stall);
}

std::string ControlCode::compact() const {
    std::string wait;
    for (int i = 0; i < 6; ++i) wait += (waitMask >> i) & 1 ? static_cast<char>('0' + i) : '.';
    auto barrier = [](int b) { return b < 0 ? '.' : static_cast<char>('0' + b); };
    return fmt::format("S{:<2} {} W{} R{} B{}", stall, yield ? 'Y' : '.', barrier(writeBarrier), barrier(readBarrier), wait);
}

bool SassInstruction::isSpill() const {
    return opcode.rfind("STL", 0) == 0 || opcode.rfind("LDL", 0) == 0;
}

const SassInstruction* SassListing::atLine(int line1) const {
    if (line1 < 1 || line1 > static_cast<int>(instructionAtLine.size())) return nullptr;
    const int i = instructionAtLine[static_cast<std::size_t>(line1 - 1)];
    return i < 0 ? nullptr : &instructions[static_cast<std::size_t>(i)];
}

// [SECTION] Parsing

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool parseHex(std::string_view s, std::uint64_t& out) {
    if (s.rfind("0x", 0) == 0) s.remove_prefix(2);
    if (s.empty()) return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
    return ec == std::errc() && ptr == s.data() + s.size();
}

int parseInt(std::string_view s) {
    int v = 0;
    s = trim(s);
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() ? v : -1;
}

// "/*0a30*/" at the start of a trimmed line: the offset, and the rest after it.
bool parseAddress(std::string_view line, int& offset, std::string_view& rest) {
    line = trim(line);
    if (line.rfind("/*", 0) != 0) return false;
    const std::size_t close = line.find("*/");
    if (close == std::string_view::npos || close <= 2) return false;
    std::uint64_t v = 0;
    if (!parseHex(line.substr(2, close - 2), v)) return false;
    offset = static_cast<int>(v);
    rest = line.substr(close + 2);
    return true;
}

// A line that holds only an encoding word: "/* 0x000fe20000000039 */".
bool encodingOnly(std::string_view line, std::uint64_t* word) {
    line = trim(line);
    if (line.rfind("/*", 0) != 0 || line.size() < 6 || line.substr(line.size() - 2) != "*/") return false;
    std::uint64_t v = 0;
    if (!parseHex(trim(line.substr(2, line.size() - 4)), v)) return false;
    if (word) *word = v;
    return true;
}

// The kernel a header line opens: ".section .text.NAME,..." (nvdisasm), "Function : NAME"
// (cuobjdump). Empty when the line opens none.
std::string functionOf(std::string_view line) {
    const std::string_view t = trim(line);
    if (t.rfind(".section", 0) == 0) {
        const std::size_t at = t.find(".text.");
        if (at == std::string_view::npos) return {};
        std::string_view name = t.substr(at + 6);
        name = name.substr(0, name.find_first_of(", \t"));
        return std::string(name);
    }
    if (t.rfind("Function :", 0) == 0) return std::string(trim(t.substr(10)));
    return {};
}

// An instruction statement without its address: "@!P1 LDC R4, c[0x0][0x210] ;" -> text and
// opcode; also the first encoding word when the line carries one after the ';'.
struct Statement {
    std::string text, opcode;
    std::optional<std::uint64_t> lowWord;
};

std::optional<Statement> parseStatement(std::string_view rest) {
    const std::size_t semi = rest.find(';');
    if (semi == std::string_view::npos) return std::nullopt;
    Statement s;
    const std::string_view body = trim(rest.substr(0, semi));
    if (body.empty()) return std::nullopt;
    s.text = std::string(body);
    std::string_view words = body;
    if (words.front() == '@') words = trim(words.substr(std::min(words.size(), words.find_first_of(" \t"))));
    s.opcode = std::string(words.substr(0, words.find_first_of(" \t")));
    std::uint64_t word = 0;
    const std::string_view after = trim(rest.substr(semi + 1));
    if (!after.empty() && encodingOnly(after, &word)) s.lowWord = word;
    return s;
}

// One "//## File ..." annotation: its (file, line) pairs, innermost first.
std::vector<std::pair<std::string, int>> parseLocation(std::string_view line) {
    std::vector<std::pair<std::string, int>> out;
    std::size_t at = 0;
    for (;;) {
        const std::size_t q1 = line.find('"', at);
        if (q1 == std::string_view::npos) break;
        const std::size_t q2 = line.find('"', q1 + 1);
        if (q2 == std::string_view::npos) break;
        const std::size_t kw = line.find("line ", q2);
        if (kw == std::string_view::npos) break;
        std::size_t end = kw + 5;
        while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
        out.emplace_back(std::string(line.substr(q1 + 1, q2 - q1 - 1)), parseInt(line.substr(kw + 5, end - kw - 5)));
        at = end;
    }
    return out;
}

bool sameFile(const std::string& path, std::string_view sourceFile) {
    if (sourceFile.empty()) return true;
    return path == sourceFile || std::filesystem::path(path).filename() == std::filesystem::path(sourceFile).filename();
}

using Key = std::pair<std::string, int>;  // function, offset

// Walks an nvdisasm listing, calling onInstruction(function, offset, rest, lineIndex) for each
// instruction and onAnnotation(text) for each "//##" line.
template <typename OnInstruction, typename OnAnnotation>
void walk(const std::vector<std::string_view>& lines, OnInstruction onInstruction, OnAnnotation onAnnotation) {
    std::string function;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view t = trim(lines[i]);
        if (t.rfind("//##", 0) == 0) {
            onAnnotation(t);
            continue;
        }
        if (std::string f = functionOf(t); !f.empty()) {
            function = std::move(f);
            continue;
        }
        int offset = 0;
        std::string_view rest;
        if (parseAddress(t, offset, rest)) onInstruction(function, offset, rest, i);
    }
}

// The line shown for an instruction: the address and the statement, without nvdisasm's wide
// indentation and the encoding comment: "/*0a30*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
// (opcodes stay aligned).
std::string shownStatement(int offset, const Statement& statement) {
    std::string_view pred, body = statement.text;
    if (body.front() == '@') {
        const std::size_t space = body.find(' ');
        pred = body.substr(0, space);
        body = trim(body.substr(space));
    }
    return fmt::format("/*{:04x}*/ {:>5} {} ;", offset, pred, body);
}

// The shown text and the instructions, from the first output (nvdisasm -g/-gi with the
// encodings); byKey finds an instruction by (function, offset) for the later passes.
void readInstructions(std::string_view annotated, std::string_view sourceFile, SassListing& listing, std::map<Key, std::size_t>& byKey) {
    const std::vector<std::string_view> lines = splitLines(annotated);
    int pendingSource = 0;
    std::string function;
    std::size_t lastInstruction = SIZE_MAX;
    bool inAnnotations = false;  // -gi prints an inlining chain innermost first, one line each
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view raw = lines[i];
        const std::string_view t = trim(raw);
        const bool annotation = t.rfind("//##", 0) == 0;
        const bool chained = annotation && inAnnotations;
        inAnnotations = annotation;
        if (chained) continue;
        if (annotation) {
            pendingSource = 0;
            for (const auto& [file, line] : parseLocation(t)) {
                if (sameFile(file, sourceFile) && line > 0) {
                    pendingSource = line;
                    break;
                }
            }
            continue;
        }
        std::uint64_t word = 0;
        if (encodingOnly(t, &word)) {  // the second encoding word of the instruction above
            if (lastInstruction != SIZE_MAX && !listing.instructions[lastInstruction].control) {
                listing.instructions[lastInstruction].control = decodeControlCode(word);
                listing.hasControlCodes = true;
            }
            continue;
        }
        if (std::string f = functionOf(t); !f.empty()) function = std::move(f);
        int offset = 0;
        std::string_view rest;
        std::optional<Statement> statement;
        if (parseAddress(t, offset, rest)) statement = parseStatement(rest);
        listing.text += statement ? shownStatement(offset, *statement) : std::string(raw);
        listing.text += '\n';
        const int lineNumber = static_cast<int>(listing.instructionAtLine.size()) + 1;
        if (!statement) {
            listing.instructionAtLine.push_back(-1);
            continue;
        }
        SassInstruction ins;
        ins.function = function;
        ins.offset = offset;
        ins.text = std::move(statement->text);
        ins.opcode = std::move(statement->opcode);
        ins.listingLine = lineNumber;
        ins.sourceLine = pendingSource;
        if (pendingSource > 0) listing.hasSourceLines = true;
        lastInstruction = listing.instructions.size();
        listing.instructionAtLine.push_back(static_cast<int>(lastInstruction));
        byKey[{function, offset}] = lastInstruction;
        listing.instructions.push_back(std::move(ins));
    }
}

// PTX lines, from -gp.
void addPtxLines(std::string_view ptxLines, SassListing& listing, const std::map<Key, std::size_t>& byKey) {
    int pendingPtx = 0;
    walk(splitLines(ptxLines),
         [&](const std::string& f, int offset, std::string_view, std::size_t) {
             auto it = byKey.find({f, offset});
             if (it == byKey.end() || pendingPtx <= 0) return;
             listing.instructions[it->second].ptxLine = pendingPtx;
             listing.hasPtxLines = true;
         },
         [&](std::string_view annotation) {
             const auto loc = parseLocation(annotation);
             pendingPtx = loc.empty() ? 0 : loc.front().second;
         });
}

// Live registers, from -lrm count: "... ; // |  19  |  2  |     |" with a header row naming
// the columns ("GPR", "PRED", "UGPR").
void addLiveRanges(std::string_view lifeRanges, SassListing& listing, const std::map<Key, std::size_t>& byKey) {
    std::vector<std::string> columns;
    std::string current;
    for (std::string_view line : splitLines(lifeRanges)) {
        const std::size_t bar = line.find("// |");
        const std::string_view head = bar == std::string_view::npos ? line : line.substr(0, bar);
        if (std::string f = functionOf(head); !f.empty()) current = std::move(f);
        if (bar == std::string_view::npos) continue;
        std::vector<std::string_view> cells;
        std::string_view row = line.substr(bar + 4);
        for (std::size_t p; (p = row.find('|')) != std::string_view::npos; row.remove_prefix(p + 1))
            cells.push_back(trim(row.substr(0, p)));
        if (std::any_of(cells.begin(), cells.end(), [](std::string_view c) { return c == "GPR"; })) {
            columns.assign(cells.begin(), cells.end());
            continue;
        }
        int offset = 0;
        std::string_view rest;
        if (!parseAddress(head, offset, rest)) continue;
        auto it = byKey.find({current, offset});
        if (it == byKey.end()) continue;
        SassInstruction& ins = listing.instructions[it->second];
        for (std::size_t c = 0; c < cells.size() && c < columns.size(); ++c) {
            const int v = cells[c].empty() ? 0 : parseInt(cells[c]);
            if (columns[c] == "GPR") ins.liveRegisters = v;
            if (columns[c] == "PRED") ins.livePredicates = v;
            if (columns[c] == "UGPR") ins.liveUniform = v;
        }
        if (ins.liveRegisters >= 0) {
            listing.hasLiveRanges = true;
            listing.peakLiveRegisters = std::max(listing.peakLiveRegisters, ins.liveRegisters);
        }
    }
}

}  // namespace

SassListing parseSassListing(std::string_view annotated, std::string_view ptxLines, std::string_view lifeRanges,
                             std::string_view sourceFile) {
    SassListing listing;
    std::map<Key, std::size_t> byKey;
    readInstructions(annotated, sourceFile, listing, byKey);
    if (!ptxLines.empty()) addPtxLines(ptxLines, listing, byKey);
    if (!lifeRanges.empty()) addLiveRanges(lifeRanges, listing, byKey);
    return listing;
}

}  // namespace kx::engine
