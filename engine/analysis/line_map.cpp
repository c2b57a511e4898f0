#include "analysis/line_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>

namespace kx::engine {

int LineMap::sourceOfPtxLine(int line1) const {
    return line1 >= 1 && line1 <= static_cast<int>(sourceOfPtx.size()) ? sourceOfPtx[static_cast<std::size_t>(line1 - 1)] : 0;
}

int LineMap::sourceOfSassLine(int line1) const {
    return line1 >= 1 && line1 <= static_cast<int>(sourceOfSass.size()) ? sourceOfSass[static_cast<std::size_t>(line1 - 1)] : 0;
}

const SourceLineInfo* LineMap::info(int sourceLine) const {
    const auto it = bySource.find(sourceLine);
    return it == bySource.end() ? nullptr : &it->second;
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

template <typename F>
void forEachLine(std::string_view text, F f) {
    std::size_t start = 0, index = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        f(index++, line);
        start = end + 1;
    }
}

int toInt(std::string_view s) {
    int v = 0;
    s = trim(s);
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() ? v : -1;
}

// The whitespace/comma separated words of a directive's operands.
std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == ',')) ++i;
        const std::size_t start = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != ',') ++i;
        if (i > start) out.push_back(s.substr(start, i - start));
    }
    return out;
}

// A PTX line that is an instruction: the opcode (predicate stripped) and its operands.
bool ptxInstruction(std::string_view line, std::string_view& opcode, std::string_view& operands) {
    line = trim(line);
    if (const std::size_t comment = line.find("//"); comment != std::string_view::npos) line = trim(line.substr(0, comment));
    if (line.empty() || line.front() == '.' || line.front() == '{' || line.front() == '}' || line.back() == ':' ||
        line.front() == ')' || line.front() == '(')
        return false;
    if (line.front() == '@') {
        const std::size_t space = line.find_first_of(" \t");
        if (space == std::string_view::npos) return false;
        line = trim(line.substr(space));
    }
    const std::size_t space = line.find_first_of(" \t;");
    opcode = line.substr(0, space);
    if (opcode.empty() || !std::isalpha(static_cast<unsigned char>(opcode.front()))) return false;
    operands = space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
    if (!operands.empty() && operands.back() == ';') operands.remove_suffix(1);
    return true;
}

}  // namespace

std::vector<int> ptxSourceLines(std::string_view ptx, std::string_view sourceFile) {
    std::vector<int> out;
    std::map<int, bool> ours;  // .file index -> names the kernel's source
    const std::string wanted = std::filesystem::path(sourceFile).filename().string();
    // NVRTC writes the .file directives after the code: read them first.
    forEachLine(ptx, [&](std::size_t, std::string_view raw) {
        const std::string_view line = trim(raw);
        if (line.rfind(".file", 0) != 0) return;
        const std::vector<std::string_view> w = words(line.substr(5));
        if (w.size() < 2) return;
        std::string_view name = w[1];
        if (name.size() >= 2 && name.front() == '"') name = name.substr(1, name.find('"', 1) - 1);
        const int index = toInt(w[0]);
        ours[index] = wanted.empty() ? index == 1 : std::filesystem::path(name).filename().string() == wanted;
    });
    int current = 0;
    forEachLine(ptx, [&](std::size_t, std::string_view raw) {
        const std::string_view line = trim(raw);
        out.push_back(0);
        if (line.rfind(".file", 0) == 0) return;
        if (line.rfind(".loc", 0) == 0) {
            // ".loc 1 107 5, function_name $L__info_string0, inlined_at 1 325 5"
            const std::vector<std::string_view> w = words(line.substr(4));
            current = 0;
            auto take = [&](std::size_t at) {
                if (at + 1 >= w.size()) return false;
                const int file = toInt(w[at]), sourceLine = toInt(w[at + 1]);
                if (sourceLine > 0 && ours.count(file) && ours[file]) {
                    current = sourceLine;
                    return true;
                }
                return false;
            };
            if (!take(0)) {
                const auto inl = std::find(w.begin(), w.end(), "inlined_at");
                if (inl != w.end()) take(static_cast<std::size_t>(inl - w.begin()) + 1);
            }
            return;
        }
        if (line.rfind(".entry", 0) == 0 || line.rfind(".visible", 0) == 0 || line.rfind(".func", 0) == 0 || line == "}")
            current = 0;  // a new function starts without a location
        std::string_view opcode, operands;
        if (current > 0 && ptxInstruction(line, opcode, operands)) out.back() = current;
    });
    return out;
}

LineMap buildLineMap(std::string_view ptx, const SassListing* sass, std::string_view sourceFile) {
    LineMap map;
    map.sourceOfPtx = ptxSourceLines(ptx, sourceFile);
    const bool useSass = sass != nullptr && !sass->instructions.empty();
    forEachLine(ptx, [&](std::size_t i, std::string_view line) {
        const int source = i < map.sourceOfPtx.size() ? map.sourceOfPtx[i] : 0;
        if (source <= 0) return;
        map.hasPtx = true;
        SourceLineInfo& info = map.bySource[source];
        info.ptxLines.push_back(static_cast<int>(i) + 1);
        std::string_view opcode, operands;
        if (!useSass && ptxInstruction(line, opcode, operands)) addPtxInstruction(info.counts, opcode, operands);
    });
    if (sass != nullptr) {
        map.sourceOfSass.assign(sass->instructionAtLine.size(), 0);
        for (const SassInstruction& ins : sass->instructions) {
            int source = ins.sourceLine;
            if (source <= 0 && ins.ptxLine > 0) source = map.sourceOfPtxLine(ins.ptxLine);
            if (source <= 0) continue;
            map.hasSass = true;
            map.sourceOfSass[static_cast<std::size_t>(ins.listingLine - 1)] = source;
            SourceLineInfo& info = map.bySource[source];
            info.sassLines.push_back(ins.listingLine);
            info.countsFromSass = true;
            addSassInstruction(info.counts, ins.opcode);
            if (ins.isSpill()) ++info.spills;
        }
    }
    return map;
}

std::string lineCountsSummary(const MixCounts& counts, int maxItems) {
    using C = InstrCategory;
    // The order says what matters most for performance at a glance, not which is most frequent.
    struct Item {
        C category;
        const char* tag;
        const WidthCounts* widths;
    };
    const Item order[] = {
        {C::TensorCore, "MMA", nullptr},      {C::LocalStore, "STL", nullptr},
        {C::LocalLoad, "LDL", nullptr},       {C::Fp32, "FMA", nullptr},
        {C::Fp16, "HFMA", nullptr},           {C::Fp64, "DFMA", nullptr},
        {C::GlobalLoad, "LDG", &counts.globalLoads}, {C::GlobalStore, "STG", &counts.globalStores},
        {C::AsyncCopy, "CPA", &counts.asyncCopies},  {C::SharedLoad, "LDS", &counts.sharedLoads},
        {C::SharedStore, "STS", &counts.sharedStores}, {C::Barrier, "BAR", nullptr},
        {C::Atomic, "ATOM", nullptr},         {C::Shuffle, "SHFL", nullptr},
        {C::SpecialFunction, "SFU", nullptr}, {C::Conversion, "CVT", nullptr},
        {C::OtherMemory, "MEM", nullptr},     {C::Integer, "INT", nullptr},
        {C::Control, "BRA", nullptr},         {C::Other, "OTH", nullptr},
    };
    std::string out;
    int shown = 0;
    for (const Item& item : order) {
        const int n = counts[item.category];
        if (n == 0) continue;
        if (shown == maxItems) break;
        std::string tag = item.tag;
        // One access width for all of them: say it ("LDS128"); mixed widths stay plain.
        if (item.widths != nullptr && item.widths->size() == 1 && item.widths->begin()->first > 0)
            tag += std::to_string(item.widths->begin()->first);
        out += fmt::format("{}{}{}", out.empty() ? "" : " ", n, tag);
        ++shown;
    }
    return out;
}

int kernelEntryLine(std::string_view text) {
    int found = 0;
    int firstAddress = 0;
    forEachLine(text, [&](std::size_t i, std::string_view raw) {
        if (found) return;
        const std::string_view line = trim(raw);
        if (line.rfind("//", 0) != 0 && line.rfind("*", 0) != 0 &&
            (line.find("__global__") != std::string_view::npos || line.rfind(".entry", 0) == 0 ||
             line.rfind(".visible .entry", 0) == 0))
            found = static_cast<int>(i) + 1;
        if (firstAddress == 0 && line.rfind("/*", 0) == 0 && line.find("*/") != std::string_view::npos &&
            line.find(';') != std::string_view::npos)
            firstAddress = static_cast<int>(i) + 1;
    });
    if (found) return found;
    return firstAddress > 0 ? firstAddress : 1;
}

}  // namespace kx::engine
