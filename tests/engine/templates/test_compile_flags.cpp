// Compiler flags per variant: parsing and its refusals, the variant's name and canonical text,
// the compile request's options and cache key, and what NVRTC and ptxas make of them.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {

const ArchDatabase& arches() {
    static const ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}

const TemplateLibrary& library() {
    static const TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    return lib;
}

bool has(const std::vector<std::string>& list, const std::string& item) { return std::find(list.begin(), list.end(), item) != list.end(); }

}  // namespace

TEST_CASE("compile flags parse, print and refuse what NVRTC would not take", "[templates][flags]") {
    const CompileFlags defaults;
    CHECK(defaults.isDefault());
    CHECK(defaults.canonical().empty());
    CHECK(defaults.nameSuffix().empty());
    CHECK(defaults.nvrtcOptions().empty());

    const CompileFlags f = parseCompileFlags("maxrregcount=64,fast_math,ptxas_opt=1,extra-vectorization=on");
    CHECK(f.maxRegisters == 64);
    CHECK(f.fastMath);
    CHECK(f.ptxasOptLevel == 1);
    CHECK(f.extraVectorization);
    CHECK(f.canonical() == "maxrregcount=64,fast_math=true,ptxas_opt=1,extra_vectorization=true");
    CHECK(parseCompileFlags(f.canonical()) == f);
    CHECK(f.nameSuffix() == "_r64_fm_O1_xv");
    CHECK(f.nvrtcOptions() == std::vector<std::string>{"--maxrregcount=64", "--use_fast_math", "-Xptxas=-O1", "--extra-device-vectorization"});
    CHECK(withFlags(f, "fast_math=false,maxrregcount=0") == parseCompileFlags("ptxas_opt=1,extra_vectorization=true"));

    CHECK_THROWS_WITH(parseCompileFlags("maxregs=64"), Catch::Contains("'maxregs' is not a compiler flag"));
    CHECK_THROWS_WITH(parseCompileFlags("maxrregcount=8"), Catch::Contains("0 (no cap) or 16 to 255"));
    CHECK_THROWS_WITH(parseCompileFlags("maxrregcount=256"), Catch::Contains("0 (no cap) or 16 to 255"));
    CHECK_THROWS_WITH(parseCompileFlags("maxrregcount=6x"), Catch::Contains("maxrregcount=6x is not allowed"));
    CHECK_THROWS_WITH(parseCompileFlags("ptxas_opt=4"), Catch::Contains("0, 1, 2 or 3"));
    CHECK_THROWS_WITH(parseCompileFlags("fast_math=maybe"), Catch::Contains("true or false"));
}

TEST_CASE("flags are part of a config's identity: canonical text, hash, name, kernel name", "[templates][flags]") {
    const auto gemm = library().find("gemm");
    REQUIRE(gemm);
    const Arch& sm90 = *arches().findArch("sm_90");
    Config plain = gemm->defaultConfig();
    Config capped = plain;
    capped.flags = parseCompileFlags("maxrregcount=64,fast_math");

    // The defaults leave the text (and so every stored key) as it was before flags existed.
    CHECK(plain.canonical().find('|') == std::string::npos);
    CHECK(capped.canonical() == plain.canonical() + "|maxrregcount=64,fast_math=true");
    CHECK(capped.hash() != plain.hash());
    CHECK_FALSE(capped == plain);

    const std::string name = gemm->configName(capped);
    CHECK(name == gemm->configName(plain) + "_r64_fm");
    // The kernel's entry point is the variant's name, so the runner and the ptxas report find it.
    CHECK(gemm->render(capped, sm90).find("\n" + name + "(const") != std::string::npos);
    CHECK(gemm->withValues(capped, {{"BM", "64"}}).flags == capped.flags);  // an edit keeps the flags
}

TEST_CASE("flags reach the compile request, its cache key, and only the right stage", "[templates][flags][compile]") {
    const auto reduce = library().find("reduce");
    REQUIRE(reduce);
    const Arch& sm90 = *arches().findArch("sm_90");
    Config config = reduce->defaultConfig();
    const PreparedVariant plain = prepareVariant(*reduce, config, sm90);
    config.flags = parseCompileFlags("maxrregcount=32,ptxas_opt=2,fast_math");
    const PreparedVariant flagged = prepareVariant(*reduce, config, sm90);

    CHECK(plain.request.options.empty());
    CHECK(flagged.request.options == config.flags.nvrtcOptions());
    CHECK(compileCacheKey(flagged.request) != compileCacheKey(plain.request));
    // The PTX stage leaves out what only ptxas reads; the full stage gets everything.
    const auto ptxOptions = nvrtcOptions(flagged.request);
    CHECK(has(ptxOptions, "--use_fast_math"));
    CHECK_FALSE(has(ptxOptions, "--maxrregcount=32"));
    CHECK_FALSE(has(ptxOptions, "-Xptxas=-O2"));
    const auto fullOptions = fullCompileOptions(flagged.request);
    CHECK(has(fullOptions, "--maxrregcount=32"));
    CHECK(has(fullOptions, "-Xptxas=-O2"));

    // The same flags with another register cap: another cache entry.
    Config other = config;
    other.flags.maxRegisters = 40;
    CHECK(compileCacheKey(prepareVariant(*reduce, other, sm90).request) != compileCacheKey(flagged.request));
}

TEST_CASE("flags an arch cannot take are a violation with the reason", "[templates][flags]") {
    const auto reduce = library().find("reduce");
    REQUIRE(reduce);
    Config config = reduce->defaultConfig();
    config.flags.maxRegisters = 64;
    CHECK(reduce->validate(config, *arches().findArch("sm_90")).empty());
    const auto amd = reduce->validate(config, *arches().findArch("gfx942"));
    REQUIRE(amd.size() == 1);
    CHECK_THAT(amd.front().message, Catch::Contains("NVRTC's") && Catch::Contains("gfx942 compiles with clang"));
    // A HIP compile gets no NVRTC options even when asked to prepare one.
    CHECK(prepareVariant(*reduce, config, *arches().findArch("gfx942")).request.options.empty());
}

TEST_CASE("ptxas applies a register cap to a kernel without launch bounds and keeps the bounds of one with them",
          "[templates][flags][compile]") {
    const char* source = R"(
extern "C" __global__ void %s(float* x, const float* y) {
    float acc[32];
    for (int i = 0; i < 32; ++i) acc[i] = y[threadIdx.x + i * 256];
    for (int k = 0; k < 64; ++k)
        for (int i = 0; i < 32; ++i) acc[i] = acc[i] * acc[(i + k) %% 32] + y[k];
    float s = 0;
    for (int i = 0; i < 32; ++i) s += acc[i];
    x[threadIdx.x] = s;
}
)";
    Compiler compiler("");
    auto compileWith = [&](const std::string& bounds, const std::vector<std::string>& options) {
        CompileRequest r;
        char text[1024];
        std::snprintf(text, sizeof text, source, (bounds + " cap_test").c_str());
        r.source = text;
        r.arch = "sm_90";
        r.options = options;
        const CompileResult result = compiler.compile(r, false);
        REQUIRE(result.ok);
        REQUIRE(result.kernels.size() == 1);
        return result;
    };
    const CompileResult free = compileWith("", {});
    const CompileResult capped = compileWith("", {"--maxrregcount=32"});
    CHECK(free.kernels.front().registers > 32);
    CHECK(capped.kernels.front().registers <= 32);
    CHECK(capped.kernels.front().spills());
    CHECK(ptxasAppliedRegisterCap(capped.log, "cap_test"));
    CHECK_FALSE(ptxasAppliedRegisterCap(free.log, "cap_test"));

    const CompileResult bounded = compileWith("__launch_bounds__(256)", {"--maxrregcount=32"});
    CHECK(bounded.kernels.front().registers == free.kernels.front().registers);
    CHECK_FALSE(ptxasAppliedRegisterCap(bounded.log, "cap_test"));

    // What the flags panel and kx compile say: capped, kept within the cap, or ignored.
    const int used = bounded.kernels.front().registers;
    CHECK(registerCapOutcome(capped.log, "cap_test", capped.kernels.front().registers, 32) == RegisterCapOutcome::Applied);
    CHECK(registerCapOutcome(bounded.log, "cap_test", used, 32) == RegisterCapOutcome::Ignored);
    const CompileResult roomy = compileWith("__launch_bounds__(256)", {"--maxrregcount=" + std::to_string(used)});
    CHECK_FALSE(ptxasAppliedRegisterCap(roomy.log, "cap_test"));
    CHECK(registerCapOutcome(roomy.log, "cap_test", roomy.kernels.front().registers, used) == RegisterCapOutcome::Within);

    // Every flag together is accepted by this NVRTC.
    CHECK(compileWith("", CompileFlags{64, true, 1, true}.nvrtcOptions()).ok);
}
