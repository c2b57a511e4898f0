// Opcode docs: lookup rules, loader errors, and coverage: every opcode that the shipped templates'
// default configs compile to (PTX, and SASS when nvdisasm or cuobjdump is present) on every arch
// CI builds them for has an entry.
#include "../test_support.hpp"
#include "analysis/opcode_docs.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <sstream>

using namespace kx::engine;
using kx::test::sourceDir;

TEST_CASE("opcode docs find the longest dotted prefix and skip predicates", "[analysis][opcodes]") {
    const std::string ptx = R"({"opcodes": [
        {"name": "cp", "summary": "copy", "section": "s", "operands": "o"},
        {"name": "cp.async", "summary": "async copy", "section": "s", "operands": "o"},
        {"name": "cp.async.bulk", "summary": "bulk copy", "section": "s", "operands": "o"}]})";
    const std::string sass = R"({"opcodes": [{"name": "LDG", "summary": "load", "section": "s", "operands": "o", "unit": "LSU"}]})";
    const OpcodeDocs docs = OpcodeDocs::parse(ptx, sass);
    REQUIRE(docs.ptx("cp.async.bulk.tensor.2d.shared::cluster.global"));
    CHECK(docs.ptx("cp.async.bulk.tensor.2d.shared::cluster.global")->name == "cp.async.bulk");
    CHECK(docs.ptx("cp.async.ca.shared.global")->name == "cp.async");
    CHECK(docs.ptx("@%p1 cp.reduce.async")->name == "cp");
    CHECK(docs.ptx("cpx") == nullptr);
    CHECK(docs.sass("@!P0 LDG.E.128.CONSTANT")->unit == "LSU");
    CHECK(docs.sass("ldg") == nullptr);  // case matters: SASS is upper case

    CHECK(instructionOpcode("\t@%p1 ld.global.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd4];") == "ld.global.v4.f32");
    CHECK(instructionOpcode("        /*0a30*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;") == "LDG.E.128");
    CHECK(instructionOpcode("\tret;") == "ret");
    CHECK(instructionOpcode("$L__BB0_2:") == "");
    CHECK(instructionOpcode(".L_x_3:") == "");
    CHECK(instructionOpcode("\t.reg .f32 %f<8>;") == "");
    CHECK(instructionOpcode("// comment") == "");
}

TEST_CASE("malformed opcode data is refused with the file and line or entry", "[analysis][opcodes]") {
    const std::string sass = R"({"opcodes": []})";
    try {
        OpcodeDocs::parse("{\"opcodes\": [\n{\"name\": \"fma\",\n \"summary\": }]}", sass, "ptx.json");
        FAIL("malformed JSON was accepted");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).rfind("ptx.json:3: malformed JSON", 0) == 0);
    }
    CHECK_THROWS_WITH(OpcodeDocs::parse(R"({"opcodes": [{"name": "fma", "summary": "x", "section": "s"}]})", sass),
                      "ptx.json: entry 'fma': missing \"operands\"");
    CHECK_THROWS_WITH(OpcodeDocs::parse(R"({"opcodes": []})", R"({"opcodes": [{"name": "FFMA", "summary": "x", "section": "s", "operands": "o"}]})"),
                      "sass.json: entry 'FFMA': missing \"unit\"");
    CHECK_THROWS_WITH(OpcodeDocs::parse(R"({"opcodes": [{"name": "a", "summary": "x", "section": "s", "operands": "o"},
                                                         {"name": "a", "summary": "y", "section": "s", "operands": "o"}]})", sass),
                      "ptx.json: entry 'a': a second entry with this name");
    CHECK_THROWS_WITH(OpcodeDocs::parse(R"([1, 2])", sass), "ptx.json: expected an object with an \"opcodes\" array");
}

TEST_CASE("the shipped opcode docs load, and every entry says something", "[analysis][opcodes]") {
    const OpcodeDocs docs = OpcodeDocs::load(sourceDir());
    CHECK(docs.ptxCount() >= 60);
    CHECK(docs.sassCount() >= 60);
    REQUIRE(docs.ptx("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
    CHECK(docs.ptx("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")->section.find("mma") != std::string::npos);
    REQUIRE(docs.sass("HMMA.16816.F32"));
    CHECK(docs.sass("HMMA.16816.F32")->unit == "Tensor core");
    CHECK(docs.sass("FFMA")->unit == "FMA");
    CHECK(docs.sass("LDG.E.128")->unit == "LSU");
}

namespace {

const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}

}  // namespace

TEST_CASE("every opcode the templates compile to has a docs entry", "[analysis][opcodes][shipped]") {
    const OpcodeDocs docs = OpcodeDocs::load(sourceDir());
    const TemplateLibrary library = TemplateLibrary::load(sourceDir() / "templates");
    Compiler compiler(cacheRoot() / "nvrtc");
    std::map<std::string, std::string> missingPtx, missingSass;  // opcode -> where first seen
    int compiled = 0, disassembled = 0;
    std::string noDisassembler;
    for (const auto& t : library.templates()) {
        for (const char* archName : {"sm_80", "sm_90", "sm_120"}) {
            // As CI builds them: the device's arch, or its arch-specific target (sm_90a) for a
            // template that needs one; a config invalid there is not built for that arch.
            const Arch* arch = archForDevice(arches(), archName, *t, t->defaultConfig());
            REQUIRE(arch);
            const PreparedVariant v = prepareVariant(*t, t->defaultConfig(), *arch);
            if (!v.violations.empty()) continue;
            const CompileResult r = compiler.compile(v.request);
            INFO(t->id() << " for " << arch->name << "\n" << r.log);
            REQUIRE(r.ok);
            ++compiled;
            std::istringstream ptx(r.ptx);
            for (std::string line; std::getline(ptx, line);) {
                const std::string_view op = instructionOpcode(line);
                if (!op.empty() && !docs.ptx(op)) missingPtx.emplace(std::string(op), t->id() + ", " + arch->name);
            }
            std::string error;
            const auto sass = disassembleCubin(r.cubin, &error);
            if (!sass) {
                noDisassembler = error;
                continue;
            }
            ++disassembled;
            std::istringstream listing(*sass);
            for (std::string line; std::getline(listing, line);) {
                if (line.find("/*") == std::string::npos || line.find(';') == std::string::npos) continue;
                const std::string_view op = instructionOpcode(line);
                if (!op.empty() && !docs.sass(op)) missingSass.emplace(std::string(op), t->id() + ", " + arch->name);
            }
        }
    }
    CHECK(compiled >= 40);
    if (disassembled == 0) WARN("SASS opcodes not checked: " << noDisassembler);
    std::string ptxList, sassList;
    for (const auto& [op, where] : missingPtx) ptxList += "\n  " + op + " (" + where + ")";
    for (const auto& [op, where] : missingSass) sassList += "\n  " + op + " (" + where + ")";
    INFO("PTX opcodes without an entry in assets/opcodes/ptx.json:" << ptxList);
    CHECK(missingPtx.empty());
    INFO("SASS opcodes without an entry in assets/opcodes/sass.json:" << sassList);
    CHECK(missingSass.empty());
}
