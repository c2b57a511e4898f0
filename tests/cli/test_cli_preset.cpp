// kx --preset NAME: a template's tuned config for an arch (a preselected set of one), under --set.
#include "kx_process.hpp"

#include <catch2/catch.hpp>

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
