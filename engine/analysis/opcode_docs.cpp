#include "analysis/opcode_docs.hpp"

#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace kx::engine {

namespace {

std::string readText(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw InputError(p.string() + ": cannot read");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int lineOfByte(const std::string& text, std::size_t byte) {
    byte = std::min(byte, text.size());
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

// {"opcodes": [{"name": ..., "summary": ..., "section": ..., "operands": ..., "unit": ...}, ...]}
std::map<std::string, OpcodeDoc, std::less<>> parseTable(const std::string& text, const std::string& file, bool needUnit) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(file + ":" + std::to_string(lineOfByte(text, e.byte == 0 ? 0 : e.byte - 1)) + ": malformed JSON (" +
                         e.what() + ")");
    }
    if (!doc.is_object() || !doc.contains("opcodes") || !doc["opcodes"].is_array())
        throw InputError(file + ": expected an object with an \"opcodes\" array");
    std::map<std::string, OpcodeDoc, std::less<>> table;
    std::size_t index = 0;
    for (const nlohmann::json& e : doc["opcodes"]) {
        ++index;
        const std::string where = file + ": entry " +
                                  (e.is_object() && e.contains("name") && e["name"].is_string() ? "'" + e["name"].get<std::string>() + "'"
                                                                                              : "#" + std::to_string(index));
        if (!e.is_object()) throw InputError(where + ": expected an object");
        auto field = [&](const char* key, bool required) -> std::string {
            if (!e.contains(key)) {
                if (required) throw InputError(where + ": missing \"" + key + "\"");
                return {};
            }
            if (!e[key].is_string() || (required && e[key].get<std::string>().empty()))
                throw InputError(where + ": \"" + key + "\" must be a non-empty string");
            return e[key].get<std::string>();
        };
        OpcodeDoc d;
        d.name = field("name", true);
        d.summary = field("summary", true);
        d.section = field("section", true);
        d.operands = field("operands", true);
        d.unit = field("unit", needUnit);
        if (!table.emplace(d.name, d).second) throw InputError(where + ": a second entry with this name");
    }
    return table;
}

}  // namespace

OpcodeDocs OpcodeDocs::parse(const std::string& ptxJson, const std::string& sassJson, const std::string& ptxFileName,
                             const std::string& sassFileName) {
    OpcodeDocs docs;
    docs.m_ptx = parseTable(ptxJson, ptxFileName, false);
    docs.m_sass = parseTable(sassJson, sassFileName, true);
    return docs;
}

OpcodeDocs OpcodeDocs::load(const std::filesystem::path& dataRoot) {
    const auto dir = dataRoot / "assets" / "opcodes";
    return parse(readText(dir / "ptx.json"), readText(dir / "sass.json"), (dir / "ptx.json").string(), (dir / "sass.json").string());
}

const OpcodeDoc* OpcodeDocs::find(const std::map<std::string, OpcodeDoc, std::less<>>& table, std::string_view opcode) {
    if (!opcode.empty() && opcode.front() == '@') {
        const std::size_t space = opcode.find_first_of(" \t");
        opcode = space == std::string_view::npos ? std::string_view() : opcode.substr(space + 1);
        while (!opcode.empty() && std::isspace(static_cast<unsigned char>(opcode.front()))) opcode.remove_prefix(1);
    }
    opcode = opcode.substr(0, opcode.find_first_of(" \t"));
    for (;;) {
        if (auto it = table.find(opcode); it != table.end()) return &it->second;
        const std::size_t dot = opcode.rfind('.');
        if (dot == std::string_view::npos || dot == 0) return nullptr;
        opcode = opcode.substr(0, dot);
    }
}

std::string_view instructionOpcode(std::string_view line) {
    auto skipSpace = [&] {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    };
    skipSpace();
    if (line.rfind("/*", 0) == 0) {  // a SASS address
        const std::size_t close = line.find("*/");
        if (close == std::string_view::npos) return {};
        line.remove_prefix(close + 2);
        skipSpace();
    }
    while (!line.empty() && (line.front() == '{' || line.front() == '}')) {  // dual-issue braces
        line.remove_prefix(1);
        skipSpace();
    }
    if (!line.empty() && line.front() == '@') {
        const std::size_t space = line.find_first_of(" \t");
        if (space == std::string_view::npos) return {};
        line.remove_prefix(space);
        skipSpace();
    }
    if (line.empty() || !std::isalpha(static_cast<unsigned char>(line.front()))) return {};
    const std::size_t end = line.find_first_of(" \t;,");
    std::string_view op = line.substr(0, end);
    if (end == std::string_view::npos || line[end] == ':') return {};  // a label ("$L__BB0_1:")
    if (op.back() == ':') return {};
    return op;
}

}  // namespace kx::engine
