// Templates of the same problem on units with a higher roof (analysis/higher_roofs.hpp), on the
// shipped templates and devices.
#include "../test_support.hpp"
#include "analysis/higher_roofs.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace kx::engine;

namespace {

using kx::test::shippedArches;
using kx::test::shippedTemplates;

std::vector<HigherRoof> higherFor(const std::string& id, const std::string& archName, const std::map<std::string, std::string>& set,
                                  const std::string& device) {
    const auto tmpl = shippedTemplates().find(id);
    REQUIRE(tmpl);
    const Arch* arch = shippedArches().findArch(archName);
    REQUIRE(arch);
    const DeviceSpec* spec = shippedArches().findDevice(device);
    REQUIRE(spec);
    return higherRoofs(shippedTemplates(), shippedArches(), *tmpl, tmpl->withValues(tmpl->defaultConfig(), set), *arch, RooflineModel(*spec));
}

std::vector<std::string> ids(const std::vector<HigherRoof>& h) {
    std::vector<std::string> out;
    for (const HigherRoof& r : h) out.push_back(r.templateId);
    return out;
}

}  // namespace

TEST_CASE("the SIMT GEMM's higher roofs are the tensor-core GEMMs of its dtype and layout", "[roofline][higher]") {
    const auto h = higherFor("gemm", "sm_90", {{"dtype", "bf16"}, {"layout", "rrr"}}, "h100_sxm");
    REQUIRE(ids(h) == std::vector<std::string>{"gemm_mma", "gemm_wgmma"});
    CHECK(h[0].arch == "sm_90");
    CHECK(h[1].arch == "sm_90a");  // wgmma builds for the arch-specific target of the same device
    for (const HigherRoof& r : h) {
        CHECK(r.unit == "bf16_tensor");
        CHECK(r.peakFlops == Approx(989.5e12));
        CHECK(r.values.at("dtype") == "bf16");
        CHECK(r.values.at("layout") == "rrr");
        CHECK(r.values.count("BM") == 0);  // tile shapes are each template's own
    }
    // Before Ampere there is no mma.sync template to offer, and on AMD the matrix-core GEMM.
    CHECK(higherFor("gemm", "sm_75", {}, "h100_sxm").empty());
    CHECK(ids(higherFor("gemm", "gfx942", {}, "mi300x")) == std::vector<std::string>{"gemm_mfma"});
}

TEST_CASE("no higher roof is offered for another problem or the same units", "[roofline][higher]") {
    // fp32: the tensor-core GEMMs take no f32 (TF32 is another precision).
    CHECK(higherFor("gemm", "sm_90", {{"dtype", "f32"}, {"VEC", "4"}}, "h100_sxm").empty());
    // The ladder is fp32 throughout, with no dtype choice: a 16-bit GEMM would be a guess.
    CHECK(higherFor("matmul_ladder", "sm_90", {}, "h100_sxm").empty());
    // mma.sync attention and its wgmma sibling run on the same tensor cores: the same roof.
    CHECK(higherFor("attention", "sm_90", {}, "h100_sxm").empty());
    CHECK(higherFor("gemm_mma", "sm_90", {}, "h100_sxm").empty());
    // A template alone with its reference.
    CHECK(higherFor("map", "sm_90", {}, "h100_sxm").empty());
}
