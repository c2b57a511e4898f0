// Which compiled variants may run on which device: the device's own arch and its arch-specific
// target (sm_90a code on a compute capability 9.0 device), nothing else.
#include "../test_support.hpp"
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;
using kx::test::sourceDir;

namespace {
const ArchDatabase& arches() {
    static ArchDatabase db = ArchDatabase::loadFromDataRoot(sourceDir());
    return db;
}
const Arch& arch(const char* name) {
    const Arch* a = arches().findArch(name);
    REQUIRE(a);
    return *a;
}
}  // namespace

TEST_CASE("a variant runs on its own arch's device", "[compile][arch]") {
    CHECK(deviceArchMismatch(arch("sm_80"), "sm_80").empty());
    CHECK(deviceArchMismatch(arch("sm_90"), "sm_90").empty());
    CHECK(deviceArchMismatch(arch("sm_120"), "sm_120").empty());
}

TEST_CASE("arch-specific code runs on the device of exactly its compute capability", "[compile][arch]") {
    CHECK(deviceArchMismatch(arch("sm_90a"), "sm_90").empty());
    CHECK(deviceArchMismatch(arch("sm_100a"), "sm_100").empty());

    const std::string onAmpere = deviceArchMismatch(arch("sm_90a"), "sm_80");
    CHECK(onAmpere == "the GPU is sm_80 but this variant is compiled for sm_90a, whose code runs only on compute capability 9.0: select sm_80 to run it");
    CHECK_FALSE(deviceArchMismatch(arch("sm_90a"), "sm_100").empty());
    CHECK_FALSE(deviceArchMismatch(arch("sm_90a"), "sm_120").empty());
    CHECK_FALSE(deviceArchMismatch(arch("sm_100a"), "sm_90").empty());
}

TEST_CASE("other arches' code is refused, naming the device's arch", "[compile][arch]") {
    CHECK(deviceArchMismatch(arch("sm_80"), "sm_90") == "the GPU is sm_90 but this variant is compiled for sm_80: select sm_90 to run it");
    CHECK(deviceArchMismatch(arch("sm_90"), "sm_80") == "the GPU is sm_80 but this variant is compiled for sm_90: select sm_80 to run it");
    CHECK_FALSE(deviceArchMismatch(arch("sm_90"), "sm_100").empty());
}
