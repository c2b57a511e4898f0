// The shipped templates' HIP flavours: golden sources for gfx942, and every HIP template's default
// config valid and compiled for gfx90a and gfx942 with clang 19, without scratch, its occupancy
// agreeing with the compiler's.
#include "../test_support.hpp"
#include "analysis/amd_kernel_occupancy.hpp"
#include "arch/arch_database.hpp"
#include "compile/hip_compiler.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {
const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}
const TemplateLibrary& library() {
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    return lib;
}
std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
std::vector<std::shared_ptr<const Template>> hipTemplates() {
    std::vector<std::shared_ptr<const Template>> out;
    for (const auto& t : library().templates())
        if (t->hasLanguage("hip")) out.push_back(t);
    return out;
}
}  // namespace

TEST_CASE("templates with a HIP flavour render it for AMD arches and CUDA for NVIDIA", "[templates][hip]") {
    for (const char* id : {"reduce", "map", "transpose", "scan", "gemm", "rownorm", "filter", "histogram", "stencil", "join",
                           "group_by", "radix_sort"}) {
        auto t = library().find(id);
        REQUIRE(t);
        INFO(id);
        CHECK(t->hasLanguage("hip"));
        const auto& langs = t->manifest().languages;
        CHECK(std::find(langs.begin(), langs.end(), "hip") != langs.end());
        const Arch* gfx = arches().findArch("gfx942");
        const Arch* sm = arches().findArch("sm_90");
        REQUIRE(gfx);
        REQUIRE(sm);
        CHECK(t->languageFor(*gfx) == "hip");
        CHECK(t->languageFor(*sm) == "cuda");
        const std::string hip = t->render(t->defaultConfig(), *gfx);
        CHECK(hip.find("KX_HIP_PRELUDE") != std::string::npos);
        CHECK(hip.find("cuda_fp16.h") == std::string::npos);
        CHECK(t->render(t->defaultConfig(), *sm).find("KX_HIP_PRELUDE") == std::string::npos);
        const PreparedVariant p = prepareVariant(*t, t->defaultConfig(), *gfx);
        CHECK(p.language == "hip");
        CHECK(p.request.fileName == p.name + ".hip");
    }
    // A CUDA-only template has no HIP source to render.
    auto gemmWgmma = library().find("gemm_wgmma");
    REQUIRE(gemmWgmma);
    CHECK_FALSE(gemmWgmma->hasLanguage("hip"));
    CHECK_THROWS_WITH(gemmWgmma->render(gemmWgmma->defaultConfig(), *arches().findArch("gfx942"), "hip"),
                      Catch::Contains("has no hip source"));
}

TEST_CASE("generated HIP sources match the golden files", "[templates][golden][hip]") {
    // Every HIP template's default config for gfx942, plus configs that take other branches.
    // Regenerate with KX_UPDATE_GOLDEN=1 after an intended change, and review the diff.
    const bool update = std::getenv("KX_UPDATE_GOLDEN") != nullptr;
    struct Case { std::string templ, arch; std::map<std::string, std::string> values; std::string file; };
    std::vector<Case> cases = {
        {"reduce", "gfx90a", {{"op", "max"}, {"dtype", "bf16"}}, "reduce_gfx90a_max_bf16.hip"},
        // 64-bit values through the look-back's split status words and 64-bit shuffles.
        {"scan", "gfx90a", {{"dtype", "i64"}, {"op", "max"}}, "scan_gfx90a_max_i64.hip"},
    };
    for (const auto& t : hipTemplates()) cases.push_back({t->id(), "gfx942", {}, t->id() + "_gfx942_default.hip"});
    CHECK(cases.size() >= 15);
    for (const Case& c : cases) {
        auto t = library().find(c.templ);
        REQUIRE(t);
        const Arch* arch = arches().findArch(c.arch);
        REQUIRE(arch);
        const std::string source = t->render(t->withValues(t->defaultConfig(), c.values), *arch, "hip");
        const auto golden = sourceDir() / "tests/golden" / c.file;
        if (update) std::ofstream(golden, std::ios::binary) << source;
        INFO("golden file " << golden.string() << " (KX_UPDATE_GOLDEN=1 regenerates)");
        CHECK(source == readFile(golden));
    }
}

TEST_CASE("every HIP template's default config compiles for gfx90a and gfx942", "[templates][compile][hip][shipped]") {
    INFO(hipClangMissingMessage());
    REQUIRE(findHipClang().has_value());
    HipCompiler compiler({}, sourceDir() / "assets/hip/kx_hip_prelude.h");
    const auto templates = hipTemplates();
    CHECK(templates.size() >= 13);
    for (const auto& t : templates) {
        for (const char* archName : {"gfx90a", "gfx942"}) {
            const Arch* arch = arches().findArch(archName);
            REQUIRE(arch);
            const PreparedVariant p = prepareVariant(*t, t->defaultConfig(), *arch);
            INFO(p.name << " for " << archName);
            for (const Violation& v : p.violations) FAIL_CHECK(v.message);
            const HipCompileResult r = compiler.compile(hipRequest(p.request));
            INFO(r.log);
            REQUIRE(r.ok);
            REQUIRE_FALSE(r.kernels.empty());
            const auto steps = t->launches(t->defaultConfig(), *arch, t->defaultSizes());
            for (const LaunchStep& step : steps) {
                const AmdKernelResources* k = amdKernelNamed(r.kernels, step.kernel);
                REQUIRE(k);
                INFO("kernel " << step.kernel);
                CHECK(k->function == step.kernel);
                CHECK(k->wavefrontSize == 64);
                CHECK(k->scratchBytes == 0);
                CHECK_FALSE(k->spills());
                CHECK(k->maxFlatWorkgroupSize >= step.geometry.threadsPerBlock());
                const AmdKernelOccupancy o = amdKernelOccupancy(*arch, *k, static_cast<int>(step.geometry.threadsPerBlock()),
                                                                step.geometry.dynamicSmemBytes);
                CHECK(o.agreesWithCompiler);
                CHECK(o.result.wavesPerSimd <= k->compilerOccupancy);
            }
        }
    }
}
