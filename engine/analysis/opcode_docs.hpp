// Short documentation of PTX and SASS opcodes, kept as data in assets/opcodes/ (ptx.json,
// sass.json; the format is in assets/README.md), for hover help in the code views.
//
// Lookup takes an instruction's opcode with its modifiers ("cp.async.bulk.tensor.2d.shared::
// cluster.global", "LDG.E.128.CONSTANT") and finds the entry with the longest matching
// dot-separated prefix ("cp.async.bulk.tensor", then "cp.async.bulk", "cp.async", "cp"), so a
// family shares one entry and a member that differs gets its own. A predicate ("@P0", "@%p1")
// in front is skipped. Lookups are case-sensitive: PTX is lower case, SASS upper case.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

struct OpcodeDoc {
    std::string name;      // the key: "fma", "cp.async.bulk", "HMMA"
    std::string summary;   // one or two sentences written for this project
    std::string section;   // PTX: the PTX ISA section; SASS: the instruction-set table's group
    std::string operands;  // operand types, informally: "d, a, b, c: .f32 / .f64 registers"
    std::string unit;      // SASS: the pipe it issues to (FMA, ALU, LSU, tensor core, ...); PTX: empty
};

class OpcodeDocs {
public:
    // Reads assets/opcodes/{ptx,sass}.json under dataRoot. Throws InputError "FILE:LINE: reason"
    // for malformed JSON, and "FILE: entry NAME: reason" for a missing field or a duplicate name.
    static OpcodeDocs load(const std::filesystem::path& dataRoot);
    // The same from text, for tests; fileName is used in error messages.
    static OpcodeDocs parse(const std::string& ptxJson, const std::string& sassJson, const std::string& ptxFileName = "ptx.json",
                            const std::string& sassFileName = "sass.json");

    const OpcodeDoc* ptx(std::string_view opcode) const { return find(m_ptx, opcode); }
    const OpcodeDoc* sass(std::string_view opcode) const { return find(m_sass, opcode); }
    std::size_t ptxCount() const { return m_ptx.size(); }
    std::size_t sassCount() const { return m_sass.size(); }

private:
    static const OpcodeDoc* find(const std::map<std::string, OpcodeDoc, std::less<>>& table, std::string_view opcode);
    std::map<std::string, OpcodeDoc, std::less<>> m_ptx, m_sass;
};

// The opcode of an instruction line's statement, predicate and address skipped: "ld.global.v4.f32"
// of "@%p1 ld.global.v4.f32 {%f1, ...}, [%rd4];", "LDG.E.128" of "/*0a30*/ @!P0 LDG.E.128 R4, [R2.64] ;".
// Empty for a line that is no instruction (a directive, label, comment, brace).
std::string_view instructionOpcode(std::string_view line);

}  // namespace kx::engine
