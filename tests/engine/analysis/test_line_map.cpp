// The source -> PTX -> SASS line map: `.loc` parsing on hand-written PTX, and a real NVRTC
// compile of a small kernel whose lines are known, through nvdisasm when it is present.
#include "../test_support.hpp"
#include "analysis/line_map.hpp"
#include "compile/compiler.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kx::engine;

namespace {

std::string lineOf(const std::string& text, int line1) {
    std::size_t start = 0;
    for (int i = 1; i < line1; ++i) start = text.find('\n', start) + 1;
    return text.substr(start, text.find('\n', start) - start);
}

}  // namespace

TEST_CASE("PTX lines map to the kernel's source through .loc, inlined code to its call site", "[analysis][linemap]") {
    const std::string ptx = "\t.file\t1 \"kernel.cu\"\n"                                     // 1
                            "\t.file\t2 \"/usr/local/cuda/include/cuda_fp16.hpp\"\n"         // 2
                            ".visible .entry k(\n"                                              // 3
                            ")\n"                                                               // 4
                            "{\n"                                                               // 5
                            "\t.loc\t1 7 3\n"                                                   // 6
                            "\tld.param.u64 \t%rd1, [k_param_0];\n"                             // 7
                            "\t.loc\t2 566 5, function_name $L__info_string0, inlined_at 1 9 5\n"  // 8
                            "\tcvt.rn.f16.f32 \t%rs1, %f1;\n"                                   // 9
                            "$L__BB0_2:\n"                                                      // 10
                            "\t.loc\t1 0 3\n"                                                   // 11
                            "\tret;\n"                                                          // 12
                            "\t.loc\t1 12 1\n"                                                  // 13
                            "\t@%p1 bra \t$L__BB0_2;\n"                                         // 14
                            "}\n";                                                              // 15
    const std::vector<int> lines = ptxSourceLines(ptx, "kernel.cu");
    REQUIRE(lines.size() == 15);
    CHECK(lines[6] == 7);
    CHECK(lines[8] == 9);    // the header's line 566 counts as line 9, where it was inlined
    CHECK(lines[9] == 0);    // a label is no instruction
    CHECK(lines[11] == 0);   // .loc line 0: no location
    CHECK(lines[13] == 12);  // predicated instruction
    CHECK(lines[5] == 0);    // the directive itself
    const LineMap map = buildLineMap(ptx, nullptr, "kernel.cu");
    REQUIRE(map.info(7));
    CHECK(map.info(7)->ptxLines == std::vector<int>{7});
    CHECK(map.info(9)->counts[InstrCategory::Conversion] == 1);
    CHECK(map.info(12)->counts[InstrCategory::Control] == 1);
    CHECK(map.sourceOfPtxLine(9) == 9);
    CHECK(map.sourceOfPtxLine(99) == 0);
    CHECK(map.hasPtx);
    CHECK_FALSE(map.hasSass);
}

TEST_CASE("line count summaries put tensor cores and spills first and name one width", "[analysis][linemap]") {
    MixCounts c;
    addSassInstruction(c, "IADD3");
    addSassInstruction(c, "LDS.128");
    addSassInstruction(c, "LDS.128");
    addSassInstruction(c, "HMMA.16816.F32");
    addSassInstruction(c, "STL");
    CHECK(lineCountsSummary(c) == "1MMA 1STL 2LDS128");
    CHECK(lineCountsSummary(c, 5) == "1MMA 1STL 2LDS128 1INT");
    addSassInstruction(c, "LDS");
    CHECK(lineCountsSummary(c, 3) == "1MMA 1STL 3LDS");
    CHECK(lineCountsSummary(MixCounts{}) == "");
}

TEST_CASE("the entry line of CUDA, PTX and SASS skips the header comment", "[analysis][linemap]") {
    CHECK(kernelEntryLine("// a kernel\n// that adds\n#include <x>\n\nextern \"C\" __global__ void k() {}\n") == 5);
    CHECK(kernelEntryLine("/*\n * __global__ in a comment\n */\n__global__ void k();\n") == 4);
    CHECK(kernelEntryLine("//\n.version 8.8\n.target sm_90\n.visible .entry k(\n") == 4);
    CHECK(kernelEntryLine("\t.headerflags\n\t.section .text.k\nk:\n        /*0000*/   LDC R1, c[0x0][0x28] ;\n") == 4);
    CHECK(kernelEntryLine("nothing here") == 1);
}

TEST_CASE("a real compile maps each source line to its PTX and SASS", "[analysis][linemap][compile]") {
    CompileRequest request;
    request.arch = "sm_90";
    request.fileName = "axpy.cu";
    request.source = "// y = a x + y\n"                                                          // 1
                     "extern \"C\" __global__ void axpy(float a, const float* x, float* y, int n) {\n"  // 2
                     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                      // 3
                     "    if (i < n)\n"                                                           // 4
                     "        y[i] = a * x[i] + y[i];\n"                                          // 5
                     "}\n";                                                                       // 6
    Compiler compiler({});
    const CompileResult r = compiler.compile(request);
    INFO(r.log);
    REQUIRE(r.ok);
    CHECK(r.ptx.find(".loc") != std::string::npos);

    std::string error;
    const auto sass = disassembleListing(r.cubin, request.fileName, &error);
    const LineMap map = buildLineMap(r.ptx, sass ? &*sass : nullptr, request.fileName);
    REQUIRE(map.hasPtx);
    const SourceLineInfo* body = map.info(5);
    REQUIRE(body);
    bool ptxFma = false;
    for (int line : body->ptxLines) ptxFma = ptxFma || lineOf(r.ptx, line).find("fma.rn.f32") != std::string::npos;
    CHECK(ptxFma);
    const SourceLineInfo* index = map.info(3);
    REQUIRE(index);
    bool tid = false;
    for (int line : index->ptxLines) tid = tid || lineOf(r.ptx, line).find("%tid.x") != std::string::npos;
    CHECK(tid);
    CHECK(map.info(1) == nullptr);  // a comment makes no code

    if (!sass) {
        WARN("no disassembler, SASS side of the line map not checked: " << error);
        CHECK(body->counts[InstrCategory::Fp32] == 1);
        return;
    }
    REQUIRE(map.hasSass);
    CHECK(body->countsFromSass);
    CHECK(body->counts[InstrCategory::Fp32] == 1);          // one FFMA
    CHECK(body->counts[InstrCategory::GlobalLoad] == 2);    // x[i], y[i]
    CHECK(body->counts[InstrCategory::GlobalStore] == 1);
    bool sassFfma = false;
    for (int line : body->sassLines) {
        sassFfma = sassFfma || lineOf(sass->text, line).find("FFMA") != std::string::npos;
        CHECK(map.sourceOfSassLine(line) == 5);
    }
    CHECK(sassFfma);
    // nvdisasm's PTX line numbers (-gp) point into the PTX text shown: the FFMA's PTX line is the
    // fma, so the PTX of the PTX stage and of the full compile are the same text.
    for (const SassInstruction& ins : sass->instructions) {
        if (ins.opcode != "FFMA") continue;
        REQUIRE(ins.ptxLine > 0);
        CHECK(lineOf(r.ptx, ins.ptxLine).find("fma.rn.f32") != std::string::npos);
    }
    CHECK(std::is_sorted(body->sassLines.begin(), body->sassLines.end()));
}

TEST_CASE("line info changes the cache key but not the code", "[analysis][linemap][compile]") {
    CompileRequest request;
    request.arch = "sm_90";
    request.source = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n";
    CompileRequest plain = request;
    plain.lineInfo = false;
    CHECK(compileCacheKey(request) != compileCacheKey(plain));
    Compiler compiler({});
    const CompileResult with = compiler.compile(request), without = compiler.compile(plain);
    REQUIRE((with.ok && without.ok));
    CHECK(with.ptx.find(".loc") != std::string::npos);
    CHECK(without.ptx.find(".loc") == std::string::npos);
    std::string error;
    const auto a = disassembleListing(with.cubin, request.fileName, &error);
    const auto b = disassembleListing(without.cubin, request.fileName, &error);
    if (!a || !b) {
        WARN("no disassembler, SASS not compared: " << error);
        return;
    }
    CHECK(a->text == b->text);
    REQUIRE(a->instructions.size() == b->instructions.size());
    for (std::size_t i = 0; i < a->instructions.size(); ++i) CHECK(a->instructions[i].control == b->instructions[i].control);
}

TEST_CASE("local-memory accesses are flagged as spills on the source line that makes them", "[analysis][linemap][compile]") {
    // A register array indexed at run time lives in local memory: STL on line 3, LDL on line 4.
    CompileRequest request;
    request.arch = "sm_90";
    request.fileName = "local.cu";
    request.source = "extern \"C\" __global__ void k(float* out, int n) {\n"   // 1
                     "    float a[64];\n"                                       // 2
                     "    for (int i = 0; i < 64; ++i) a[(threadIdx.x + i * n) & 63] = out[i];\n"  // 3
                     "    out[threadIdx.x] = a[(threadIdx.x * n) % 64];\n"      // 4
                     "}\n";                                                     // 5
    Compiler compiler({});
    const CompileResult r = compiler.compile(request);
    INFO(r.log);
    REQUIRE(r.ok);
    std::string error;
    const auto sass = disassembleListing(r.cubin, request.fileName, &error);
    if (!sass) {
        WARN("no disassembler, spills not checked: " << error);
        return;
    }
    const LineMap map = buildLineMap(r.ptx, &*sass, request.fileName);
    int spills = 0;
    for (const auto& [line, info] : map.bySource) spills += info.spills;
    CHECK(spills > 0);
    REQUIRE(map.info(4));
    CHECK(map.info(4)->counts[InstrCategory::LocalLoad] >= 1);
    CHECK(map.info(4)->spills >= 1);
    REQUIRE(map.info(3));
    CHECK(map.info(3)->counts[InstrCategory::LocalStore] >= 1);
    for (const SassInstruction& ins : sass->instructions)
        if (ins.isSpill()) CHECK(map.sourceOfSassLine(ins.listingLine) > 0);
}
