// kx tiles: the tile layout as a user reads it (text) and as tools read it (JSON), and its refusals.
#include "kx_process.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace kx::test;

TEST_CASE("kx tiles: 4096^2 in 128x128 tiles on an H100, GROUP_M = 8, as JSON", "[cli][tiles]") {
    const Outcome o = runKx("tiles gemm_mma --arch sm_90 --size M=4096,N=4096 --set BN=128 --regs 128 --json");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(o.out);
    CHECK(doc["kind"] == "gemm");
    CHECK(doc["waves"]["sm_count"] == 132);
    CHECK(doc["waves"]["registers_source"] == "given");
    // 128 threads x 128 registers and 49152 + 1024 bytes of shared memory: 4 blocks per SM.
    CHECK(doc["waves"]["blocks_per_sm"] == 4);
    CHECK(doc["waves"]["capacity"] == 528);
    CHECK(doc["waves"]["waves"] == 2);
    CHECK(doc["waves"]["tail_blocks"] == 496);
    const auto& grid = doc["gemm"]["grid"];
    CHECK(grid["tiles"] == 1024);
    CHECK(grid["group_m"] == 8);
    const auto& tiles = doc["gemm"]["tiles"];
    REQUIRE(tiles.size() == 1024);
    // The kernel's block order: down columns of groups of 8 block rows.
    std::set<std::pair<int, int>> seen;
    for (const auto& t : tiles) {
        const long long id = t["id"], group = id / (8 * 32), groupRows = 8;
        CHECK(t["tile_m"] == group * 8 + id % groupRows);
        CHECK(t["tile_n"] == (id % (8 * 32)) / groupRows);
        CHECK(t["wave"] == id / 528);
        CHECK(t["sm"] == id % 528 % 132);
        seen.insert({t["tile_m"].get<int>(), t["tile_n"].get<int>()});
    }
    CHECK(seen.size() == 1024);
    CHECK(doc["gemm"]["fragment"]["kind"] == "mma_m16n8k16");
    CHECK(doc["gemm"]["fragment"]["pieces"][0]["lane"][8][1] == 0);
    CHECK(doc["gemm"]["shared_memory"]["operands"][0]["swizzled"] == true);
    CHECK(doc["gemm"]["k_loop"]["k_tiles"] == 128);
}

TEST_CASE("kx tiles: the text summary names tiles, waves, warps, pipeline and shared memory", "[cli][tiles]") {
    const Outcome o = runKx("tiles gemm --arch sm_90 --regs 128");
    INFO(o.err);
    REQUIRE(o.exitCode == 0);
    CHECK_THAT(o.out, Catch::Contains("32 x 32 = 1024 tiles, numbered row by row"));
    CHECK_THAT(o.out, Catch::Contains("4 of 264 blocks: 3 full, then a tail of 232"));
    CHECK_THAT(o.out, Catch::Contains("2 x 4 warps of 64 x 32"));
    CHECK_THAT(o.out, Catch::Contains("8 x 4 lanes, each holding its 8 x 8 thread tile"));
    CHECK_THAT(o.out, Catch::Contains("2 stage(s), 1 load(s) in flight"));
    CHECK_THAT(o.out, Catch::Contains("2 stage(s) = 40960 B"));
}

// Split-K that fills the idle slots: conv_wgmma's backward weight of ResNet-50's stage-2 3x3
// layer in 5 tiles x 8 slices leaves 92 of 132 persistent blocks idle; 26 slices fill 130.
TEST_CASE("kx tiles: a Split-K count that fills the idle block slots, in text and JSON", "[cli][tiles]") {
    const std::string layer = " --size N=32,C=64,K=64,Hi=56,Wi=56,Y=3,X=3,pad_h=1,pad_w=1 --regs 168";
    const Outcome text = runKx("tiles conv_wgmma --arch sm_90a --set direction=bwd_weight,SPLITK=8" + layer);
    INFO(text.err);
    REQUIRE(text.exitCode == 0);
    CHECK_THAT(text.out, Catch::Contains("  split-K     SPLITK=26: 130 work units in 1 round, 98% of the block slots busy (this config: 30%)"));
    const Outcome json = runKx("tiles conv_wgmma --arch sm_90a --set direction=bwd_weight,SPLITK=8 --json" + layer);
    REQUIRE(json.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(json.out);
    CHECK(doc["split_k_hint"]["SPLITK"] == 26);
    CHECK(doc["split_k_hint"]["waves"]["grid_blocks"] == 130);
    // Where the count already fills them, or the template has none, there is no hint.
    const Outcome full = runKx("tiles conv_wgmma --arch sm_90a --set direction=bwd_weight,SPLITK=26 --json" + layer);
    REQUIRE(full.exitCode == 0);
    CHECK_FALSE(nlohmann::json::parse(full.out).contains("split_k_hint"));
    const Outcome none = runKx("tiles gemm --arch sm_90 --regs 128");
    REQUIRE(none.exitCode == 0);
    CHECK(none.out.find("split-K") == std::string::npos);
}

TEST_CASE("kx tiles: 1-D templates and the register estimate", "[cli][tiles]") {
    const Outcome r = runKx("tiles reduce --arch sm_90 --no-compile --json");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    CHECK(doc["kind"] == "blocks");
    CHECK(doc["blocks"]["tile"] == 4096);
    CHECK(doc["blocks"]["steps"] == 16);
    CHECK(doc["blocks"]["load_order"] == "striped");
    CHECK(doc["waves"]["registers_source"] == "estimate");

    const Outcome w = runKx("tiles gemm_wgmma --arch sm_90a --no-compile --json");
    REQUIRE(w.exitCode == 0);
    const nlohmann::json wg = nlohmann::json::parse(w.out);
    CHECK(wg["waves"]["registers_per_thread"] == 168);
    CHECK(wg["gemm"]["warps"]["producer_threads"] == 128);
    // Persistent blocks: 512 tiles of 4096^2 over 132 blocks, four rounds, the last 116 tiles.
    CHECK(wg["waves"]["rounds"] == 4);
    CHECK(wg["waves"]["busy_share"].get<double>() == Approx(512.0 / 528.0));
    const Outcome text = runKx("tiles gemm_wgmma --arch sm_90a --no-compile");
    CHECK_THAT(text.out, Catch::Contains("132 blocks launched instead of the grid's 512, each walking its tiles in turns: 4 round(s), 97.0% of "
                                         "the block slots busy"));
}

TEST_CASE("kx tiles: refusals exit 2 with the reason", "[cli][tiles]") {
    const Outcome none = runKx("tiles transpose --arch sm_90 --regs 32");
    CHECK(none.exitCode == 2);
    CHECK_THAT(none.err, Catch::Contains("no tile view for this template"));
    const Outcome device = runKx("tiles gemm --arch sm_90 --device h900 --regs 32");
    CHECK(device.exitCode == 2);
    CHECK_THAT(device.err, Catch::Contains("unknown device 'h900'") && Catch::Contains("h100_sxm"));
    const Outcome invalid = runKx("tiles gemm --arch sm_90 --set BM=16 --regs 32");
    CHECK(invalid.exitCode == 2);
    CHECK_THAT(invalid.err, Catch::Contains("must be a multiple of warp tile M"));
    const Outcome mismatch = runKx("tiles gemm --arch sm_80 --device h100_sxm --regs 32");
    CHECK(mismatch.exitCode == 2);
    CHECK_THAT(mismatch.err, Catch::Contains("pick a device of compute capability 8.0"));
    const Outcome size = runKx("tiles gemm --arch sm_90 --size Q=3 --regs 32");
    CHECK(size.exitCode == 2);
}
