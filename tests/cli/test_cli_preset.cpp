// kx --preset NAME: a template's tuned config for an arch (a preselected set of one), under --set.
#include "kx_process.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace kx::test;

TEST_CASE("kx --preset starts from the arch's tuned config, and --set still applies over it", "[cli][preset]") {
    const Outcome tuned = runKx("generate attention --arch sm_90 --preset tuned");
    REQUIRE(tuned.exitCode == 0);
    CHECK(tuned.out.rfind("// attention_f16_d128_none_128x64_w4_s2:", 0) == 0);   // WARPS=4, the H100's fastest
    const Outcome plain = runKx("generate attention --arch sm_90");
    CHECK(plain.out.rfind("// attention_f16_d128_none_128x64_w8_s2:", 0) == 0);
    const Outcome overridden = runKx("generate attention --arch sm_90 --preset tuned --set STAGES=3");
    CHECK(overridden.out.rfind("// attention_f16_d128_none_128x64_w4_s3:", 0) == 0);
    // The Hopper template's set names sm_90, which covers sm_90a.
    const Outcome hopper = runKx("generate attention_wgmma --arch sm_90a --preset tuned");
    CHECK(hopper.exitCode == 0);
}

TEST_CASE("kx --preset refuses a set for another arch and a set of several configs, naming what there is", "[cli][preset]") {
    const Outcome otherArch = runKx("generate attention --arch sm_80 --preset tuned");
    CHECK(otherArch.exitCode == 2);
    CHECK_THAT(otherArch.err, Catch::Contains("no preselected set 'tuned'") && Catch::Contains("sets for sm_80: tiles"));
    const Outcome several = runKx("generate attention --arch sm_90 --preset tiles");
    CHECK(several.exitCode == 2);
    CHECK_THAT(several.err, Catch::Contains("holds 7 configs; a preset is a set of one"));
    const Outcome none = runKx("generate map --arch sm_90 --preset tuned");
    CHECK(none.exitCode == 2);
    CHECK_FALSE(none.err.empty());
}

// kx run and sweep with --arch native ask the GPU for its arch before they pick the preset's config; a
// preset name that no arch has, or a --set that names no parameter, is a typo to report first,
// on a machine without a GPU as on one with.
TEST_CASE("kx run and kx sweep report a mistyped preset or parameter before they look for a GPU", "[cli][preset]") {
    const Outcome preset = runKx("run conv_wgmma --arch native --preset few_channel");
    CHECK(preset.exitCode == 2);
    CHECK_THAT(preset.err, Catch::Contains("no preselected set 'few_channel' of conv_wgmma; its sets: fwd_64_filters") &&
                               Catch::Contains("few_channels_data") && !Catch::Contains("driver"));
    // transpose defines 'tuned' twice (CUDA arches, AMD arches): the list names it once.
    const Outcome perArch = runKx("run transpose --arch native --preset tune");
    CHECK(perArch.exitCode == 2);
    CHECK_THAT(perArch.err, Catch::Contains("its sets: tuned, tiles, pairs"));
    const Outcome none = runKx("run map --arch native --preset tuned");
    CHECK(none.exitCode == 2);
    CHECK_THAT(none.err, Catch::Contains("no preselected set 'tuned' of map (it has none)"));
    const Outcome parameter = runKx("run conv_wgmma --arch native --set DATA_FILTERS=transposed");
    CHECK(parameter.exitCode == 2);
    CHECK_THAT(parameter.err, Catch::Contains("DATA_FILTERS") && !Catch::Contains("driver"));
    const Outcome sweep = runKx("sweep conv_wgmma --arch native --preset few_channel --vary STAGES=4,6");
    CHECK(sweep.exitCode == 2);
    CHECK_THAT(sweep.err, Catch::Contains("no preselected set 'few_channel' of conv_wgmma") && !Catch::Contains("driver") &&
                              !Catch::Contains("needs an NVIDIA GPU"));
}

// A preset may name the problem it was tuned for (size="..." in preselected.xml): kx run, tiles and
// share start there, and --size changes only the sizes it names.
TEST_CASE("kx --preset runs at the problem the preset was tuned for, under --size", "[cli][preset]") {
    // (The stand-in runner computes nothing, so the check fails: the header is what is asked here.)
    const std::string fake = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'";
    const Outcome run = runKx("run conv --arch sm_90 --preset bwd_weight_3x3 --size N=2 --reps 1 --warmup 0 --no-baseline", fake);
    INFO(run.out << run.err);
    // ResNet-50's stage-3 3x3 layer from the preset, the batch from --size.
    CHECK_THAT(run.out, Catch::Contains("C=128 Di=1 G=1 Hi=28 K=128 N=2 Wi=28 X=3 Y=3"));
    CHECK_THAT(run.err, Catch::Contains("kx: preset bwd_weight_3x3 was tuned at N=32, C=128, K=128, Hi=28, Wi=28; these sizes differ in N\n"));
    const Outcome plain = runKx("run conv --arch sm_90 --set direction=bwd_weight --reps 1 --warmup 0 --no-baseline --size N=2", fake);
    CHECK_THAT(plain.err, !Catch::Contains("was tuned at"));
    const Outcome text = runKx("tiles conv --arch sm_90 --preset bwd_weight_3x3 --size C=64,K=64,Hi=56,Wi=56");
    CHECK_THAT(text.out, Catch::Contains("  (preset bwd_weight_3x3 was tuned at N=32, C=128, K=128, Hi=28, Wi=28; these sizes differ in C, Hi, K, Wi)\n"));
    CHECK_THAT(runKx("tiles conv --arch sm_90 --preset bwd_weight_3x3").out, !Catch::Contains("was tuned at"));
    CHECK_THAT(plain.out, Catch::Contains("C=64 Di=1 G=1 Hi=56 K=64 N=2 Wi=56"));

    // A sweep of the set rates its waves at the layer: 18 tiles x 22 slices fill the 396 slots of an H200.
    const Outcome sweep = runKx("sweep conv --arch sm_90 --preselected bwd_weight_3x3 --compile-only --roofline-device h200_sxm");
    INFO(sweep.err);
    CHECK_THAT(sweep.out, Catch::Contains("conv_bwd_weight_f16_nhwgc_128x64x32_w64x32_s4_k22") && Catch::Contains("    1 100%   "));
    CHECK_THAT(sweep.err, Catch::Contains("kx: at the problem of set bwd_weight_3x3: N=32, C=128, K=128, Hi=28, Wi=28\n"));

    const Outcome tiles = runKx("tiles gemm_wgmma --arch sm_90a --preset decode_m16 --json");
    INFO(tiles.err);
    REQUIRE(tiles.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(tiles.out);
    CHECK(doc["sizes"] == nlohmann::json({{"M", 16}, {"N", 8192}, {"K", 8192}}));
    const Outcome shared = runKx("share gemm_wgmma --arch sm_90a --preset decode_m64 --size K=4096");
    REQUIRE(shared.exitCode == 0);
    const Outcome opened = runKx("open '" + shared.out.substr(0, shared.out.find('\n')) + "'");
    INFO(opened.out << opened.err);
    CHECK_THAT(opened.out, Catch::Contains("  sizes     K=4096,M=64,N=8192\n"));
}

TEST_CASE("kx presets lists a template's sets for an arch, with the problem each was tuned for", "[cli][preset]") {
    const Outcome conv = runKx("presets conv --arch sm_90");
    INFO(conv.err);
    REQUIRE(conv.exitCode == 0);
    CHECK_THAT(conv.out, Catch::Contains("bwd_weight_3x3           preset   sm_90                  N=32, C=128, K=128, Hi=28, Wi=28\n"));
    CHECK_THAT(conv.out, Catch::Contains("    Backward weight of a 3x3 layer with 128 filters (ResNet-50's stage 3)"));
    CHECK_THAT(conv.out, Catch::Contains("    sets BK=32, BM=128, BN=64, SPLITK=22, STAGES=4, WM=64, WN=32, direction=bwd_weight\n"));
    const Outcome stencil = runKx("presets stencil --arch sm_90");
    CHECK_THAT(stencil.out, Catch::Contains(", flags maxrregcount=128\n"));
    const Outcome gemm = runKx("presets gemm_mma --arch sm_90");
    CHECK_THAT(gemm.out, Catch::Contains("tensor_core_tiles") && Catch::Contains("the template's default sizes"));
    const Outcome none = runKx("presets conv --arch sm_80");
    CHECK(none.exitCode == 0);
    CHECK_THAT(none.out, Catch::Contains("conv has no preselected sets for sm_80"));
    const Outcome json = runKx("presets gemm_wgmma --json");
    REQUIRE(json.exitCode == 0);
    const nlohmann::json sets = nlohmann::json::parse(json.out);
    const auto decode = std::find_if(sets.begin(), sets.end(), [](const nlohmann::json& s) { return s["name"] == "decode_m16"; });
    REQUIRE(decode != sets.end());
    CHECK((*decode)["preset"] == true);
    CHECK((*decode)["sizes"]["M"] == 16);
    const auto skinny = std::find_if(sets.begin(), sets.end(), [](const nlohmann::json& s) { return s["name"] == "skinny"; });
    REQUIRE(skinny != sets.end());
    CHECK((*skinny)["preset"] == false);
    CHECK((*skinny)["configs"] == 8);
    CHECK((*skinny)["values"].size() == 8);
    CHECK((*decode)["values"][0]["values"]["SWAP_AB"] == "1");
    CHECK(runKx("presets nosuch").exitCode == 2);
    CHECK_THAT(runKx("presets conv --arch sm_99").err, Catch::Contains("unknown arch 'sm_99'"));
}
