// End-to-end GUI tests: run the real kernel-explorer under Xvfb (Mesa llvmpipe) in scripted mode
// and check the screenshots it writes. Each run takes a few seconds on a 2-core machine.
#include "gui_harness.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {



struct Image {
    int width = 0;
    int height = 0;
    std::size_t distinctColours = 0;
};

Image loadImage(const fs::path& p) {
    Image img;
    int channels = 0;
    unsigned char* data = stbi_load(p.c_str(), &img.width, &img.height, &channels, 3);
    REQUIRE(data != nullptr);
    std::set<unsigned> colours;
    const std::size_t n = static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height);
    for (std::size_t i = 0; i < n; ++i) {
        colours.insert(unsigned(data[i * 3]) << 16 | unsigned(data[i * 3 + 1]) << 8 | data[i * 3 + 2]);
    }
    stbi_image_free(data);
    img.distinctColours = colours.size();
    return img;
}

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

}  // namespace

TEST_CASE("gui: scripted gemm scenario renders a full, non-blank screenshot", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("valid");
    const fs::path script = writeScript(dir, R"(# gemm with a 64x128x32 block tile on Hopper
template gemm
arch sm_90
set BM=64 BN=128 BK=32
tab ptx
wait-compile
screenshot )" + (dir.path / "ptx.png").string() + R"(
tab source
)");
    const fs::path shot = dir.path / "shot.png";
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + shot.string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    REQUIRE(fs::exists(shot));
    REQUIRE(fs::exists(dir.path / "ptx.png"));

    const Image img = loadImage(shot);
    CHECK(img.width == 1600);
    CHECK(img.height == 1000);
    // Text, syntax colours and anti-aliasing give thousands of colours; a blank or one-colour
    // frame (no GL context, nothing drawn) gives a handful.
    CHECK(img.distinctColours > 200);

    const Image ptx = loadImage(dir.path / "ptx.png");
    CHECK(ptx.width == 1600);
    CHECK(ptx.distinctColours > 200);
}

// A GPU reset of the window's context (a kernel faulting on the GPU that draws the window) makes
// the frame loop replace the window: gl-reset takes the same path without a GPU. What is drawn
// after it must be whole: fonts, panels, and the tutorial's image loaded into the new context.
TEST_CASE("gui: a lost OpenGL context is replaced by a new window that draws everything again", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("context_reset");
    const fs::path after = dir.path / "after.png";
    const fs::path script = writeScript(dir, R"(template gemm
arch sm_90
wait-compile
tutorial open roofline
frames 5
tutorial images
gl-reset
frames 10
tutorial images
screenshot )" + after.string() + R"(
)");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK(r.stderrText.find("the window's OpenGL context was lost (a script's gl-reset); the window was made anew") != std::string::npos);
    // The image is shown before and after: the new context has its own texture of it.
    std::size_t shown = 0;
    for (std::size_t at = 0; (at = r.stderrText.find("tutorial: images: 1 shown, 0 not shown", at)) != std::string::npos; ++at) ++shown;
    CHECK(shown == 2);
    const Image img = loadImage(after);
    CHECK(img.width == 1600);
    CHECK(img.distinctColours > 200);
}

// A window drawn by the GPU that runs the kernels may not survive the driver's recovery from a
// fault (README, "Reliability"): after a failed run the Run panel says so, and scripted runs
// print the same note. Under Xvfb the window is drawn by Mesa's llvmpipe: a fake GPU of that name
// is "the same GPU", any other name is not.
TEST_CASE("gui: a failed run says when the window is drawn by the GPU that ran it", "[app][gui]") {
    requirePrerequisites();
    for (const std::string gpu : {"llvmpipe", "NVIDIA H200"}) {
        DYNAMIC_SECTION(gpu) {
            TempDir dir("shared_gpu");
            const fs::path script = writeScript(dir, "template gemm\narch sm_90\nfault out_of_bounds\nwait-run\n");
            const std::string env = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='" + gpu + "'";
            const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'", env);
            INFO(r.stderrText);
            REQUIRE(r.exitCode == 0);
            CHECK(r.stderrText.find("kernel-explorer: run: planted fault: out_of_bounds: failed:") != std::string::npos);
            const bool noted = r.stderrText.find("kernel-explorer: run: note: the window is drawn by the GPU that ran it (llvmpipe") != std::string::npos;
            CHECK(noted == (gpu == "llvmpipe"));
        }
    }
}

// The first row, from the top of a rectangle, with the dark theme's error red (#FF6B78, a FAIL
// verdict; antialiased text rarely hits it exactly, so any strong red); -1 when none.
int firstErrorRow(const fs::path& p, int x0, int y0, int w, int h) {
    int width = 0, height = 0, channels = 0;
    unsigned char* data = stbi_load(p.c_str(), &width, &height, &channels, 3);
    REQUIRE(data != nullptr);
    int found = -1;
    for (int y = std::max(0, y0); y < std::min(height, y0 + h) && found < 0; ++y)
        for (int x = std::max(0, x0); x < std::min(width, x0 + w); ++x) {
            const unsigned char* px = data + 3 * (static_cast<std::size_t>(y) * width + x);
            if (px[0] > 180 && px[0] - px[1] > 80 && px[0] - px[2] > 60) found = y - y0;
        }
    stbi_image_free(data);
    return found;
}

TEST_CASE("gui: a run that lands scrolls its result into the Run panel's view", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("run_reveal");
    // attention_wgmma has five problem sizes: at 1600x1000 the result starts at the panel's
    // fold, its rows below it. The stand-in runner writes nothing, so the verdict is a red FAIL:
    // scrolled into view, it is near the top of the panel.
    const fs::path before = dir.path / "before.png", after = dir.path / "after.png";
    const fs::path script = writeScript(dir, "template attention_wgmma\narch sm_90a\nwait-compile\nframes 3\nprint-layout\nscreenshot " +
                                                 before.string() + "\nrun\nwait-run\nframes 3\nscreenshot " + after.string() + "\n");
    const std::string env = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'";
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'", env);
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    REQUIRE(r.stderrText.find(": FAIL ") != std::string::npos);
    std::smatch m;
    static const std::regex runRect(R"(kernel-explorer: layout: Run (-?\d+) (-?\d+) (\d+) (\d+))");
    REQUIRE(std::regex_search(r.stderrText, m, runRect));
    const int x = std::stoi(m[1]), y = std::stoi(m[2]), w = std::stoi(m[3]), h = std::stoi(m[4]);
    CHECK(firstErrorRow(before, x, y, w, h) == -1);
    const int verdictRow = firstErrorRow(after, x, y, w, h);
    CHECK(verdictRow >= 0);
    CHECK(verdictRow < h / 4);
}

TEST_CASE("gui: while a run times kernels the window draws a few frames a second", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("run_paced");
    // The stand-in runner answers each request after 2 s: the run is in flight for 2 s or more.
    // Drawn freely (at the display's 60 Hz, or unbounded without vsync) that is over 120 frames;
    // paced at ten a second, about twenty, plus those around the run.
    const fs::path script = writeScript(dir, "template map\narch sm_90\nwait-compile\nframe-stats reset\nrun\nwait-run\nframe-stats\n");
    const std::string env = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_RUNNER_DELAY_MS=2000";
    const auto started = std::chrono::steady_clock::now();
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'", env);
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    REQUIRE(r.stderrText.find("kernel-explorer: run: map_") != std::string::npos);
    std::smatch m;
    REQUIRE(std::regex_search(r.stderrText, m, std::regex(R"(frame-stats: (\d+) frames)")));
    CHECK(std::stoi(m[1]) >= 10);  // still drawing: the progress moves
    CHECK(std::stoi(m[1]) <= 80);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(60));
}

TEST_CASE("gui: the Run panel's settings from a script, and a bad one exits 2 naming file and line", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("run_options");
    const fs::path script = writeScript(dir, "template gemm\nrun-options counters=off reps=5 timeout=30\nrun-options reps=0\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(script.string() + ":3: unknown run option 'reps=0' (counters=on|off, reps=N, timeout=SECONDS)") != std::string::npos);
    CHECK(r.stderrText.find(":2:") == std::string::npos);
}

TEST_CASE("gui: an invalid tile still renders and exits 0", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("invalid");
    // BM=16 is below warp tile M (64): the config violates "BM % WM == 0".
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nset BM=16\nwait-compile\n");
    const fs::path shot = dir.path / "shot.png";
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + shot.string() + "' --frames 10");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    REQUIRE(fs::exists(shot));
    const Image img = loadImage(shot);
    CHECK(img.width == 1600);
    CHECK(img.height == 1000);
    CHECK(img.distinctColours > 200);
}

TEST_CASE("gui: a malformed script exits 2 naming file and line", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("malformed");
    const fs::path script = writeScript(dir, "template gemm\n# fine so far\nfly-to-the-moon now\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" +
                                        (dir.path / "shot.png").string() + "'");
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(script.string() + ":3:") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.path / "shot.png"));
}

TEST_CASE("gui: an unknown name in a script exits 2 naming file and line", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("unknown");
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nset NOPE=1\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" +
                                        (dir.path / "shot.png").string() + "'");
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(script.string() + ":3:") != std::string::npos);
}

TEST_CASE("gui: a preset lays its config over the editor's, and an unknown one exits 2 naming the presets", "[app][gui]") {
    requirePrerequisites();
    TempDir dir("preset");
    // tuned_d64 sets the head dimension, the consumers, the overlap and the stages; the dtype set
    // before it stays.
    const fs::path script = writeScript(dir, "template attention_wgmma\narch sm_90a\nset dtype=bf16 STAGES=2\npreset tuned_d64\n"
                                             "expect HEAD_DIM=64 CONSUMERS=3 OVERLAP=false STAGES=3 dtype=bf16\nwait-compile\n");
    const std::string shot = " --screenshot '" + (dir.path / "shot.png").string() + "' --frames 5";
    const RunResult r = runApp(dir, "--script '" + script.string() + "'" + shot);
    INFO(r.stderrText);
    CHECK(r.exitCode == 0);

    const fs::path bad = writeScript(dir, "template attention_wgmma\narch sm_90a\npreset tuned_d65\n");
    const RunResult b = runApp(dir, "--script '" + bad.string() + "'" + shot);
    CHECK(b.exitCode == 2);
    CHECK(b.stderrText.find(bad.string() + ":3:") != std::string::npos);
    CHECK(b.stderrText.find("tuned_d64") != std::string::npos);
    // transpose's tuned preset is pairs on NVIDIA and the padded tile on AMD.
    const fs::path amd = writeScript(dir, "template transpose\narch gfx942\npreset tuned\nexpect smem=padded TILE=64 BLOCK_ROWS=8\n"
                                          "arch sm_90\npreset tuned\nexpect smem=pairs\n");
    const RunResult a = runApp(dir, "--script '" + amd.string() + "'" + shot);
    INFO(a.stderrText);
    CHECK(a.exitCode == 0);
}
