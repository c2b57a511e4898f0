// splitKHint: the Split-K count that fills the block slots a config leaves idle, rated by the
// waves of each count's launch at the config's blocks per SM, never at the price of more waves.
#include "../test_support.hpp"

#include "analysis/split_k_hint.hpp"

#include <catch2/catch.hpp>

using namespace kx::engine;
using kx::test::shippedArches;
using kx::test::shippedTemplates;

namespace {

struct Case {
    std::shared_ptr<const Template> tmpl;
    Config config;
    const Arch* arch = nullptr;
    SizeMap sizes;
};

Case makeCase(const std::string& id, const std::string& archName, const std::map<std::string, std::string>& values, const SizeMap& problem) {
    Case c;
    c.tmpl = shippedTemplates().find(id);
    REQUIRE(c.tmpl);
    c.arch = shippedArches().findArch(archName);
    REQUIRE(c.arch);
    c.config = c.tmpl->withValues(c.tmpl->defaultConfig(), values);
    c.sizes = c.tmpl->defaultSizes();
    for (const auto& [k, v] : problem) c.sizes[k] = v;
    return c;
}

std::optional<SplitKHint> hintFor(const Case& c, int registers) {
    const LaunchGeometry launch = c.tmpl->launch(c.config, *c.arch, c.sizes);
    OccupancyInput in;
    in.registersPerThread = registers;
    in.threadsPerBlock = static_cast<int>(launch.threadsPerBlock());
    in.dynamicSmemBytes = launch.dynamicSmemBytes;
    const DeviceSpec& h200 = *shippedArches().findDevice("h200_sxm");
    return splitKHint(*c.tmpl, c.config, *c.arch, c.sizes, h200, nvidiaOccupancy(*c.arch, in));
}

const SizeMap kResNetStage2{{"N", 32}, {"C", 64}, {"K", 64}, {"Hi", 56}, {"Wi", 56}, {"Y", 3}, {"X", 3}, {"pad_h", 1}, {"pad_w", 1}};

}  // namespace

TEST_CASE("split-K hint: conv_wgmma's backward weight on 5 tiles fills one round of 132 persistent blocks", "[split_k_hint]") {
    // 5 tiles x 8 slices = 40 units on 132 blocks: 30% busy; 26 slices make 130 units, 98%.
    const auto hint = hintFor(makeCase("conv_wgmma", "sm_90a", {{"direction", "bwd_weight"}, {"SPLITK", "8"}}, kResNetStage2), 168);
    REQUIRE(hint);
    CHECK(hint->splitK == 26);
    CHECK(hint->current.gridBlocks == 40);
    CHECK(hint->waves.gridBlocks == 130);
    CHECK(hint->waves.rounds() == 1);
    CHECK(splitKHintSentence(*hint) == "SPLITK=26: 130 work units in 1 round, 98% of the block slots busy (this config: 30%)");
    // The count that already fills them gets no hint.
    CHECK_FALSE(hintFor(makeCase("conv_wgmma", "sm_90a", {{"direction", "bwd_weight"}, {"SPLITK", "26"}}, kResNetStage2), 168));
}

TEST_CASE("split-K hint: conv's 288 blocks on 264 slots take 29 slices in one wave, not more waves", "[split_k_hint]") {
    // 9 tiles x 32 slices at two blocks per SM: 2 waves, 55% busy. 29 slices: 261 blocks in one
    // wave (58 would fill two waves as well; the smaller count wins the tie).
    const auto hint = hintFor(makeCase("conv", "sm_90", {{"direction", "bwd_weight"}, {"BN", "128"}, {"WN", "64"}, {"SPLITK", "32"}},
                                       {{"N", 32}, {"C", 128}, {"K", 128}, {"Hi", 28}, {"Wi", 28}}),
                              248);
    REQUIRE(hint);
    CHECK(hint->splitK == 29);
    CHECK(hint->waves.blocks == 261);
    CHECK(hint->waves.waves == 1);
    CHECK(splitKHintSentence(*hint) == "SPLITK=29: 261 blocks in 1 wave, 99% of the block slots busy (this config: 55%)");
}

TEST_CASE("split-K hint: none where the count does not apply, where there is none, or where the slots are full", "[split_k_hint]") {
    // conv_wgmma's SPLITK applies to bwd_weight only.
    CHECK_FALSE(hintFor(makeCase("conv_wgmma", "sm_90a", {{"direction", "fwd"}}, kResNetStage2), 168));
    // The SIMT GEMM has no Split-K.
    CHECK_FALSE(hintFor(makeCase("gemm", "sm_90", {}, {}), 128));
    // 8192^3 on gemm_wgmma: 1024 tiles in 8 rounds, 97% busy; more slices would add rounds.
    CHECK_FALSE(hintFor(makeCase("gemm_wgmma", "sm_90a", {}, {{"M", 8192}, {"N", 8192}, {"K", 8192}}), 168));
    // A decode step's 16 tiles on 132 blocks: 8 slices of K make 128 units (its allowed counts
    // are 1, 2, 3, 4, 6, 8 and 16).
    const auto decode = hintFor(makeCase("gemm_wgmma", "sm_90a", {}, {{"M", 64}, {"N", 4096}, {"K", 4096}}), 168);
    REQUIRE(decode);
    CHECK(decode->splitK == 8);
}
