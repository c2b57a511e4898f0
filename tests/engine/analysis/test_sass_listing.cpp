// SASS listings: control-code decoding on known encodings, parsing of nvdisasm's three annotated
// modes, and, when nvdisasm is present, the decoder checked against nvdisasm's own output on a
// real compile (".reuse" markers, scoreboard waits before reads of S2R results).
#include "../test_support.hpp"
#include "analysis/sass_listing.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>

#include <regex>

using namespace kx::engine;
using kx::test::sourceDir;

TEST_CASE("control codes decode from the second encoding word", "[analysis][sass]") {
    // Encodings as nvdisasm -hex prints them for an sm_90 GEMM.
    // LDC R54, c[0x0][0x230]: variable latency, releases scoreboard 1 when written.
    const ControlCode ldc = decodeControlCode(0x000e620000000800ULL);
    CHECK(ldc.stall == 1);
    CHECK(ldc.writeBarrier == 1);
    CHECK(ldc.readBarrier == -1);
    CHECK(ldc.waitMask == 0);
    CHECK(ldc.reuse == 0);
    CHECK_FALSE(ldc.yield);
    CHECK(ldc.text() == "----:B------:R-:W1:-:S01");
    // S2R R55, SR_TID.X: scoreboard 2.
    CHECK(decodeControlCode(0x000ea20000002100ULL).text() == "----:B------:R-:W2:-:S01");
    // LDC R1, c[0x0][0x28]: the stack pointer, nobody waits for it: a fixed 8-cycle stall.
    CHECK(decodeControlCode(0x000ff00000000800ULL).text() == "----:B------:R-:W-:-:S08");
    // Every field at once, from bits built by hand: stall 5, yield (bit clear), write SB3,
    // read SB4, wait on SB0 and SB5, reuse slots a and c.
    const std::uint64_t bits = 5 | (0u << 4) | (3u << 5) | (4u << 8) | (0x21u << 11) | (0x5u << 17);
    const ControlCode all = decodeControlCode(static_cast<std::uint64_t>(bits) << 41 | 0x1234);
    CHECK(all.text() == "R-R-:B0----5:R4:W3:Y:S05");
    CHECK(all.compact() == "S5  Y W3 R4 B0....5");
}

TEST_CASE("a listing joins nvdisasm's source, PTX and life-range outputs by function and offset", "[analysis][sass]") {
    const std::string annotated = R"(	.text.k:
	.section	.text.k,"ax",@progbits
k:
	//## File "/tmp/kernel.cu", line 4
        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */
                                                                           /* 0x000ff00000000800 */
	//## File "/usr/local/cuda/include/cuda_fp16.hpp", line 566 inlined at "kernel.cu", line 9
	//## File "kernel.cu", line 9 inlined at "kernel.cu", line 20
	//## File "kernel.cu", line 20
        /*0010*/              @!P0 S2R R55, SR_TID.X ;                     /* 0x0000000000377919 */
                                                                           /* 0x000ea20000002100 */
.L_x_1:
        /*0020*/                   STL [R1], R2 ;                          /* 0x0000000201007387 */
                                                                           /* 0x000fe20000100800 */
)";
    const std::string ptx = R"(	.section	.text.k,"ax",@progbits
	//## File ".nv_debug_ptx_txt", line 30
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File ".nv_debug_ptx_txt", line 41
        /*0010*/              @!P0 S2R R55, SR_TID.X ;
)";
    const std::string lives = R"(	.section	.text.k,"ax",@progbits             // +-------+--------+--------+
                                                                 // | GPR   | PRED   | UGPR   |
                                                                 // |    #  |   #    |    #   |
        /*0000*/                   LDC R1, c[0x0][0x28] ;        // |   19  |   2    |        |
        /*0010*/              @!P0 S2R R55, SR_TID.X ;           // |   21  |   2    |    2   |
        /*0020*/                   STL [R1], R2 ;                // |   20  |   1    |    2   |
)";
    const SassListing l = parseSassListing(annotated, ptx, lives, "kernel.cu");
    REQUIRE(l.instructions.size() == 3);
    // The shown text drops annotations and encodings but keeps headers and labels.
    CHECK(l.text.find("//##") == std::string::npos);
    CHECK(l.text.find("0x000ff00000000800") == std::string::npos);
    CHECK(l.text.find(".L_x_1:") != std::string::npos);
    const SassInstruction& ldc = l.instructions[0];
    CHECK(ldc.function == "k");
    CHECK(ldc.text == "LDC R1, c[0x0][0x28]");
    CHECK(ldc.opcode == "LDC");
    CHECK(ldc.sourceLine == 4);
    CHECK(ldc.ptxLine == 30);
    CHECK(ldc.liveRegisters == 19);
    CHECK(ldc.liveUniform == 0);
    REQUIRE(ldc.control);
    CHECK(ldc.control->stall == 8);
    CHECK(l.atLine(ldc.listingLine) == &ldc);
    CHECK(l.text.substr(0, l.text.find('\n')).find("text.k") != std::string::npos);
    const SassInstruction& s2r = l.instructions[1];
    CHECK(s2r.opcode == "S2R");
    CHECK(s2r.text == "@!P0 S2R R55, SR_TID.X");
    CHECK(s2r.sourceLine == 9);  // the innermost line of the kernel's file: a header counts as its call site
    CHECK(s2r.ptxLine == 41);
    CHECK(s2r.liveUniform == 2);
    CHECK(s2r.control->writeBarrier == 2);
    CHECK(l.instructions[2].isSpill());
    CHECK(l.instructions[2].sourceLine == 9);  // nvdisasm annotates changes only: a location holds until the next
    CHECK(l.peakLiveRegisters == 21);
    CHECK((l.hasSourceLines && l.hasPtxLines && l.hasLiveRanges && l.hasControlCodes));
    CHECK(l.atLine(1) == nullptr);
}

namespace {

// "R4, R2, R3" of "@!P0 IADD3 R4, R2, R3": the operands after the opcode.
std::string operandsOf(const std::string& text) {
    std::size_t at = text.front() == '@' ? text.find(' ') + 1 : 0;
    at = text.find(' ', at);
    return at == std::string::npos ? std::string() : text.substr(at + 1);
}

std::string destinationOf(const std::string& text) {
    const std::string ops = operandsOf(text);
    return ops.substr(0, ops.find(','));
}

// Whether an instruction reads register reg (a whole token among the operands after the first).
bool reads(const std::string& text, const std::string& reg) {
    const std::string ops = operandsOf(text);
    const std::size_t comma = ops.find(',');
    return comma != std::string::npos && std::regex_search(ops.substr(comma), std::regex("\\b" + reg + "\\b"));
}

}  // namespace

TEST_CASE("decoded control codes agree with nvdisasm on a real GEMM", "[analysis][sass][compile]") {
    const ArchDatabase arches = ArchDatabase::loadFromDataRoot(sourceDir());
    const TemplateLibrary library = TemplateLibrary::load(sourceDir() / "templates");
    const auto gemm = library.find("gemm");
    REQUIRE(gemm);
    const PreparedVariant v = prepareVariant(*gemm, gemm->defaultConfig(), *arches.findArch("sm_90"));
    Compiler compiler(cacheRoot() / "nvrtc");
    const CompileResult r = compiler.compile(v.request);
    REQUIRE(r.ok);
    std::string error;
    const auto listing = disassembleListing(r.cubin, v.request.fileName, &error);
    if (!listing) {
        WARN("no disassembler, decoder not checked against nvdisasm: " << error);
        return;
    }
    REQUIRE(listing->hasControlCodes);
    int reuseMarked = 0, s2rChecked = 0;
    const auto& ins = listing->instructions;
    for (std::size_t i = 0; i < ins.size(); ++i) {
        REQUIRE(ins[i].control);
        const ControlCode& c = *ins[i].control;
        INFO(ins[i].text << "  " << c.text());
        // Six scoreboards: a decoded 6 would mean the fields are misplaced.
        CHECK(c.writeBarrier <= 5);
        CHECK(c.readBarrier <= 5);
        // nvdisasm prints ".reuse" on exactly the operands whose reuse bits are set.
        const bool marked = ins[i].text.find(".reuse") != std::string::npos;
        CHECK(marked == (c.reuse != 0));
        reuseMarked += marked ? 1 : 0;
        // A special-register read has variable latency: a later reader of its result must wait
        // on its write scoreboard (at that reader or an instruction in between).
        if (ins[i].opcode == "S2R" && c.writeBarrier >= 0) {
            const std::string dst = destinationOf(ins[i].text);
            for (std::size_t j = i + 1; j < ins.size() && j < i + 64; ++j) {
                if ((ins[j].control->waitMask >> c.writeBarrier) & 1) break;  // waited before any read
                INFO("reads " << dst << ": " << ins[j].text);
                CHECK_FALSE(reads(ins[j].text, dst));
                if (destinationOf(ins[j].text) == dst) break;  // overwritten: later reads are of another value
            }
            ++s2rChecked;
        }
    }
    CHECK(reuseMarked > 0);
    CHECK(s2rChecked > 0);
    // Live registers: at most what ptxas allocated, and the peak near it.
    REQUIRE(listing->hasLiveRanges);
    const KernelResources* k = kernelNamed(r.kernels, v.name);
    REQUIRE(k);
    CHECK(listing->peakLiveRegisters <= k->registers);
    CHECK(listing->peakLiveRegisters >= k->registers / 2);
    CHECK(listing->hasSourceLines);
    CHECK(listing->hasPtxLines);
}
