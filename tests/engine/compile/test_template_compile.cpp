// The shipped templates against the shipped arches: defaults valid, golden sources, and every
// default config compiles for sm_80, sm_90 and sm_120 with a parsable ptxas report.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

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
}  // namespace

TEST_CASE("the shipped templates load without errors", "[templates][shipped]") {
    for (const LoadError& e : library().errors()) FAIL(e.toString());
    CHECK(library().find("gemm"));
    CHECK(library().find("reduce"));
}

TEST_CASE("generated sources match the golden files", "[templates][golden]") {
    // Regenerate with KX_UPDATE_GOLDEN=1 after an intended change, and review the diff.
    const bool update = std::getenv("KX_UPDATE_GOLDEN") != nullptr;
    struct Case { std::string templ, arch; std::map<std::string, std::string> values; std::string file; };
    const std::vector<Case> cases = {
        {"gemm", "sm_90", {}, "gemm_sm_90_default.cu"},
        {"gemm", "sm_80", {{"dtype", "f32"}, {"layout", "rrr"}}, "gemm_sm_80_f32_rrr.cu"},
        {"reduce", "sm_90", {}, "reduce_sm_90_default.cu"},
        {"reduce", "sm_120", {{"op", "max"}, {"dtype", "bf16"}}, "reduce_sm_120_max_bf16.cu"},
    };
    for (const Case& c : cases) {
        auto t = library().find(c.templ);
        REQUIRE(t);
        const Arch* arch = arches().findArch(c.arch);
        REQUIRE(arch);
        const std::string source = t->render(t->withValues(t->defaultConfig(), c.values), *arch);
        const auto golden = sourceDir() / "tests/golden" / c.file;
        if (update) {
            std::ofstream(golden, std::ios::binary) << source;
        }
        INFO("golden file " << golden.string() << " (KX_UPDATE_GOLDEN=1 regenerates)");
        CHECK(source == readFile(golden));
    }
}

TEST_CASE("every default config is valid and compiles for sm_80, sm_90 and sm_120", "[templates][compile][shipped]") {
    Compiler compiler(cacheRoot() / "nvrtc");
    for (const auto& t : library().templates()) {
        for (const char* archName : {"sm_80", "sm_90", "sm_120"}) {
            const Arch* arch = arches().findArch(archName);
            REQUIRE(arch);
            INFO(t->id() << " for " << archName);
            const PreparedVariant v = prepareVariant(*t, t->defaultConfig(), *arch);
            for (const Violation& violation : v.violations) FAIL(violation.message);
            const CompileResult r = compiler.compile(v.request);
            INFO(r.log);
            REQUIRE(r.ok);
            REQUIRE(r.kernels.size() == 1);
            CHECK(r.kernels[0].function == v.name);
            CHECK(r.kernels[0].registers > 0);
            CHECK(r.kernels[0].registers <= arch->nv.maxRegsPerThread);
            CHECK_FALSE(r.kernels[0].spills());
            CHECK(r.ptx.find(".entry " + v.name) != std::string::npos);
        }
    }
}
