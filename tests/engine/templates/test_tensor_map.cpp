// Tensor-map arguments (role tensor_map), the arch_specific variable, and the choice of an
// arch-specific target for runs on the device's own arch.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {

const TemplateLibrary& fixtures() {
    static TemplateLibrary lib = TemplateLibrary::load(sourceDir() / "tests/engine/templates/data_tensor_map");
    return lib;
}

const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}

const LoadError* errorFor(const std::string& folder) {
    for (const LoadError& e : fixtures().errors())
        if (e.file.find(folder + "/") != std::string::npos) return &e;
    return nullptr;
}

}  // namespace

TEST_CASE("a tensor_map arg resolves its dims and box from the sizes and variables", "[templates][tensor_map]") {
    auto t = fixtures().find("tma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    const std::vector<ResolvedArg> args = t->resolveArgs(t->defaultConfig(), *arch, t->withSizes({{"M", "100"}, {"K", "72"}}));
    REQUIRE(args.size() == 3);
    const ResolvedArg& map = args[1];
    CHECK(map.role == "tensor_map");
    CHECK(map.of == "A");
    CHECK(map.dims == std::vector<long long>{72, 100});
    CHECK(map.box == std::vector<long long>{32, 64});
    CHECK(map.swizzle == "64B");
    CHECK(map.type.empty());  // the element type is the buffer's

    // A box past TMA's 256 elements is refused when the config makes it so.
    const Config big = t->withValues(t->defaultConfig(), {{"BOX", "512"}});
    CHECK_THROWS_WITH(t->resolveArgs(big, *arch, t->withSizes({{"M", "1000"}})),
                      Catch::Contains("tensor map 'tmA': box size") && Catch::Contains("1 to 256"));
    // Small problems clip the box (min(BOX, M)), so the same config is fine there.
    CHECK_NOTHROW(t->resolveArgs(big, *arch, t->withSizes({{"M", "200"}})));
}

TEST_CASE("malformed tensor_map args name the file and line", "[templates][tensor_map]") {
    CHECK(fixtures().errors().size() == 3);
    const LoadError* of = errorFor("tma_bad_of");
    REQUIRE(of);
    CHECK(of->line == 19);
    CHECK(of->message.find("of=\"M\" must name an earlier buffer argument") != std::string::npos);
    const LoadError* box = errorFor("tma_bad_box");
    REQUIRE(box);
    CHECK(box->line == 19);
    CHECK(box->message.find("2 dims but 1 box sizes") != std::string::npos);
    const LoadError* swizzle = errorFor("tma_bad_swizzle");
    REQUIRE(swizzle);
    CHECK(swizzle->message.find("swizzle must be none, 32B, 64B or 128B, not '96B'") != std::string::npos);
}

TEST_CASE("arch_specific is 1 for sm_90a-style targets only", "[templates][arch]") {
    CHECK(arches().findArch("sm_90a")->expressionVariables().at("arch_specific") == 1);
    CHECK(arches().findArch("sm_90")->expressionVariables().at("arch_specific") == 0);
    CHECK(arches().findArch("sm_120")->expressionVariables().at("arch_specific") == 0);
}

TEST_CASE("runs on the device's arch use its arch-specific target only when the config needs it", "[templates][arch]") {
    auto tma = fixtures().find("tma");
    REQUIRE(tma);
    const Arch* forTma = archForDevice(arches(), "sm_90", *tma, tma->defaultConfig());
    REQUIRE(forTma);
    CHECK(forTma->name == "sm_90a");
    // No arch-specific target helps on sm_80: its own violations are the ones to report.
    CHECK(archForDevice(arches(), "sm_80", *tma, tma->defaultConfig())->name == "sm_80");
    CHECK(archForDevice(arches(), "sm_ninety", *tma, tma->defaultConfig()) == nullptr);

    TemplateLibrary shipped = TemplateLibrary::load(sourceDir() / "templates");
    auto reduce = shipped.find("reduce");
    REQUIRE(reduce);
    CHECK(archForDevice(arches(), "sm_90", *reduce, reduce->defaultConfig())->name == "sm_90");

    // Invalid on both (5 stages of int8 do not fit shared memory): reported for sm_90a, with the
    // one rule the config breaks there, not also "choose sm_90a".
    auto wgmma = shipped.find("gemm_wgmma");
    REQUIRE(wgmma);
    const Config tooDeep = wgmma->withValues(wgmma->defaultConfig(), {{"dtype", "i8"}, {"STAGES", "5"}});
    const Arch* forDeep = archForDevice(arches(), "sm_90", *wgmma, tooDeep);
    REQUIRE(forDeep);
    CHECK(forDeep->name == "sm_90a");
    const auto violations = wgmma->validate(tooDeep, *forDeep);
    REQUIRE(violations.size() == 1);
    CHECK_THAT(violations[0].message, Catch::Contains("shared memory"));
}

// gemm_wgmma's layouts: an operand stored k-contiguous is one box of BK x rows, one stored m- or
// n-contiguous boxes of 64 x BK (a slice of its tile each), so the tensor maps follow the layout;
// only 16-bit types may be read mn-major, and the refusal names the type and layout chosen.
TEST_CASE("gemm_wgmma's tensor maps follow the layout", "[templates][tensor_map]") {
    TemplateLibrary shipped = TemplateLibrary::load(sourceDir() / "templates");
    auto t = shipped.find("gemm_wgmma");
    REQUIRE(t);
    const Arch* arch = arches().findArch("sm_90a");
    REQUIRE(arch);
    const SizeMap sizes = t->withSizes({{"M", "520"}, {"N", "264"}, {"K", "1000"}});
    struct Expected {
        const char* layout;
        std::vector<long long> aDims, aBox, bDims, bBox;
    };
    const Expected cases[] = {
        {"rcr", {1000, 520}, {64, 128}, {1000, 264}, {64, 256}},
        {"rrr", {1000, 520}, {64, 128}, {264, 1000}, {64, 64}},
        {"crr", {520, 1000}, {64, 64}, {264, 1000}, {64, 64}},
        {"ccr", {520, 1000}, {64, 64}, {1000, 264}, {64, 256}},
    };
    for (const Expected& e : cases) {
        CAPTURE(e.layout);
        const Config config = t->withValues(t->defaultConfig(), {{"layout", e.layout}});
        CHECK(t->validate(config, *arch).empty());
        std::map<std::string, ResolvedArg> maps;
        for (const ResolvedArg& a : t->resolveArgs(config, *arch, sizes))
            if (a.role == "tensor_map") maps[a.name] = a;
        REQUIRE(maps.size() == 2);
        CHECK(maps["tmA"].dims == e.aDims);
        CHECK(maps["tmA"].box == e.aBox);
        CHECK(maps["tmB"].dims == e.bDims);
        CHECK(maps["tmB"].box == e.bBox);
    }
    // Swapped operands: B's tile is the 64-row side, A's the BN-wide one.
    const Config swapped = t->withValues(t->defaultConfig(), {{"SWAP_AB", "1"}, {"BN", "16"}, {"STORE", "direct"}});
    CHECK(t->validate(swapped, *arch).empty());
    for (const ResolvedArg& a : t->resolveArgs(swapped, *arch, sizes)) {
        if (a.name == "tmA") CHECK(a.box == std::vector<long long>{64, 16});
        if (a.name == "tmB") CHECK(a.box == std::vector<long long>{64, 128});
    }
    const auto refused = t->validate(t->withValues(t->defaultConfig(), {{"layout", "crr"}, {"dtype", "tf32"}}), *arch);
    REQUIRE(refused.size() == 1);
    CHECK_THAT(refused[0].message, Catch::Contains("wgmma reads tf32 operands only k-major") && Catch::Contains("f16 or bf16 for crr"));
}
