// The tile layout against cases worked by hand: block tiles, waves and tail on a 132-SM H100,
// the kernels' own GROUP_M rasterisation, warp tiles, lane ownership of thread tiles and of the
// mma.sync / wgmma fragments (PTX ISA fragment layouts), shared-memory padding and swizzle, the
// K loop, the 1-D block tiles, and the <visual> element's parsing errors.
#include "../test_support.hpp"
#include "analysis/tile_layout.hpp"
#include "arch/arch_database.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

const ArchDatabase& db() {
    static ArchDatabase d = ArchDatabase::loadFromDataRoot(kx::test::sourceDir());
    return d;
}
const TemplateLibrary& lib() {
    static TemplateLibrary l = TemplateLibrary::load(kx::test::sourceDir() / "templates");
    return l;
}

TileScene scene(const std::string& id, const std::string& arch, const std::map<std::string, std::string>& set, const SizeMap& sizes,
                std::optional<int> registers, const char* device = "h100_sxm") {
    const auto tmpl = lib().find(id);
    REQUIRE(tmpl);
    TileRequest req;
    req.tmpl = tmpl.get();
    req.config = tmpl->withValues(tmpl->defaultConfig(), set);
    req.arch = db().findArch(arch);
    REQUIRE(req.arch);
    req.device = db().findDevice(device);
    REQUIRE(req.device);
    req.deviceArch = db().findArch(req.device->arch);
    req.sizes = sizes;
    req.registers = registers;
    req.registersSource = "given";
    return computeTileScene(req);
}

// The gemm_mma and gemm_wgmma kernels' block order, transcribed from their sources.
void kernelTileOrigin(long long id, long long blocksM, long long blocksN, long long groupM, long long& tileM, long long& tileN) {
    const long long group = id / (groupM * blocksN);
    const long long firstM = group * groupM;
    const long long groupRows = std::min(blocksM - firstM, groupM);
    tileM = firstM + id % groupRows;
    tileN = (id % (groupM * blocksN)) / groupRows;
}

// Whether each of the 32 lanes holds exactly `count` elements of the piece.
bool everyLaneHolds(const FragmentPiece& p, int count) {
    std::vector<int> perLane(32, 0);
    for (int lane : p.lane) ++perLane[static_cast<std::size_t>(lane)];
    return std::all_of(perLane.begin(), perLane.end(), [&](int n) { return n == count; });
}

}  // namespace

TEST_CASE("tile layout: 4096^2 GEMM in 128x128 tiles on a 132-SM H100", "[tile_layout]") {
    // gemm_mma, 128x128 tiles of 2x2 warps (128 threads), 3 stages of (128+128) x 32 halves = 48 KiB.
    // Given 128 registers: 16384 per block -> 4 blocks by registers; shared memory 49152 + 1024
    // reserved -> 233472 / 50176 = 4; so 4 blocks per SM, 528 at once.
    const TileScene s = scene("gemm_mma", "sm_90", {{"BM", "128"}, {"BN", "128"}, {"WM", "64"}, {"WN", "64"}, {"GROUP_M", "8"}},
                              {{"M", 4096}, {"N", 4096}, {"K", 4096}}, 128);
    REQUIRE(s.kind == TileScene::Kind::Gemm);
    const GemmLayout& g = s.gemm;
    CHECK(g.blocksM == 32);
    CHECK(g.blocksN == 32);
    CHECK(g.tiles == 1024);
    CHECK(g.grid == 1024);
    CHECK(s.waves.smCount == 132);
    CHECK(s.waves.occupancy.blocksPerSm == 4);
    CHECK(s.waves.capacity == 528);
    CHECK(s.waves.waves == 2);
    CHECK(s.waves.fullWaves == 1);
    CHECK(s.waves.tailBlocks == 1024 - 528);
    CHECK(s.waves.efficiency == Approx(1024.0 / 1056.0));
    CHECK(s.waves.registersSource == "given");

    // Raster order: ids 0..7 run down the first column of the first group of 8 block rows.
    long long tm = -1, tn = -1;
    g.tileOfId(0, tm, tn);
    CHECK((tm == 0 && tn == 0));
    g.tileOfId(7, tm, tn);
    CHECK((tm == 7 && tn == 0));
    g.tileOfId(8, tm, tn);
    CHECK((tm == 0 && tn == 1));
    g.tileOfId(256, tm, tn);  // 8 x 32 ids per group: the second group starts at row 8
    CHECK((tm == 8 && tn == 0));
    // Every id agrees with the kernel's index math, and the inverse finds it again.
    for (long long id = 0; id < g.tiles; ++id) {
        long long km = 0, kn = 0;
        kernelTileOrigin(id, g.blocksM, g.blocksN, 8, km, kn);
        g.tileOfId(id, tm, tn);
        REQUIRE(tm == km);
        REQUIRE(tn == kn);
        REQUIRE(g.idOfTile(tm, tn) == id);
    }
    // Wave and SM: block 600 is in the second (tail) wave, on SM (600 - 528) % 132 = 72.
    CHECK(s.waveOfTile(600) == 1);
    CHECK(s.smOfTile(600) == 72);
    CHECK(s.waves.inTail(600));
    CHECK_FALSE(s.waves.inTail(527));
    CHECK(s.smOfTile(140) == 8);
}

TEST_CASE("tile layout: the raster order covers ragged groups like the kernel", "[tile_layout]") {
    // 11 x 5 block tiles with GROUP_M = 8: the last group has 3 rows, and its ids start at 40,
    // which is 1 mod 3, so the kernel's id % groupRows starts that column at row 9, not 8.
    const TileScene s = scene("gemm_mma", "sm_90", {{"BM", "128"}, {"BN", "128"}, {"WM", "64"}, {"WN", "64"}, {"GROUP_M", "8"}},
                              {{"M", 11 * 128 - 5}, {"N", 5 * 128}, {"K", 64}}, 128);
    const GemmLayout& g = s.gemm;
    REQUIRE(g.blocksM == 11);
    REQUIRE(g.blocksN == 5);
    long long tm = 0, tn = 0;
    g.tileOfId(40, tm, tn);
    CHECK((tm == 9 && tn == 0));
    g.tileOfId(42, tm, tn);
    CHECK((tm == 8 && tn == 0));
    // The last tile row is clipped at M.
    CHECK(g.tileRect(10, 4).rows == 123);
    CHECK(g.tileRect(10, 4).cols == 128);
    for (long long groupM : {1, 2, 4, 8, 16}) {
        const TileScene t = scene("gemm_mma", "sm_90", {{"BM", "128"}, {"BN", "128"}, {"WM", "64"}, {"WN", "64"}, {"GROUP_M", std::to_string(groupM)}},
                                  {{"M", 11 * 128}, {"N", 7 * 128}, {"K", 64}}, 128);
        std::set<std::pair<long long, long long>> seen;
        for (long long id = 0; id < t.gemm.tiles; ++id) {
            long long km = 0, kn = 0;
            kernelTileOrigin(id, 11, 7, groupM, km, kn);
            t.gemm.tileOfId(id, tm, tn);
            REQUIRE((tm == km && tn == kn));
            REQUIRE(t.gemm.idOfTile(tm, tn) == id);
            seen.insert({tm, tn});
        }
        CHECK(seen.size() == 77);  // a permutation of the tiles
    }
}

TEST_CASE("tile layout: SIMT gemm warps, thread tiles, padding and pipeline", "[tile_layout]") {
    // Defaults: f16 rcr, 128x128x32 tiles, 64x32 warps (2 x 4 = 8 warps, 256 threads), 8x8
    // thread tiles (8 x 4 lanes), 2 stages, PAD_K = 8 halves (16 bytes).
    const TileScene s = scene("gemm", "sm_90", {}, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, 128);
    const GemmLayout& g = s.gemm;
    CHECK(s.threadsPerBlock == 256);
    // 32768 registers per block -> 2 blocks per SM -> 264 at once: 1024 tiles take 4 waves,
    // the last with 1024 - 3 x 264 = 232 blocks.
    CHECK(s.waves.occupancy.blocksPerSm == 2);
    CHECK(s.waves.waves == 4);
    CHECK(s.waves.fullWaves == 3);
    CHECK(s.waves.tailBlocks == 232);
    // Without a rasterisation group the order is row by row (grid x runs over N).
    long long tm = 0, tn = 0;
    g.tileOfId(33, tm, tn);
    CHECK((tm == 1 && tn == 1));

    REQUIRE(g.warps.size() == 8);
    CHECK(g.warpsM == 2);
    CHECK(g.warpsN == 4);
    CHECK(g.warps[5].warpM == 1);
    CHECK(g.warps[5].warpN == 1);
    CHECK(g.warps[5].rect.row0 == 64);
    CHECK(g.warps[5].rect.col0 == 32);

    REQUIRE(g.pieces.size() == 1);
    const FragmentPiece& c = g.pieces[0];
    REQUIRE(c.rows == 64);
    REQUIRE(c.cols == 32);
    // Lanes form 8 x 4; a lane's rows are 8 apart and its columns 4 apart (B column-major).
    CHECK(c.laneAt(0, 0) == 0);
    CHECK(c.laneAt(0, 1) == 1);
    CHECK(c.laneAt(1, 0) == 4);
    CHECK(c.laneAt(0, 4) == 0);
    CHECK(c.regAt(0, 4) == 1);
    CHECK(c.laneAt(8, 0) == 0);
    CHECK(c.regAt(8, 0) == 8);
    CHECK(everyLaneHolds(c, 64));

    // One stage: A and B are 128 rows of 4 data chunks + 1 pad chunk = 10240 bytes each, and
    // 2 stages are the manifest's SMEM_BYTES (40960).
    REQUIRE(g.smem.size() == 2);
    CHECK(g.smem[0].dataChunks == 4);
    CHECK(g.smem[0].padChunks == 1);
    CHECK(g.smem[0].bytes == 10240);
    CHECK(g.stageBytes == 20480);
    CHECK(g.stages * g.stageBytes == g.launchSmemBytes);
    // The pad rotates row starts by 5 chunks: rows 0..7 at chunk 0 hit 8 different bank groups.
    std::set<int> groups;
    for (int r = 0; r < 8; ++r) groups.insert(SmemOperand::bankGroup(g.smem[0].positionOf(r, 0)));
    CHECK(groups.size() == 8);
    CHECK(g.smem[0].occupantAt(4) == -1);  // row 0's pad chunk

    CHECK(g.kTiles == 128);
    REQUIRE(g.kSteps.size() == 128);
    CHECK(g.kSteps[0].stage == 0);
    CHECK(g.kSteps[0].loading == std::vector<long long>{1});
    CHECK(g.kSteps[1].stage == 1);
    CHECK(g.kSteps[127].loading.empty());
    CHECK(g.kSteps[5].held.empty());

    // Row-major B: columns are read in chunks of min(TN, 4) = 4 adjacent ones per lane.
    const TileScene rrr = scene("gemm", "sm_90", {{"layout", "rrr"}}, {}, 128);
    const FragmentPiece& cr = rrr.gemm.pieces[0];
    CHECK(cr.laneAt(0, 3) == 0);
    CHECK(cr.laneAt(0, 4) == 1);
    CHECK(cr.laneAt(0, 16) == 0);
    CHECK(cr.regAt(0, 16) == 4);
    CHECK(rrr.gemm.smem[1].rowsLabel == "k");
    CHECK(rrr.gemm.smem[1].padChunks == 0);
}

// The matmul ladder's rungs as their kernels index threads (templates/matmul_ladder/matmul_ladder.cu).
TEST_CASE("tile layout: the matmul ladder's rungs, from global-memory reads to warp tiles", "[tile_layout]") {
    auto rung = [](const char* stage) { return scene("matmul_ladder", "sm_90", {{"STAGE", stage}}, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, 64); };
    // naive: thread t computes row t % 32, column t / 32, so warp w is column w, its lanes the
    // rows; no shared memory, k one step at a time.
    const TileScene naive = rung("naive");
    const GemmLayout& n = naive.gemm;
    CHECK_FALSE(n.staged);
    CHECK(n.smem.empty());
    CHECK(n.stageBytes == 0);
    CHECK(n.kTiles == 4096);
    CHECK((n.warpsM == 1 && n.warpsN == 32));
    CHECK(n.warps[5].rect.col0 == 5);
    CHECK(n.pieces[0].laneAt(7, 0) == 7);
    // coalesced: the lanes run along a row instead.
    const GemmLayout& co = rung("coalesced").gemm;
    CHECK((co.warpsM == 32 && co.warpsN == 1));
    CHECK(co.pieces[0].laneAt(0, 7) == 7);
    // regtile_2d and vectorised: thread (row t / 16, column t % 16) holds a contiguous 8x8
    // block, so a warp is two thread rows: 16 x 128.
    for (const char* stage : {"regtile_2d", "vectorised"}) {
        INFO(stage);
        const GemmLayout& g = rung(stage).gemm;
        REQUIRE((g.warpM == 16 && g.warpN == 128));
        const FragmentPiece& c = g.pieces[0];
        CHECK(c.laneAt(0, 0) == 0);
        CHECK(c.laneAt(7, 7) == 0);
        CHECK(c.regAt(7, 7) == 63);
        CHECK(c.laneAt(0, 8) == 1);
        CHECK(c.laneAt(8, 8) == 17);
        CHECK(c.regAt(9, 10) == 10);
        CHECK(g.stageBytes == 8192);
    }
    CHECK(rung("regtile_2d").gemm.smem[0].rowsLabel == "m");
    CHECK(rung("vectorised").gemm.smem[0].rowsLabel == "k");  // A stored transposed
    // warptile: lane (lane / 4, lane % 4) holds 2 x 2 sub-tiles of 4x4, 32 rows and 16 columns
    // apart, inside its warp's 64x32 tile.
    const TileScene warp = rung("warptile");
    const GemmLayout& w = warp.gemm;
    CHECK((w.warpsM == 2 && w.warpsN == 4 && w.blockK == 16));
    const FragmentPiece& c = w.pieces[0];
    for (int r : {0, 3, 32, 35})
        for (int col : {0, 3, 16, 19}) {
            INFO(r << "," << col);
            CHECK(c.laneAt(r, col) == 0);
        }
    CHECK(c.regAt(32, 16) == 4 * 8 + 4);
    CHECK(c.laneAt(4, 0) == 4);    // the next lane row
    CHECK(c.laneAt(0, 4) == 1);    // the next lane column
    CHECK(c.laneAt(63, 31) == 31);
    CHECK(everyLaneHolds(c, 64));
    CHECK(w.stageBytes == 16384);
}

TEST_CASE("tile layout: mma.sync m16n8k16 fragments and the XOR swizzle", "[tile_layout]") {
    const TileScene s = scene("gemm_mma", "sm_90", {}, {}, 128);
    const GemmLayout& g = s.gemm;
    CHECK(g.fragment == FragmentKind::MmaM16N8K16);
    CHECK(g.atomsM == 4);  // 64 x 64 warp tile: 4 x 8 mma tiles of 16 x 8
    CHECK(g.atomsN == 8);
    REQUIRE(g.pieces.size() == 3);
    const FragmentPiece& c = g.pieces[0];
    CHECK(c.laneAt(0, 0) == 0);
    CHECK(c.laneAt(0, 2) == 1);
    CHECK(c.laneAt(1, 0) == 4);
    CHECK(c.laneAt(8, 1) == 0);
    CHECK(c.regAt(8, 1) == 3);
    const FragmentPiece& a = g.pieces[1];  // a0..a3: (rows 0-7 | 8-15) x (k 0-7 | 8-15), 2 halves each
    CHECK(a.laneAt(0, 9) == 0);
    CHECK(a.regAt(0, 9) == 5);
    CHECK(a.regAt(9, 8) == 6);
    const FragmentPiece& b = g.pieces[2];  // b0: k 0-7, b1: k 8-15 of column lane / 4
    CHECK(b.laneAt(0, 1) == 4);
    CHECK(b.laneAt(3, 0) == 1);
    CHECK(b.regAt(9, 0) == 3);
    for (const FragmentPiece* p : {&c, &a, &b}) {
        CHECK(everyLaneHolds(*p, p->rows * p->cols / 32));
    }

    // A: 64-byte rows (BK = 32 halves), two rows per 128-byte line. Swizzled, the chunk 0 of
    // rows 0..7 lands in bank groups 0,4,1,5,2,6,3,7; plain, only in groups 0 and 4.
    const SmemOperand& as = g.smem[0];
    REQUIRE(as.swizzled);
    const int expected[] = {0, 4, 9, 13, 18, 22, 27, 31};
    for (int r = 0; r < 8; ++r) CHECK(as.positionOf(r, 0) == expected[r]);
    const TileScene plain = scene("gemm_mma", "sm_90", {{"smem", "plain"}}, {}, 128);
    std::set<int> groups;
    for (int r = 0; r < 8; ++r) groups.insert(SmemOperand::bankGroup(plain.gemm.smem[0].positionOf(r, 0)));
    CHECK(groups == std::set<int>{0, 4});
    CHECK(g.stages * g.stageBytes == g.launchSmemBytes);

    // Preshuffled B goes from global memory to registers: only A's tile is in a stage, and the
    // stages fill the launch's smaller shared memory exactly.
    const TileScene shuffled = scene("gemm_mma", "sm_90", {{"b_format", "preshuffled"}, {"BN", "128"}, {"WN", "32"}}, {}, 128);
    REQUIRE(shuffled.gemm.smem.size() == 1);
    CHECK(shuffled.gemm.smem[0].name == "A");
    CHECK(shuffled.gemm.stageBytes == 128 * 32 * 2);
    CHECK(shuffled.gemm.stages * shuffled.gemm.stageBytes == shuffled.gemm.launchSmemBytes);
}

TEST_CASE("tile layout: wgmma warpgroups, fragments and 128-byte swizzle", "[tile_layout]") {
    const TileScene s = scene("gemm_wgmma", "sm_90a", {}, {}, std::nullopt);
    const GemmLayout& g = s.gemm;
    CHECK(s.threadsPerBlock == 384);
    CHECK(s.waves.registersSource == "estimate");
    CHECK(s.waves.registersPerThread == 168);
    REQUIRE(g.warps.size() == 3);
    CHECK(g.warps[0].producer);
    CHECK(g.warps[2].rect.row0 == 64);
    CHECK(g.warps[2].rect.rows == 64);
    CHECK(g.warps[2].rect.cols == 256);
    REQUIRE(g.pieces.size() == 1);
    const FragmentPiece& c = g.pieces[0];
    CHECK(c.rows == 64);
    CHECK(c.cols == 256);
    CHECK(c.laneAt(16, 0) == 32);
    CHECK(c.laneAt(0, 8) == 0);
    CHECK(c.regAt(0, 8) == 4);
    CHECK(c.regAt(8, 0) == 2);
    CHECK(g.lookahead == 2);  // 4 stages, one held by the consumer, one by the wgmma in flight
    REQUIRE(g.kSteps.size() == 64);
    CHECK(g.kSteps[0].held.empty());
    CHECK(g.kSteps[5].held == std::vector<long long>{4});
    CHECK(g.kSteps[5].loading == (std::vector<long long>{6, 7}));
    CHECK(g.stageBytes == (128 + 256) * 64 * 2);
    CHECK(g.vector == 0);
    for (int r = 0; r < 8; ++r) CHECK(g.smem[0].positionOf(r, 0) == r * 8 + r);
}

// ln_linear_wgmma feeds wgmma its A from registers (the normalised X): the scene says so and
// draws each warp's 16 rows of a k-step as an mma.sync A fragment beside C's.
TEST_CASE("tile layout: wgmma with A from registers draws the A fragment", "[tile_layout]") {
    const TileScene plain = scene("gemm_wgmma", "sm_90a", {}, {}, std::nullopt);
    CHECK_FALSE(plain.gemm.aFromRegisters);
    const TileScene s = scene("ln_linear_wgmma", "sm_90a", {}, {}, std::nullopt);
    const GemmLayout& g = s.gemm;
    CHECK(g.aFromRegisters);
    REQUIRE(g.pieces.size() == 2);
    const FragmentPiece& a = g.pieces[1];
    CHECK(a.name == "A");
    CHECK(a.rows == 64);
    CHECK(a.cols == 16);
    // Thread t of the warpgroup: warp t / 32 owns rows 16 (t / 32)..; lane / 4 the row, lane % 4
    // the column pair; registers a0 a1 (row, k), a2 a3 (row + 8), a4..a7 the same at k + 8.
    CHECK(a.laneAt(0, 0) == 0);
    CHECK(a.regAt(0, 1) == 1);
    CHECK(a.laneAt(16, 0) == 32);
    CHECK(a.laneAt(1, 2) == 5);
    CHECK(a.regAt(8, 0) == 2);
    CHECK(a.laneAt(8, 0) == 0);
    CHECK(a.regAt(0, 8) == 4);
    CHECK(a.regAt(9, 9) == 7);
    CHECK(a.laneAt(63, 15) == 3 * 32 + 7 * 4 + 3);
}

// With SWAP_AB the kernel computes C^T = B A^T: the scene draws C^T (N rows, M columns), the
// rows' operand in shared memory is B, and rows and columns are named in C's terms.
TEST_CASE("tile layout: gemm_wgmma with swapped operands draws C^T", "[tile_layout]") {
    const TileScene plain = scene("gemm_wgmma", "sm_90a", {{"BN", "64"}}, {{"M", 64}, {"N", 4096}, {"K", 4096}}, std::nullopt);
    CHECK_FALSE(plain.gemm.transposed);
    CHECK(plain.gemm.cName == "C");
    CHECK(plain.gemm.m == 64);
    CHECK(plain.gemm.smem[0].name == "A");
    const TileScene s = scene("gemm_wgmma", "sm_90a", {{"SWAP_AB", "1"}, {"STORE", "direct"}, {"BN", "64"}}, {{"M", 64}, {"N", 4096}, {"K", 4096}}, std::nullopt);
    const GemmLayout& g = s.gemm;
    CHECK(g.transposed);
    CHECK(g.cName == "C^T");
    CHECK(g.m == 4096);
    CHECK(g.n == 64);
    REQUIRE(g.smem.size() == 2);
    CHECK(g.smem[0].name == "B");
    CHECK(g.smem[1].name == "A");
    CHECK(g.smem[0].rowsLabel == "n");  // B's rows run over C's columns
    CHECK(g.smem[1].rowsLabel == "m");
    REQUIRE_FALSE(g.pieces.empty());
    CHECK(g.pieces[0].name == "C^T");
}

TEST_CASE("tile layout: 1-D block tiles of reduce and scan", "[tile_layout]") {
    // reduce: 256 threads x 4 items x 4-wide vectors = 4096 elements per step; the grid is
    // capped at 262144 / 256 = 1024 blocks, so each walks 2^26 / (1024 x 4096) = 16 steps.
    const TileScene r = scene("reduce", "sm_90", {}, {}, 32);
    REQUIRE(r.kind == TileScene::Kind::Blocks);
    CHECK(r.blocks.tile == 4096);
    CHECK(r.blocks.grid == 1024);
    CHECK(r.blocks.steps == 16);
    CHECK(r.blocks.loaderOf(5).thread == 1);
    CHECK(r.blocks.loaderOf(5).lane == 1);
    CHECK(r.blocks.loaderOf(1024).thread == 0);
    CHECK(r.blocks.loaderOf(1024).item == 1);
    // 32 registers, 256 threads: 8 blocks per SM by threads -> 1056 at once: one partial wave.
    CHECK(r.waves.waves == 1);
    CHECK(r.waves.tailBlocks == 1024);

    // scan (transpose load): warp-striped loads, blocked ownership after the exchange.
    const TileScene s = scene("scan", "sm_90", {}, {}, 64);
    CHECK(s.blocks.items == 24);
    CHECK(s.blocks.loaderOf(32).thread == 0);
    CHECK(s.blocks.loaderOf(32).item == 1);
    CHECK(s.blocks.loaderOf(768).thread == 32);
    CHECK(s.blocks.holderOf(1).thread == 0);
    CHECK(s.blocks.holderOf(1).item == 1);
    CHECK(s.blocks.holderOf(24).thread == 1);
    const TileScene d = scene("scan", "sm_90", {{"LOAD", "direct"}}, {}, 64);
    CHECK(d.blocks.loaderOf(24).thread == 1);
}

// A persistent launch (histogram's, gemm_wgmma's) runs as kx-runner launches it: grid-x shrunk
// to the blocks the device holds at once, each block walking several tiles.
TEST_CASE("tile layout: a persistent launch is one wave of blocks walking the tiles", "[tile_layout]") {
    // histogram: 1024-thread blocks, two per SM by threads: 264 of the grid's 1024 on 132 SMs,
    // each taking ceil(2^26 / (264 x 8192)) = 32 grid-stride steps.
    const TileScene h = scene("histogram", "sm_90", {}, {}, 24);
    CHECK(h.waves.persistent);
    CHECK(h.waves.gridBlocks == 1024);
    CHECK(h.waves.blocks == 264);
    CHECK(h.blocks.grid == 264);
    CHECK(h.blocks.steps == 32);
    CHECK(h.waves.waves == 1);
    CHECK(h.waves.tailBlocks == 0);

    // gemm_wgmma at 4096^2: 512 tiles of 128 x 256, one block per SM: 132 blocks, and tile 140
    // is block 8's second, in the second round.
    const TileScene g = scene("gemm_wgmma", "sm_90a", {}, {}, std::nullopt);
    CHECK(g.waves.gridBlocks == 512);
    CHECK(g.gemm.grid == 132);
    CHECK(g.gemm.blockOfId(140) == 8);
    CHECK(g.waveOfTile(140) == 1);
    // Without persistent blocks, one block per tile: four waves.
    const TileScene once = scene("gemm_wgmma", "sm_90a", {{"PERSISTENT", "0"}}, {}, std::nullopt);
    CHECK_FALSE(once.waves.persistent);
    CHECK(once.gemm.grid == 512);
    CHECK(once.waves.waves == 4);
}

// The waves of any launch, from its geometry and the occupancy calculator's blocks per SM: conv's
// bwd_weight on ResNet-50's stage-3 3x3 layer in 128 x 128 tiles (248 registers: two blocks per
// SM) makes 9 tiles x 32 slices = 288 blocks for 264 slots, a second wave 9% full; 29 slices fill
// one. A persistent launch takes its work units in rounds of the blocks resident at once.
TEST_CASE("tile layout: the waves of a launch, and the share of the block slots they keep busy", "[tile_layout]") {
    const Arch& arch = *db().findArch("sm_90");
    const DeviceSpec& h200 = *db().findDevice("h200_sxm");
    const auto conv = lib().find("conv");
    REQUIRE(conv);
    const SizeMap layer{{"N", 32}, {"C", 128}, {"K", 128}, {"Hi", 28}, {"Wi", 28}};
    auto waves = [&](const std::string& split, int registers) {
        const Config c = conv->withValues(conv->defaultConfig(), {{"direction", "bwd_weight"}, {"BN", "128"}, {"WN", "64"}, {"SPLITK", split}});
        SizeMap sizes = conv->defaultSizes();
        for (const auto& [k, v] : layer) sizes[k] = v;
        const LaunchGeometry launch = conv->launch(c, arch, sizes);
        OccupancyInput in;
        in.registersPerThread = registers;
        in.threadsPerBlock = static_cast<int>(launch.threadsPerBlock());
        in.dynamicSmemBytes = launch.dynamicSmemBytes;
        return launchWaves(h200, launch, nvidiaOccupancy(arch, in));
    };
    const WaveModel two = waves("32", 248);
    CHECK(two.blocks == 288);
    CHECK(two.capacity == 264);
    CHECK(two.waves == 2);
    CHECK(two.tailBlocks == 24);
    CHECK(two.rounds() == 2);
    CHECK(two.busyShare() == Approx(288.0 / 528.0));
    CHECK(wavesSentence(two) == "288 blocks, 264 at once (132 SMs x 2): 2 waves, the last with 24 blocks (9% of a wave); 55% of the block slots busy");
    const WaveModel one = waves("29", 248);
    CHECK(one.waves == 1);
    CHECK(wavesSentence(one) == "261 blocks, 264 at once (132 SMs x 2): 1 wave; 99% of the block slots busy");
    // Fewer registers, three blocks per SM: the same 288 blocks fit one wave of 396.
    CHECK(waves("32", 168).waves == 1);

    // conv_wgmma's persistent bwd_weight: units = tiles x slices, one block per SM.
    LaunchGeometry persistent;
    persistent.grid[0] = 112;
    persistent.block[0] = 384;
    persistent.persistent = true;
    OccupancyInput in;
    in.registersPerThread = 168;
    in.threadsPerBlock = 384;
    in.dynamicSmemBytes = 200 * 1024;
    const OccupancyResult oneBlock = nvidiaOccupancy(arch, in);
    REQUIRE(oneBlock.blocksPerSm == 1);
    const WaveModel units = launchWaves(h200, persistent, oneBlock);
    CHECK(units.rounds() == 1);
    CHECK(wavesSentence(units) == "112 work units on 112 persistent blocks (132 SMs x 1): 1 round; 85% of the block slots busy");
    persistent.grid[0] = 261;
    const WaveModel capped = launchWaves(h200, persistent, oneBlock);
    CHECK(capped.blocks == 132);
    CHECK(capped.gridBlocks == 261);
    CHECK(capped.rounds() == 2);
    CHECK(wavesSentence(capped) == "261 work units on 132 persistent blocks (132 SMs x 1): 2 rounds; 99% of the block slots busy");
}

TEST_CASE("tile layout: refusals name the reason", "[tile_layout]") {
    CHECK_THROWS_WITH(scene("transpose", "sm_90", {}, {}, 32), Catch::Contains("no tile view for this template"));
    CHECK_THROWS_WITH(scene("gemm", "sm_90", {{"BM", "16"}}, {}, 32), Catch::Contains("multiple of warp tile M"));
    CHECK_THROWS_WITH(scene("gemm", "sm_80", {}, {}, 32), Catch::Contains("pick a device of compute capability 8.0"));
    CHECK_THROWS_WITH(scene("gemm", "gfx942", {}, {}, 32, "mi300x"), Catch::Contains("models NVIDIA SMs"));
}

TEST_CASE("tile layout: every template with a <visual> has a scene for its defaults", "[tile_layout]") {
    int withView = 0;
    for (const auto& t : lib().templates()) {
        if (!hasTileView(*t)) continue;
        ++withView;
        const std::string arch = t->validate(t->defaultConfig(), *db().findArch("sm_90")).empty() ? "sm_90" : "sm_90a";
        INFO(t->id());
        CHECK_NOTHROW(scene(t->id(), arch, {}, {}, std::nullopt));
    }
    CHECK(withView >= 9);  // gemm, gemm_mma, gemm_wgmma, conv, matmul_ladder, reduce, scan, histogram, map
}

// The conv's tiles as its kernel stores them: k-major A and B in bwd_weight (16-bit types),
// both k-contiguous forward, and k-contiguous again for TF32, which transposes on the way in.
TEST_CASE("tile layout: conv's shared-memory tiles run the way each direction stores them", "[tile_layout][conv]") {
    auto rows = [](const TileScene& s, int operand) {
        REQUIRE(s.kind == TileScene::Kind::Gemm);
        return s.gemm.smem.at(static_cast<std::size_t>(operand)).rowsLabel;
    };
    const TileScene fwd = scene("conv", "sm_90", {}, {}, std::nullopt);
    CHECK(rows(fwd, 0) == "m");
    CHECK(rows(fwd, 1) == "n");
    CHECK(fwd.gemm.m == 32 * 56 * 56);  // the implicit GEMM's M: output pixels
    const TileScene weight = scene("conv", "sm_90", {{"direction", "bwd_weight"}}, {}, std::nullopt);
    CHECK(rows(weight, 0) == "k");
    CHECK(rows(weight, 1) == "k");
    CHECK(weight.gemm.m == 64);  // filters
    const TileScene weightTf32 = scene("conv", "sm_90", {{"direction", "bwd_weight"}, {"dtype", "f32"}}, {}, std::nullopt);
    CHECK(rows(weightTf32, 0) == "m");
    CHECK(rows(weightTf32, 1) == "n");
}

TEST_CASE("tile layout: malformed <visual> elements name file and line", "[tile_layout][manifest]") {
    const fs::path dir = fs::temp_directory_path() / ("kx_visual_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string base = kx::test::sourceDir() / "tests/engine/templates/data/tiny/manifest.xml";
    std::ifstream in(base);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto withVisual = [&](const std::string& visual) {
        std::string t = text;
        t.replace(t.find("  <flops"), 0, "  " + visual + "\n");
        const fs::path file = dir / "manifest.xml";
        std::ofstream(file) << t;
        return file;
    };
    const int line = 29;  // the <visual> goes where <flops> was
    CHECK_THROWS_WITH(parseManifest(withVisual("<visual kind=\"spiral\"/>")),
                      Catch::Contains("manifest.xml:" + std::to_string(line) + ": <visual> kind 'spiral' is unknown"));
    CHECK_THROWS_WITH(parseManifest(withVisual("<visual kind=\"blocks\" elements=\"n\" block=\"BLOCK\"/>")),
                      Catch::Contains("needs attribute 'items'"));
    CHECK_THROWS_WITH(parseManifest(withVisual("<visual kind=\"blocks\" elements=\"n\" block=\"BLOCK\" items=\"UNROLL\" tile=\"4\"/>")),
                      Catch::Contains("takes no attribute 'tile'"));
    CHECK_THROWS_WITH(parseManifest(withVisual("<visual kind=\"gemm\" fragment=\"wmma\" m=\"1\" n=\"1\" k=\"1\" block_m=\"1\" block_n=\"1\" "
                                               "block_k=\"1\" warp_m=\"1\" warp_n=\"1\" stages=\"1\" elem_bytes=\"4\"/>")),
                      Catch::Contains("needs fragment="));
    const TemplateManifest ok = parseManifest(withVisual("<visual kind=\"blocks\" elements=\"n\" block=\"BLOCK\" items=\"UNROLL\"/>"));
    REQUIRE(ok.visual);
    CHECK(ok.visual->kind == "blocks");
    CHECK(ok.visual->exprs.at("items") == "UNROLL");
    CHECK(ok.visual->line == line);
    fs::remove_all(dir);
}
