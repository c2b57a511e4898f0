// Input limits of a run: sizes beyond the kernel's int, byte counts that overflow, buffers larger
// than the device's memory are refused before anything is allocated or launched.
#include "../test_support.hpp"

#include "run/run_limits.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;

namespace {

std::shared_ptr<const Template> tiny() {
    static const TemplateLibrary lib = TemplateLibrary::load(kx::test::sourceDir() / "tests/engine/templates/data");
    return lib.find("tiny");
}

}  // namespace

TEST_CASE("a size beyond the kernel's 32-bit int is refused", "[run][reliability]") {
    const auto t = tiny();
    REQUIRE(t);
    CHECK_NOTHROW(checkSizeTypes(*t, t->withSizes({{"n", "2147483647"}})));
    CHECK_THROWS_WITH(checkSizeTypes(*t, t->withSizes({{"n", "1099511627776"}})),
                      Catch::Contains("n=1099511627776 is too large") && Catch::Contains("at most 2147483647"));
    CHECK_THROWS_AS(checkRunLimits(*t, t->defaultConfig(), kx::test::fakeArch(), t->withSizes({{"n", "2147483648"}})), InputError);
}

TEST_CASE("buffers larger than the device's memory are refused with the sizes", "[run][reliability]") {
    const auto t = tiny();
    const SizeMap sizes = t->withSizes({{"n", "2000000000"}});  // 8 GB of float
    CHECK_NOTHROW(checkRunLimits(*t, t->defaultConfig(), kx::test::fakeArch(), sizes));
    CHECK_NOTHROW(checkRunLimits(*t, t->defaultConfig(), kx::test::fakeArch(), sizes, 80LL << 30));
    CHECK_THROWS_WITH(checkRunLimits(*t, t->defaultConfig(), kx::test::fakeArch(), sizes, 4LL << 30),
                      Catch::Contains("buffer 'x' needs 7.5 GiB") && Catch::Contains("device's 4.0 GiB"));
}
