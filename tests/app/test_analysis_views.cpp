// GUI tests of the Occupancy and Roofline panels: run the real kernel-explorer under Xvfb in
// scripted mode, open both panels, save the window, the roofline chart (PNG read back from the
// frame) and its CSV, and check what they hold.
#include "gui_harness.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {


// The theme's "warn" amber (0xE5B45A): the current-launch and predicted markers are drawn in it.
constexpr unsigned kHighlight = 0xE5B45A;

struct Image {
    int width = 0;
    int height = 0;
    std::vector<unsigned> rgb;  // 0xRRGGBB per pixel, row-major

    // Distinct colours and highlight pixels in [x0,x1) x [y0,y1).
    std::size_t distinctColours(int x0, int y0, int x1, int y1) const {
        std::set<unsigned> colours;
        for (int y = std::max(0, y0); y < std::min(height, y1); ++y)
            for (int x = std::max(0, x0); x < std::min(width, x1); ++x) colours.insert(rgb[std::size_t(y) * width + x]);
        return colours.size();
    }
    std::size_t count(unsigned colour, int x0, int y0, int x1, int y1) const {
        std::size_t n = 0;
        for (int y = std::max(0, y0); y < std::min(height, y1); ++y)
            for (int x = std::max(0, x0); x < std::min(width, x1); ++x) n += rgb[std::size_t(y) * width + x] == colour;
        return n;
    }
};

Image loadImage(const fs::path& p) {
    Image img;
    int channels = 0;
    unsigned char* data = stbi_load(p.c_str(), &img.width, &img.height, &channels, 3);
    REQUIRE(data != nullptr);
    const std::size_t n = static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height);
    img.rgb.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        img.rgb[i] = unsigned(data[i * 3]) << 16 | unsigned(data[i * 3 + 1]) << 8 | data[i * 3 + 2];
    stbi_image_free(data);
    return img;
}

void requirePrerequisites() {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0)
        FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

}  // namespace

TEST_CASE("gui: occupancy and roofline panels render, export PNG and CSV", "[app][gui][analysis]") {
    requirePrerequisites();
    TempDir dir("panels");
    const fs::path shot = dir.path / "panels.png";
    const fs::path png = dir.path / "roofline.png";
    const fs::path csv = dir.path / "roofline.csv";
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nwait-compile\ntab occupancy\ntab roofline\n"
                                             "screenshot " + shot.string() + "\nexport-roofline " + png.string() +
                                                 "\nexport-roofline " + csv.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" +
                                        (dir.path / "final.png").string() + "' --frames 5");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    REQUIRE(fs::exists(shot));

    // The window: full size, busy, and the analysis row (below the code tabs, between the left
    // and right columns) holds the amber current-launch / predicted markers.
    const Image window = loadImage(shot);
    CHECK(window.width == 1600);
    CHECK(window.height == 1000);
    CHECK(window.distinctColours(0, 0, window.width, window.height) > 200);
    const int bottom = window.height / 2 + 50;
    CHECK(window.distinctColours(380, bottom, 1270, window.height - 40) > 100);
    CHECK(window.count(kHighlight, 380, bottom, 825, window.height - 40) > 20);   // occupancy markers
    CHECK(window.count(kHighlight, 825, bottom, 1270, window.height - 40) > 20);  // predicted point

    // The chart alone, read back from the frame: a few hundred pixels each way, not blank, with
    // the predicted point in it.
    REQUIRE(fs::exists(png));
    const Image chart = loadImage(png);
    CHECK(chart.width > 200);
    CHECK(chart.height > 200);
    CHECK(chart.width < 1600);
    CHECK(chart.distinctColours(0, 0, chart.width, chart.height) > 50);
    CHECK(chart.count(kHighlight, 0, 0, chart.width, chart.height) > 20);

    // The CSV: engine::rooflineCsv for the H100 SXM (the default for sm_90) and the variant.
    REQUIRE(fs::exists(csv));
    const std::string text = readFile(csv);
    CHECK(text.rfind("type,id,label,source,bandwidth_gbs,peak_tflops,ai_flop_per_byte,tflops\n", 0) == 0);
    CHECK(text.find("memory,dram,DRAM,datasheet,3350,,,") != std::string::npos);
    CHECK(text.find("compute,fp32,FP32,datasheet,,67,,") != std::string::npos);
    CHECK(text.find("ridge,fp32,FP32 ridge,datasheet,,,20,67") != std::string::npos);
    // The default gemm at M=N=K=4096 is far past the FP32 ridge: placed on the 67 TFLOP/s roof.
    CHECK(text.find("point,,gemm_") != std::string::npos);
    CHECK(text.find(",predicted,,,") != std::string::npos);
    CHECK(text.find(",67\n", text.find("point,,gemm_")) != std::string::npos);
}

TEST_CASE("gui: an AMD arch shows the occupancy placeholder and still draws a roofline", "[app][gui][analysis]") {
    requirePrerequisites();
    TempDir dir("amd");
    const fs::path csv = dir.path / "roofline.csv";
    const fs::path script =
        writeScript(dir, "template gemm\narch gfx942\nview occupancy\nview roofline\nexport-roofline " + csv.string() + "\n");
    const fs::path shot = dir.path / "shot.png";
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + shot.string() + "' --frames 5");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const Image img = loadImage(shot);
    CHECK(img.distinctColours(0, 0, img.width, img.height) > 200);
    // MI300X is the gfx942 device.
    CHECK(readFile(csv).find("memory,dram,DRAM,datasheet,5300,,,") != std::string::npos);
}

// The footnote's higher roofs: the SIMT GEMM offers the tensor-core GEMMs of its dtype and
// layout, and opening one puts it in the editor with them, on the arch it builds for.
TEST_CASE("gui: the roofline offers the templates of the same problem with a higher roof, and opens one", "[app][gui][analysis]") {
    requirePrerequisites();
    TempDir dir("higher_roofs");
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nset dtype=bf16 layout=rrr\nwait-compile\nframes 3\nhigher-roof 2\n"
                                             "wait-compile\nframes 3\nexpect dtype=bf16 layout=rrr BN=256 CONSUMERS=2\nhigher-roof 0\n"
                                             "higher-roof 1\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    CHECK(r.stderrText.find("kernel-explorer: higher roofs: gemm_mma (BF16 tensor, sm_90), gemm_wgmma (BF16 tensor, sm_90a)") !=
          std::string::npos);
    // Now on gemm_wgmma (its BN and CONSUMERS), which has no higher roof: the last command fails.
    CHECK(r.stderrText.find("kernel-explorer: higher roofs: none") != std::string::npos);
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(script.string() + ":11: there is no higher roof 1 (the Roofline panel offers 0)") != std::string::npos);
}

// The roofline follows the arch: this machine's GPU where it has the arch's compute capability
// (an H200 draws the H200's datasheet for sm_90), else the arch's usual device (the H100 SXM).
TEST_CASE("gui: the roofline is drawn for this machine's GPU when it has the arch's compute capability", "[app][gui][analysis]") {
    requirePrerequisites();
    for (const auto& [gpu, dram] : {std::pair{"NVIDIA H200", "4800"}, std::pair{"NVIDIA A100-SXM4-80GB", "3350"}}) {
        DYNAMIC_SECTION(gpu) {
            TempDir dir("roofline_gpu");
            const fs::path csv = dir.path / "roofline.csv";
            const fs::path script = writeScript(dir, "template gemm\narch sm_90\nwait-compile\nview roofline\nframes 3\nexport-roofline " +
                                                         csv.string() + "\n");
            const std::string env = std::string("KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='") + gpu + "'";
            const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'", env);
            INFO(r.stderrText);
            REQUIRE(r.exitCode == 0);
            const std::string text = readFile(csv);
            INFO(text);
            CHECK(text.find(std::string("memory,dram,DRAM,datasheet,") + dram + ",,,") != std::string::npos);
        }
    }
}

// The launch geometry (the Launch panel, occupancy's shared memory, the roofline's predicted
// point) is for the Run panel's problem: conv_wgmma's halo gather keeps a problem-sized input box
// and filter in shared memory, so UNet's first layer needs twice the default problem's 96 KiB.
// Sizes that do not parse leave the template's defaults in place.
TEST_CASE("gui: the launch geometry follows the Run panel's problem size", "[app][gui][analysis]") {
    requirePrerequisites();
    TempDir dir("launch_sizes");
    const fs::path script = writeScript(dir,
                                        "template conv_wgmma\narch sm_90a\nset GATHER=halo SLICE=32 BN=32 MT=2 STAGES=2\nframes 2\nprint-launch\n"
                                        "size N=8,C=32,K=32 Di=64 Hi=64,Wi=64,Z=3 pad_d=1\nframes 2\nprint-launch\n"
                                        "size N=x\nframes 2\nprint-launch\n"
                                        "size N=32,C=64,K=64 Di=1 Hi=56,Wi=56,Z=1 pad_d=0\npreset channels_32\nframes 2\nprint-launch\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    std::vector<std::string> lines;
    std::istringstream in(r.stderrText);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("kernel-explorer: launch: ", 0) == 0) lines.push_back(line);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0].find("dynamic smem 98304 bytes, for C=64 Di=1") != std::string::npos);
    CHECK(lines[1].find("dynamic smem 203776 bytes, for C=32 Di=64") != std::string::npos);
    CHECK(lines[1].find("grid 8192 x 1 x 1") != std::string::npos);  // 8 x 64 planes of 8 x 2 tiles of 8 x 32 pixels
    CHECK(lines[2] == lines[0]);
    // The preset for UNet's first layer brings that layer's sizes with it (its size="..." in preselected.xml),
    // and the Run panel says whose they are until one is edited.
    CHECK(lines[3] == lines[1]);
    const std::string presetLine = "kernel-explorer: sizes: the problem preset channels_32 was tuned for\n";
    CHECK(r.stderrText.find(presetLine) != std::string::npos);
    CHECK(r.stderrText.find(presetLine) > r.stderrText.rfind("kernel-explorer: launch: "));  // only after the preset

    // A problem the template refuses has no launch; the Resources view still opens on the kernel
    // that does the work (named after the variant), not on a helper ptxas lists first.
    const RunResult refused = runApp(dir, "--script '" +
                                              writeScript(dir, "template conv_wgmma\narch sm_90a\nset direction=bwd_weight SPLITK=2\n"
                                                               "size C=3\nwait-compile\nprint-launch\n")
                                                  .string() +
                                              "' --screenshot '" + (dir.path / "z.png").string() + "'");
    INFO(refused.stderrText);
    REQUIRE(refused.exitCode == 0);
    CHECK(refused.stderrText.find("kernel-explorer: launch: none (this problem does not suit conv_wgmma") != std::string::npos);
    CHECK(refused.stderrText.find("kernel-explorer: primary kernel: conv_wgmma_bwd_weight_f16_m1x128_c2_s4_p1_k2\n") != std::string::npos);

    const RunResult bad = runApp(dir, "--script '" + writeScript(dir, "template gemm\nsize Q=1\n").string() + "' --screenshot '" +
                                          (dir.path / "y.png").string() + "'");
    CHECK(bad.exitCode == 2);
    CHECK(bad.stderrText.find(":2: 'Q' is not a problem size of the template") != std::string::npos);
}

// The Occupancy panel's waves line follows the config and the Run panel's problem: conv's backward
// weight on ResNet-50's stage-3 3x3 layer with 128 x 128 tiles and Split-K 32 is 288 blocks of
// two per SM, a second wave 9% full; the preset with 128 x 64 tiles (three per SM) and Split-K 22
// fills one wave exactly.
TEST_CASE("gui: the Occupancy panel counts the launch's waves", "[app][gui][analysis]") {
    requirePrerequisites();
    TempDir dir("waves");
    const fs::path script = writeScript(dir,
                                        "template conv\narch sm_90\nset direction=bwd_weight BN=128 WN=64 SPLITK=32\n"
                                        "size N=32 C=128 K=128 Hi=28 Wi=28\nwait-compile\ntab occupancy\nframes 3\nprint-waves\n"
                                        "preset bwd_weight_3x3\nwait-compile\nframes 3\nprint-waves\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "w.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    // On the arch's usual device, an H100 SXM, or this machine's GPU of the arch (an H200): 132 SMs either way.
    CHECK(r.stderrText.find(": 288 blocks, 264 at once (132 SMs x 2): 2 waves, the last with 24 blocks (9% of a wave); 55% of the "
                            "block slots busy\n") != std::string::npos);
    CHECK(r.stderrText.find(": 396 blocks, 396 at once (132 SMs x 3): 1 wave; 100% of the block slots busy\n") != std::string::npos);
    // Under the first launch the panel offers the Split-K count that fills one wave; the preset
    // fills it already, so nothing is offered for it.
    CHECK(r.stderrText.find("kernel-explorer: split-K: SPLITK=29: 261 blocks in 1 wave, 99% of the block slots busy (this config: "
                            "55%)\n") != std::string::npos);
    CHECK(r.stderrText.find("split-K:") == r.stderrText.rfind("split-K:"));

    // Before the panel has drawn a launch there is nothing to print: the script stops there.
    const RunResult early =
        runApp(dir, "--script '" + writeScript(dir, "template conv\narch sm_90\nprint-waves\n").string() + "' --screenshot '" +
                        (dir.path / "e.png").string() + "'");
    CHECK(early.exitCode == 2);
    CHECK(early.stderrText.find(":3: the Occupancy panel shows no waves") != std::string::npos);
}

TEST_CASE("gui: bad analysis script commands exit 2 naming file and line", "[app][gui][analysis]") {
    requirePrerequisites();
    TempDir dir("bad");
    SECTION("export-roofline needs .png or .csv") {
        const fs::path script = writeScript(dir, "template gemm\nexport-roofline out.jpg\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" +
                                            (dir.path / "shot.png").string() + "'");
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find(script.string() + ":2:") != std::string::npos);
    }
    SECTION("view names an existing view") {
        const fs::path script = writeScript(dir, "template gemm\nview flamegraph\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" +
                                            (dir.path / "shot.png").string() + "'");
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find(script.string() + ":2:") != std::string::npos);
    }
}
