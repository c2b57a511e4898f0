// The roofline scene (analysis/roofline_scene.hpp): device for the arch, the roofs a kernel can
// use, the predicted point from the manifest's traffic model, and label boxes that never overlap.
#include "../test_support.hpp"
#include "analysis/roofline_scene.hpp"
#include "arch/arch_database.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;

namespace {

const ArchDatabase& db() {
    static ArchDatabase d = ArchDatabase::loadFromDataRoot(kx::test::sourceDir());
    return d;
}
const TemplateLibrary& lib() {
    static TemplateLibrary l = TemplateLibrary::load(kx::test::sourceDir() / "templates");
    return l;
}

RooflineScene sceneOf(const std::string& id, const std::string& arch, const std::map<std::string, std::string>& set,
                      bool allRoofs = false, const std::string& device = "") {
    const auto tmpl = lib().find(id);
    REQUIRE(tmpl);
    RooflineSceneRequest req;
    req.arches = &db();
    req.arch = db().findArch(arch);
    REQUIRE(req.arch);
    req.tmpl = tmpl.get();
    req.config = tmpl->withValues(tmpl->defaultConfig(), set);
    req.allRoofs = allRoofs;
    req.deviceId = device;
    return buildRooflineScene(req);
}

bool anyOverlap(const std::vector<SceneLabel>& labels) {
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            if (labels[i].rect.intersects(labels[j].rect)) return true;
    return false;
}

}  // namespace

TEST_CASE("roofline scene: gemm's predicted point moves right as BM grows from 64 to 128", "[roofline][scene]") {
    const RooflineScene small = sceneOf("gemm", "sm_90", {{"BM", "64"}, {"WM", "32"}, {"WN", "64"}});
    const RooflineScene large = sceneOf("gemm", "sm_90", {{"BM", "128"}});
    REQUIRE(small.predicted);
    REQUIRE(large.predicted);
    CHECK(small.trafficModelled);
    CHECK(large.predicted->ai > small.predicted->ai * 1.5);
    // On the H100's 50 MB L2 the 1 MB strip of A stays for a block row, B (32 MB) does not: B is
    // read once per block row. 4096^3 in f16: A once + B x 4096/BM + C once.
    const double strip = 4096.0 * 4096 * 2;
    CHECK(large.trafficBytes == Approx(strip * (1 + 32 + 1)));
    CHECK(small.trafficBytes == Approx(strip * (1 + 64 + 1)));
    // Both are still far below the compulsory intensity and never above it.
    CHECK(large.compulsoryBytes == Approx(3 * strip));
    CHECK(large.predicted->ai < large.flops / large.compulsoryBytes);
}

TEST_CASE("roofline scene: templates without a traffic formula keep the compulsory bytes", "[roofline][scene]") {
    const RooflineScene s = sceneOf("reduce", "sm_90", {});
    REQUIRE(s.predicted);
    CHECK_FALSE(s.trafficModelled);
    CHECK(s.trafficBytes == s.compulsoryBytes);
    CHECK(s.predicted->ai == Approx(s.flops / s.compulsoryBytes));
}

TEST_CASE("roofline scene: GROUP_M rasterisation cuts the re-reads of B", "[roofline][scene]") {
    const RooflineScene g1 = sceneOf("gemm_mma", "sm_90", {{"GROUP_M", "1"}});
    const RooflineScene g8 = sceneOf("gemm_mma", "sm_90", {{"GROUP_M", "8"}});
    REQUIRE(g1.predicted);
    REQUIRE(g8.predicted);
    CHECK(g8.predicted->ai > g1.predicted->ai);
    CHECK(g8.trafficBytes >= g8.compulsoryBytes);
}

TEST_CASE("roofline scene: only the kernel's roof, emphasised, and all roofs on request, each its own line", "[roofline][scene]") {
    const RooflineScene simt = sceneOf("gemm", "sm_90", {});
    CHECK(simt.deviceId == "h100_sxm");
    CHECK(simt.deviceFollowsArch);
    CHECK(simt.predictedUnit == "fp32");
    int compute = 0;
    for (const SceneCeiling& c : simt.ceilings) {
        if (c.ceiling.kind != CeilingKind::Compute) continue;
        ++compute;
        CHECK(c.ceiling.id == "fp32");
        CHECK(c.emphasised);
    }
    CHECK(compute == 1);
    REQUIRE(simt.predicted);
    CHECK(simt.predicted->flopsPerSec == Approx(67e12));

    const RooflineScene all = sceneOf("gemm", "sm_90", {}, true);
    bool fp32 = false, fp64Tensor = false;
    for (const SceneCeiling& c : all.ceilings) {
        if (c.ceiling.id == "fp32") fp32 = c.usable && c.label.find("FP64") == std::string::npos;
        if (c.ceiling.id == "fp64_tensor") fp64Tensor = !c.usable && c.label.rfind("FP64 tensor", 0) == 0;
    }
    CHECK(fp32);
    CHECK(fp64Tensor);
}

TEST_CASE("roofline scene: the device follows the arch, and an arch without one says so", "[roofline][scene]") {
    CHECK(sceneOf("gemm", "sm_80", {}).deviceId == "a100_sxm4_80gb");
    CHECK(sceneOf("reduce", "gfx942", {}).deviceArch == "gfx942");
    const RooflineScene none = sceneOf("reduce", "sm_50", {});
    CHECK(none.deviceId.empty());
    CHECK_FALSE(none.model);
    CHECK(none.deviceNote.find("sm_50") != std::string::npos);
    // Switchable: a named device is drawn whatever the arch.
    CHECK(sceneOf("reduce", "sm_50", {}, false, "NVIDIA H100 SXM5 80GB").deviceId == "h100_sxm");
    CHECK_THROWS_AS(sceneOf("reduce", "sm_90", {}, false, "no_such_gpu"), InputError);
}

// The datasheet of the GPU a runner names: the model word decides, the other words break ties,
// then the arch's own device; a GPU of another compute capability has none.
TEST_CASE("roofline scene: a runner's GPU name finds its datasheet", "[roofline][scene]") {
    const Arch& sm90 = *db().findArch("sm_90");
    auto id = [&](const Arch& arch, const char* name) {
        const DeviceSpec* d = deviceForGpuName(db(), arch, name);
        return d ? d->id : std::string("none");
    };
    CHECK(id(sm90, "NVIDIA H200") == "h200_sxm");
    CHECK(id(sm90, "NVIDIA H100 80GB HBM3") == "h100_sxm");   // PCIe and SXM tie on H100, 80GB: the arch's own
    CHECK(id(sm90, "NVIDIA H100 PCIe") == "h100_pcie");
    CHECK(id(*db().findArch("sm_89"), "NVIDIA GeForce RTX 4090") == "rtx_4090");
    CHECK(id(sm90, "Fake GPU") == "none");
    CHECK(id(*db().findArch("sm_80"), "NVIDIA H200") == "none");  // not compute capability 8.0
}

TEST_CASE("roofline scene: labels never overlap each other or a marker at 1280x720 and 1920x1080", "[roofline][scene]") {
    // The plot areas of the Roofline panel at those window sizes, 15 px JetBrains Mono.
    for (auto [w, h] : {std::pair{290.0, 130.0}, std::pair{420.0, 190.0}, std::pair{700.0, 330.0}}) {
        for (const char* arch : {"sm_90", "sm_80", "sm_120", "gfx942"}) {
            for (bool all : {false, true}) {
                const RooflineScene s = sceneOf("gemm", arch, {}, all);
                if (!s.model) continue;
                LabelMetrics m;
                m.plotWidth = w;
                m.plotHeight = h;
                m.charWidth = 9;
                m.lineHeight = 15;
                const std::vector<SceneLabel> labels = layoutRooflineLabels(s, m);
                INFO(arch << " " << w << "x" << h << (all ? " all roofs" : ""));
                CHECK_FALSE(anyOverlap(labels));
                for (const SceneLabel& l : labels) {
                    CHECK(l.rect.x >= 0);
                    CHECK(l.rect.y >= 0);
                    CHECK(l.rect.x + l.rect.w <= w);
                    CHECK(l.rect.y + l.rect.h <= h);
                    for (const PixelRect& marker : sceneMarkerRects(s, m)) CHECK_FALSE(marker.intersects(l.rect));
                }
                // The kernel's own roof and DRAM are always labelled.
                if (!all) CHECK(labels.size() == s.ceilings.size());
            }
        }
    }
}
