// Text and JSON forms of a line map, for `kx compile --emit map`.
#include "util/text.hpp"
#include "analysis/line_map.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kx::engine {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::string_view lineAt(const std::vector<std::string_view>& lines, int line1) {
    return line1 >= 1 && line1 <= static_cast<int>(lines.size()) ? lines[static_cast<std::size_t>(line1 - 1)] : std::string_view();
}

}  // namespace

std::string lineRanges(const std::vector<int>& lines) {
    std::string out;
    for (std::size_t i = 0; i < lines.size();) {
        std::size_t j = i;
        while (j + 1 < lines.size() && lines[j + 1] == lines[j] + 1) ++j;
        out += (out.empty() ? "" : ",") + (j == i ? std::to_string(lines[i]) : fmt::format("{}-{}", lines[i], lines[j]));
        i = j + 1;
    }
    return out.empty() ? "-" : out;
}

std::string lineMapText(const LineMap& map, std::string_view source, std::string_view ptx, const SassListing* sass) {
    (void)ptx;
    const std::vector<std::string_view> sourceLines = splitLines(source);
    std::string out = fmt::format("{:>5}  {:<18} {:<18} {:<24} {}\n", "LINE", "PTX LINES", "SASS LINES", "INSTRUCTIONS", "SOURCE");
    for (const auto& [line, info] : map.bySource) {
        std::string sassText = sass == nullptr ? "(no SASS)" : lineRanges(info.sassLines);
        out += fmt::format("{:>5}  {:<18} {:<18} {:<24} {}\n", line, lineRanges(info.ptxLines), sassText,
                           lineCountsSummary(info.counts) + (info.spills ? " SPILLS" : ""), trimmed(lineAt(sourceLines, line)));
    }
    if (map.bySource.empty()) out += "(no line information: the PTX carries no .loc for the kernel's source)\n";
    return out;
}

std::string lineMapJson(const LineMap& map, std::string_view source, std::string_view ptx, const SassListing* sass,
                        std::string_view sourceFile) {
    const std::vector<std::string_view> sourceLines = splitLines(source), ptxLines = splitLines(ptx);
    const std::vector<std::string_view> sassLines = sass ? splitLines(sass->text) : std::vector<std::string_view>{};
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& [line, info] : map.bySource) {
        nlohmann::json p = nlohmann::json::array(), s = nlohmann::json::array(), counts = nlohmann::json::object();
        for (int l : info.ptxLines) p.push_back({{"line", l}, {"text", std::string(trimmed(lineAt(ptxLines, l)))}});
        for (int l : info.sassLines) {
            nlohmann::json row = {{"line", l}, {"text", std::string(trimmed(lineAt(sassLines, l)))}};
            if (const SassInstruction* ins = sass->atLine(l)) {
                if (ins->control) row["control"] = ins->control->text();
                if (ins->liveRegisters >= 0) row["live_registers"] = ins->liveRegisters;
            }
            s.push_back(std::move(row));
        }
        for (int c = 0; c < kInstrCategoryCount; ++c)
            if (info.counts.byCategory[static_cast<std::size_t>(c)] > 0)
                counts[categoryKey(static_cast<InstrCategory>(c))] = info.counts.byCategory[static_cast<std::size_t>(c)];
        lines.push_back({{"line", line}, {"source", std::string(trimmed(lineAt(sourceLines, line)))}, {"ptx", p}, {"sass", s},
                         {"counts", counts}, {"counts_from", info.countsFromSass ? "sass" : "ptx"}, {"spills", info.spills}});
    }
    nlohmann::json doc = {{"source_file", std::string(sourceFile)}, {"sass", sass != nullptr}, {"lines", lines}};
    if (sass && sass->peakLiveRegisters >= 0) doc["peak_live_registers"] = sass->peakLiveRegisters;
    return doc.dump(2) + "\n";
}

}  // namespace kx::engine
