// The Sweep view in the real app under Xvfb: a compile-only sweep (no GPU needed) fills the
// heatmap and table while the UI keeps drawing, the best config loads into the editor, the CSV
// holds every config; Stop keeps what finished; bad sweep commands name file and line.
#include "gui_harness.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

std::size_t distinctColours(const fs::path& p) {
    int width = 0, height = 0, channels = 0;
    unsigned char* data = stbi_load(p.c_str(), &width, &height, &channels, 3);
    REQUIRE(data != nullptr);
    std::set<unsigned> colours;
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    for (std::size_t i = 0; i < n; ++i) colours.insert(unsigned(data[i * 3]) << 16 | unsigned(data[i * 3 + 1]) << 8 | data[i * 3 + 2]);
    stbi_image_free(data);
    return colours.size();
}

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("gui: a compile-only sweep fills the heatmap while the UI keeps drawing", "[app][gui][sweep]") {
    requirePrerequisites();
    TempDir dir("sweep");
    const fs::path shot = dir.path / "sweep.png", csv = dir.path / "sweep.csv";
    const fs::path script = writeScript(dir, R"(# every block size x items per thread x load width of the element-wise map
template map
arch sm_90
sweep vary BLOCK=64,256,1024
sweep vary ITEMS=1,8
sweep vary VEC=1,4,8
sweep start compile-only
frames 2
screenshot )" + (dir.path / "during.png").string() + R"(
sweep wait
sweep axes BLOCK ITEMS
sweep metric registers
sweep export )" + csv.string() + R"(
frames 5
screenshot )" + shot.string() + R"(
sweep load best
wait-compile
expect ITEMS=1 VEC=1
)");
    // A cold compile cache: the sweep really compiles, long enough to watch the frames go by.
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'",
                               "KX_CACHE_DIR='" + (dir.path / "cache").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    REQUIRE(fs::exists(shot));
    CHECK(distinctColours(shot) > 200);
    CHECK(fs::exists(dir.path / "during.png"));

    // 3 x 2 x 3 configs: VEC=8 of f32 breaks the 16-byte load rule at every block size and item
    // count, and 1024 threads with 8 items of 4 elements need too many registers.
    const std::string table = readFile(csv);
    CHECK(table.rfind("op,dtype,BLOCK,ITEMS,VEC,loop,name,status,reason,registers,", 0) == 0);
    CHECK(count(table, "\n") == 19);
    CHECK(count(table, ",pruned,violates ") == 7);
    CHECK(count(table, ",compiled,") == 11);

    // The UI drew frames the whole time the sweep ran.
    std::smatch m;
    const std::regex line(R"(kernel-explorer: sweep: 18 configs: 0 measured, 11 compiled, 7 pruned, 0 failed, 0 not reached; (\d+) frames, frame time p50 ([0-9.]+) ms, p99 ([0-9.]+) ms)");
    REQUIRE(std::regex_search(r.stderrText, m, line));
    const int frames = std::stoi(m[1]);
    const double p99 = std::stod(m[3]);
    CHECK(frames >= 10);
    // Xvfb draws with Mesa's software renderer on the test machine's cores, shared with the
    // compiles: the bound here says the UI never stalled on the sweep, not the desktop target.
    CHECK(p99 < 1000);
}

// Colour by the waves' busy block slots, and "load best" picks the Split-K whose grid fills its
// waves: conv's backward weight on ResNet-50's stage-3 3x3 layer at two blocks per SM is 9 x 16 =
// 144 blocks (one wave, 55% busy), 261 (99%) or 288 (two waves, 55%).
TEST_CASE("gui: a sweep colours by the waves' busy slots and loads the config that fills them", "[app][gui][sweep]") {
    requirePrerequisites();
    TempDir dir("sweep_waves");
    const fs::path csv = dir.path / "waves.csv";
    const fs::path script = writeScript(dir, "template conv\narch sm_90\nset direction=bwd_weight BN=128 WN=64\n"
                                             "size N=32 C=128 K=128 Hi=28 Wi=28\nsweep vary SPLITK=16,29,32\nsweep start compile-only\n"
                                             "sweep wait\nsweep metric busy\nsweep export " + csv.string() +
                                             "\nsweep load best\nwait-compile\nexpect SPLITK=29\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "w.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const std::string table = readFile(csv);
    CHECK(table.find(",limiter,waves,busy_share,") != std::string::npos);
    CHECK(count(table, ",registers,1,0.545,") == 1);
    CHECK(count(table, ",registers,1,0.989,") == 1);
    CHECK(count(table, ",registers,2,0.545,") == 1);
}

TEST_CASE("gui: stopping a sweep keeps what finished and marks the rest", "[app][gui][sweep]") {
    requirePrerequisites();
    TempDir dir("sweep_stop");
    const fs::path csv = dir.path / "stopped.csv";
    const fs::path script = writeScript(dir, R"(template gemm_mma
arch sm_90
sweep vary BM
sweep vary BN
sweep vary STAGES
sweep start compile-only
frames 3
sweep stop
sweep wait
sweep export )" + csv.string() + R"(
)");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'",
                               "KX_CACHE_DIR='" + (dir.path / "cache").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const std::string table = readFile(csv);
    CHECK(count(table, "\n") == 81);  // 4 x 4 x 5: every config, none dropped
    CHECK(count(table, ",not_reached,not compiled: the sweep was stopped") > 0);
}

TEST_CASE("gui: bad sweep commands exit 2 naming file and line", "[app][gui][sweep]") {
    requirePrerequisites();
    TempDir dir("sweep_bad");
    const fs::path script = writeScript(dir, "template map\narch sm_90\nsweep vary BLOCK\nsweep metric speed\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.stderrText, Catch::Contains(script.string() + ":4: unknown sweep metric 'speed'"));

    const fs::path syntax = writeScript(dir, "template map\nsweep start now\n");
    const RunResult s = runApp(dir, "--script '" + syntax.string() + "' --screenshot '" + (dir.path / "y.png").string() + "'");
    CHECK(s.exitCode == 2);
    CHECK_THAT(s.stderrText, Catch::Contains(syntax.string() + ":2: 'sweep' takes vary"));

    const fs::path unknown = writeScript(dir, "template map\nsweep vary TILE=4\n");
    const RunResult u = runApp(dir, "--script '" + unknown.string() + "' --screenshot '" + (dir.path / "z.png").string() + "'");
    CHECK(u.exitCode == 2);
    CHECK_THAT(u.stderrText, Catch::Contains(":2: 'TILE' is neither a parameter of the editor's template nor a compiler flag"));

    const fs::path noSet = writeScript(dir, "template gemm\narch sm_90\nsweep preselected huge_tiles\n");
    const RunResult n = runApp(dir, "--script '" + noSet.string() + "' --screenshot '" + (dir.path / "w.png").string() + "'");
    CHECK(n.exitCode == 2);
    CHECK_THAT(n.stderrText, Catch::Contains(":3: no preselected set 'huge_tiles' for this template and arch (there are: simt_tiles, tuned_f32, small_tiles)"));

    const fs::path badSample = writeScript(dir, "template gemm\nsweep sample some\n");
    const RunResult b = runApp(dir, "--script '" + badSample.string() + "' --screenshot '" + (dir.path / "v.png").string() + "'");
    CHECK(b.exitCode == 2);
    CHECK_THAT(b.stderrText, Catch::Contains(":2: 'sweep sample' takes a count (0: every config) and a seed, got 'some'"));
}

// conv's bwd_weight_3x3 names ResNet-50's stage-3 3x3 layer: choosing it for a sweep sets the Run
// panel's sizes to that layer (as kx sweep --preselected runs there), so the sweep rates its waves
// there: 18 tiles x 22 slices fill the 396 block slots of the arch's H100 exactly.
TEST_CASE("gui: a preselected set that names its problem sweeps at it", "[app][gui][sweep]") {
    requirePrerequisites();
    TempDir dir("sweep_preset_sizes");
    const fs::path csv = dir.path / "set.csv";
    const fs::path script = writeScript(dir, "template conv\narch sm_90\nsweep preselected bwd_weight_3x3\nframes 2\nprint-launch\n"
                                             "sweep start compile-only\nsweep wait\nsweep export " + csv.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "s.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.stderrText, Catch::Contains("for C=128 Di=1 G=1 Hi=28 K=128 N=32 Wi=28 X=3 Y=3") &&
                                 Catch::Contains("kernel-explorer: sizes: the problem preset bwd_weight_3x3 was tuned for\n"));
    const std::string table = readFile(csv);
    INFO(table);
    CHECK(count(table, "\n") == 2);
    CHECK_THAT(table, Catch::Contains("\nbwd_weight,nhwgc,f16,128,64,32,64,32,4,22,conv_bwd_weight_f16_nhwgc_128x64x32_w64x32_s4_k22,compiled,") &&
                          Catch::Contains(",registers,1,1.000,"));
}

TEST_CASE("gui: a sweep from a preselected set, sampled, over a compiler flag, exported as CSV and PNG", "[app][gui][sweep]") {
    requirePrerequisites();
    TempDir dir("sweep_preselected");
    const fs::path csv = dir.path / "set.csv", png = dir.path / "set.png";
    // gemm's small_tiles set holds 3 configs; crossed with two register caps, 6; 5 drawn of them.
    const fs::path script = writeScript(dir, R"(template gemm
arch sm_90
wait-compile
sweep preselected small_tiles
sweep vary maxrregcount=0,64
sweep sample 5 7
sweep start compile-only
sweep wait
sweep axes BM maxrregcount
sweep metric registers
sweep export )" + csv.string() + R"(
sweep export )" + png.string() + R"(
sweep load best
wait-compile
expect BM=32 BN=64 maxrregcount=0
)");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.stderrText, Catch::Contains("sweep: 5 configs: 0 measured, 5 compiled, 0 pruned, 0 failed"));

    const std::string table = readFile(csv);
    INFO(table);
    CHECK(table.find(",STAGES,VEC,KSLICE,maxrregcount,name,") != std::string::npos);
    CHECK(count(table, "\n") == 6);
    // Every row is one of the set's tiles, and a capped config carries the cap in its name.
    CHECK(count(table, "f16,rcr,64,64,32,32,32,4,8,2,") + count(table, "f16,rcr,32,64,32,32,16,4,4,2,") +
              count(table, "f16,rcr,64,32,32,16,32,4,4,2,") == 5);
    CHECK(count(table, ",64,gemm_") == count(table, "_r64,"));
    CHECK(count(table, "_r64,") >= 1);

    // The PNG holds the heatmap and the scatter: wide, and more than a few flat colours.
    int w = 0, h = 0, channels = 0;
    REQUIRE(stbi_info(png.c_str(), &w, &h, &channels) == 1);
    CHECK(w > 600);
    CHECK(h > 150);
    CHECK(distinctColours(png) > 50);
}

// The predicted roofline of a sweep is the GPU's own when the runner names one kx has a datasheet
// for: map is memory-bound, so on the (stand-in) H200 its roof is the H200's higher bandwidth,
// not the H100's that sm_90 alone would choose.
TEST_CASE("gui: a sweep predicts on the runner's GPU", "[app][gui][sweep][roofline]") {
    requirePrerequisites();
    TempDir dir("sweep_own_gpu");
    const auto predictedRoofs = [&](const std::string& tag, const std::string& runner) {
        const fs::path csv = dir.path / (tag + ".csv");
        const fs::path script = writeScript(dir, "template map\narch sm_90\nwait-compile\nrun\nwait-run\nsweep vary BLOCK=128,256\n"
                                                 "sweep start compile-only\nsweep wait\nsweep export " + csv.string() + "\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / (tag + ".png")).string() + "' --frames 3", runner);
        INFO(r.stderrText);
        REQUIRE(r.exitCode == 0);
        // The column of the predicted roof, each row's value.
        std::istringstream table(readFile(csv));
        std::string line;
        std::getline(table, line);
        std::vector<std::string> header;
        for (std::stringstream h(line); std::getline(h, line, ',');) header.push_back(line);
        const auto column = std::find(header.begin(), header.end(), "predicted_roof_tflops") - header.begin();
        REQUIRE(column < static_cast<long>(header.size()));
        std::set<double> roofs;
        while (std::getline(table, line)) {
            std::vector<std::string> cells;
            for (std::stringstream c(line); std::getline(c, line, ',');) cells.push_back(line);
            REQUIRE(column < static_cast<long>(cells.size()));
            roofs.insert(std::stod(cells[static_cast<std::size_t>(column)]));
        }
        return roofs;
    };
    const std::string fake = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME=";
    const std::set<double> h200 = predictedRoofs("h200", fake + "'NVIDIA H200'");
    const std::set<double> unknown = predictedRoofs("unknown", fake + "'Fake GPU'");
    REQUIRE(h200.size() == 1);
    REQUIRE(unknown.size() == 1);
    // HBM3e at 4.8 TB/s against the H100 SXM's 3.35: the memory-bound roof rises by that ratio.
    CHECK(*h200.begin() / *unknown.begin() == Approx(4.8 / 3.35).epsilon(0.02));
}
