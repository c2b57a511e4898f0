// The matmul ladder's rungs: each one compiles with NVRTC for sm_80, sm_90 and sm_120 without
// spills, in the instructions its rung is about. (Every rung renders the one source with its
// STAGE defined; tests/golden/matmul_ladder_sm_90_default.cu is that source.)
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "tutorial/checkpoint.hpp"
#include "util/data_paths.hpp"

#include <catch2/catch.hpp>


using namespace kx::engine;
using kx::test::sourceDir;

namespace {
const char* const kStages[] = {"naive", "coalesced", "smem_tiles", "regtile_1d", "regtile_2d", "vectorised", "warptile"};

}  // namespace

TEST_CASE("matmul ladder: every rung compiles for sm_80, sm_90 and sm_120 without spills", "[templates][compile][ladder]") {
    const TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "templates");
    const ArchDatabase arches = ArchDatabase::loadFromDataRoot(sourceDir());
    const auto t = lib.find("matmul_ladder");
    REQUIRE(t);
    Compiler compiler(cacheRoot() / "nvrtc");
    for (const char* archName : {"sm_80", "sm_90", "sm_120"}) {
        for (const char* stage : kStages) {
            INFO(stage << " for " << archName);
            const Config c = t->withValues(t->defaultConfig(), {{"STAGE", stage}});
            const PreparedVariant v = prepareVariant(*t, c, *arches.findArch(archName));
            REQUIRE(v.violations.empty());
            const CompileResult r = compiler.compile(v.request);
            INFO(r.log);
            REQUIRE(r.ok);
            REQUIRE(r.kernels.size() == 1);
            CHECK(r.kernels[0].function == v.name);
            CHECK_FALSE(r.kernels[0].spills());
            const auto ops = ptxOpcodes(r.ptx);
            const std::string s = stage;
            // What each rung is about shows in its instructions.
            CHECK(opcodesContain(ops, "ld.shared") == (s != "naive" && s != "coalesced"));
            CHECK(opcodesContain(ops, "ld.shared.v4") == (s == "vectorised" || s == "warptile"));
            CHECK(opcodesContain(ops, "ld.global.nc.v4") == (s == "vectorised" || s == "warptile"));
        }
    }
}
