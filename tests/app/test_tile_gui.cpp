// GUI tests of the Tiles view: the real kernel-explorer under Xvfb opens it on a GEMM, follows an
// edit of the live config, saves the window and the view's own PNG export, and refuses a template
// without a tile view with the reason.
#include "gui_harness.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <filesystem>
#include <set>
#include <string>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {

// The theme's "warn" amber (0xE5B45A): the tail wave's block tiles are filled with it.
constexpr unsigned kTail = 0xE5B45A;

struct Pixels {
    int width = 0, height = 0;
    std::size_t distinct = 0, tail = 0;
};

Pixels readPng(const fs::path& p) {
    Pixels px;
    int channels = 0;
    unsigned char* data = stbi_load(p.c_str(), &px.width, &px.height, &channels, 3);
    REQUIRE(data != nullptr);
    std::set<unsigned> colours;
    for (std::size_t i = 0; i < static_cast<std::size_t>(px.width) * static_cast<std::size_t>(px.height); ++i) {
        const unsigned rgb = unsigned(data[i * 3]) << 16 | unsigned(data[i * 3 + 1]) << 8 | data[i * 3 + 2];
        colours.insert(rgb);
        px.tail += rgb == kTail;
    }
    stbi_image_free(data);
    px.distinct = colours.size();
    return px;
}

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

}  // namespace

TEST_CASE("gui: the Tiles view follows the live config and exports its drawing", "[app][gui][tiles]") {
    requirePrerequisites();
    TempDir dir("tiles");
    const fs::path shot = dir.path / "window.png";
    const fs::path png = dir.path / "tiles.png";
    // gemm_mma defaults: 128 x 256 tiles of C 4096 x 4096 = 32 x 16 = 512; Tile M 64 doubles them.
    const fs::path script = writeScript(dir, "template gemm_mma\narch sm_90\nwait-compile\ntiles open\ntiles step 3\ntiles select 9 2\n"
                                             "tiles warp 1\ntiles print\nscreenshot " + shot.string() + "\ntiles export " + png.string() +
                                             "\nset BM=64\nwait-compile\ntiles print\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "' --frames 5");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.stderrText, Catch::Contains("tiles: gemm_mma_f16_rcr_128x256x32_w64x64_s3_g8_xor: 512 tiles, 4 waves of 132"));
    CHECK_THAT(r.stderrText, Catch::Contains("tiles: gemm_mma_f16_rcr_64x256x32_w64x64_s3_g8_xor: 1024 tiles"));
    CHECK_THAT(r.stderrText, Catch::Contains("(ptxas registers)"));

    // The window with the view open: busy, and the tail wave's amber tiles are on screen.
    const Pixels window = readPng(shot);
    CHECK(window.width == 1600);
    CHECK(window.distinct > 200);
    CHECK(window.tail > 1000);
    // The export: the drawing only (smaller than the window), with the tail in it.
    REQUIRE(fs::exists(png));
    const Pixels drawing = readPng(png);
    CHECK(drawing.width > 600);
    CHECK(drawing.width < window.width);
    CHECK(drawing.height < window.height);
    CHECK(drawing.distinct > 100);
    CHECK(drawing.tail > 1000);
}

// The matmul ladder's rungs: the naive one reads A and B from global memory (no shared-memory
// panel to draw), the warp-tiled one stages 16 KiB; the view follows the rung.
TEST_CASE("gui: the Tiles view follows the matmul ladder from global memory to warp tiles", "[app][gui][tiles]") {
    requirePrerequisites();
    TempDir dir("tiles_ladder");
    const fs::path naive = dir.path / "naive.png";
    const fs::path warp = dir.path / "warptile.png";
    const fs::path script = writeScript(dir, "template matmul_ladder\narch sm_90\nset STAGE=naive\nwait-compile\ntiles open\ntiles print\n"
                                             "tiles export " + naive.string() + "\nset STAGE=warptile\nwait-compile\ntiles print\n"
                                             "tiles export " + warp.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "' --frames 5");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.stderrText, Catch::Contains("tiles: matmul_ladder_naive: 12544 tiles") && Catch::Contains("; shared memory: none"));
    CHECK_THAT(r.stderrText, Catch::Contains("tiles: matmul_ladder_warptile: 784 tiles") &&
                                 Catch::Contains("; computes C 3584 x 3584; shared memory 16384 B per stage"));
    // The warp-tiled drawing has the shared-memory grid's many chunk colours; the naive one has
    // no grid to draw.
    const Pixels n = readPng(naive), w = readPng(warp);
    CHECK(n.distinct > 50);
    CHECK(w.distinct > n.distinct);
}

// On a machine whose GPU the runner names, the view models that GPU (here an H200, from the
// stand-in runner) rather than the arch's usual H100.
TEST_CASE("gui: the Tiles view models this machine's GPU", "[app][gui][tiles]") {
    requirePrerequisites();
    TempDir dir("tiles_gpu");
    // The run makes the script wait until the runner has answered with its device.
    const fs::path script = writeScript(dir, "template gemm_mma\narch sm_90\nwait-compile\nrun\nwait-run\ntiles open\nframes 3\ntiles print\n");
    const std::string runner = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'";
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "' --frames 5", runner);
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.stderrText, Catch::Contains("; on NVIDIA H200 SXM 141GB"));
    const fs::path noGpu = writeScript(dir, "template gemm_mma\narch sm_90\nwait-compile\ntiles open\nframes 3\ntiles print\n");
    const RunResult plain = runApp(dir, "--script '" + noGpu.string() + "' --screenshot '" + (dir.path / "plain.png").string() + "' --frames 5");
    CHECK_THAT(plain.stderrText, Catch::Contains("; on NVIDIA H100 SXM5 80GB"));
}

// gemm_wgmma with its operands swapped computes C^T = B A^T: the view says C^T, and its rows are
// C's columns.
TEST_CASE("gui: the Tiles view draws C^T for swapped operands", "[app][gui][tiles]") {
    requirePrerequisites();
    TempDir dir("tiles_swap");
    const fs::path shot = dir.path / "swapped.png";
    const fs::path script = writeScript(dir, "template gemm_wgmma\narch sm_90a\nwait-compile\ntiles open\ntiles print\n"
                                             "set SWAP_AB=1 STORE=direct BN=64\nwait-compile\ntiles print\nscreenshot " + shot.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "' --frames 5");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.stderrText, Catch::Contains("; computes C 4096 x 4096"));
    CHECK_THAT(r.stderrText, Catch::Contains("_direct_swap1: 2048 tiles") && Catch::Contains("; computes C^T 4096 x 4096"));
    CHECK(readPng(shot).distinct > 200);
}

// A GEMM too thin to see at scale (conv_wgmma's backward data into 3 channels: 1.6 M rows by 3
// columns) is drawn with its thin side widened and says so; a square one stays to scale. A
// warp-specialised kernel opens on its first consumer warpgroup, not on the producer, which holds
// no accumulators.
TEST_CASE("gui: the Tiles view widens a side too thin to see and opens on a consumer", "[app][gui][tiles]") {
    requirePrerequisites();
    TempDir dir("tiles_thin");
    const fs::path shot = dir.path / "thin.png";
    const fs::path script =
        writeScript(dir, "template conv_wgmma\narch sm_90a\npreset few_channels_data\n"
                         "size N=32,C=3,K=64,Hi=224,Wi=224,Y=7,X=7,stride_h=2,stride_w=2,pad_h=3,pad_w=3\nwait-compile\ntiles open\nframes 3\n"
                         "tiles print\nscreenshot " + shot.string() + "\ntemplate gemm_mma\narch sm_90\nwait-compile\nframes 3\ntiles print\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "' --frames 5");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.stderrText, Catch::Contains("computes C 1605632 x 3;") && Catch::Contains("; C drawn 48 x ") &&
                                 Catch::Contains(" px, not to scale; warpgroup 1 shown"));
    CHECK_THAT(r.stderrText, Catch::Contains("tiles: gemm_mma_f16_rcr_128x256x32_w64x64_s3_g8_xor: 512 tiles"));
    const auto square = r.stderrText.find("tiles: gemm_mma_f16_rcr_128x256x32_w64x64_s3_g8_xor");
    REQUIRE(square != std::string::npos);
    const std::string line = r.stderrText.substr(square, r.stderrText.find('\n', square) - square);
    CHECK_THAT(line, Catch::Contains("; C drawn ") && Catch::Contains(" px; warp ") && !Catch::Contains("not to scale"));
    // The strip of tiles is on screen: the wave colours fill many pixels of the window.
    CHECK(readPng(shot).distinct > 200);
}

TEST_CASE("gui: a template without a tile view says so, and bad tiles commands name the line", "[app][gui][tiles]") {
    requirePrerequisites();
    TempDir dir("tiles_none");
    const fs::path script = writeScript(dir, "template transpose\narch sm_90\ntiles open\ntiles print\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "shot.png").string() + "' --frames 5");
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.stderrText, Catch::Contains("scenario.script:4: no tile view: No tile view for this template"));

    const fs::path bad = writeScript(dir, "template gemm\ntiles select 1\n");
    const RunResult b = runApp(dir, "--script '" + bad.string() + "' --screenshot '" + (dir.path / "shot.png").string() + "' --frames 5");
    CHECK(b.exitCode == 2);
    CHECK_THAT(b.stderrText, Catch::Contains("scenario.script:2: 'tiles' takes open, step N, select I J"));
}
