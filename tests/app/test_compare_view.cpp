// The Compare view: the line diff it draws from (pure, header-only), and the real app under Xvfb
// pinning three GEMM tile configs, opening the view, exporting the metrics table and saving a
// screenshot; and scripts that misuse the compare commands failing with FILE:LINE.
#include "gui_harness.hpp"

#include "../../app/widgets/line_diff.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace kx::test;
namespace diff = kx::app::diff;

namespace {

std::size_t distinctColours(const fs::path& p, int& width, int& height) {
    int channels = 0;
    unsigned char* data = stbi_load(p.c_str(), &width, &height, &channels, 3);
    REQUIRE(data != nullptr);
    std::set<unsigned> colours;
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    for (std::size_t i = 0; i < n; ++i) colours.insert(unsigned(data[i * 3]) << 16 | unsigned(data[i * 3 + 1]) << 8 | data[i * 3 + 2]);
    stbi_image_free(data);
    return colours.size();
}

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

std::string lines(int from, int to, const std::string& tag = "") {
    std::string s;
    for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + tag + "\n";
    return s;
}

}  // namespace

TEST_CASE("line diff: counts, side-by-side pairing and folding", "[app][diff]") {
    SECTION("identical texts have no changes and fold to one row") {
        const std::string t = lines(1, 50);
        const diff::LineDiff d = diff::computeLineDiff(t, t);
        CHECK(d.identical());
        CHECK(d.unified.size() == 50);
        const auto folded = diff::foldUnchanged(d.unified, 3);
        REQUIRE(folded.size() == 1);
        CHECK(folded[0].row == -1);
        CHECK(folded[0].hidden == 50);
    }
    SECTION("a changed line, an added line and a removed line") {
        const std::string a = "a\nb\nc\nd\ne\n";
        const std::string b = "a\nB\nc\ne\nf\n";  // b->B changed, d removed, f added
        const diff::LineDiff d = diff::computeLineDiff(a, b);
        CHECK(d.added == 2);    // B, f
        CHECK(d.removed == 2);  // b, d
        const auto side = diff::sideBySide(d.unified);
        // a | b/B changed | c | d removed | e | f added
        REQUIRE(side.size() == 6);
        CHECK(side[1].kind == diff::RowKind::Changed);
        CHECK(side[1].lineA == 2);
        CHECK(side[1].lineB == 2);
        CHECK(side[3].kind == diff::RowKind::Removed);
        CHECK(side[3].lineA == 4);
        CHECK(side[3].lineB == 0);
        CHECK(side[5].kind == diff::RowKind::Added);
        CHECK(side[5].lineB == 5);
    }
    SECTION("only-changes folding keeps context and counts what it hides") {
        // 200 lines, line 100 differs: 3 lines of context each side, two folds.
        std::string a = lines(1, 99) + "middle A\n" + lines(101, 200);
        std::string b = lines(1, 99) + "middle B\n" + lines(101, 200);
        const diff::LineDiff d = diff::computeLineDiff(a, b);
        CHECK(d.added == 1);
        CHECK(d.removed == 1);
        const auto side = diff::sideBySide(d.unified);
        const auto folded = diff::foldUnchanged(side, 3);
        // fold(96) + 3 context + changed + 3 context + fold(97)
        REQUIRE(folded.size() == 9);
        CHECK(folded.front().row == -1);
        CHECK(folded.front().hidden == 96);
        CHECK(folded.back().row == -1);
        CHECK(folded.back().hidden == 97);
        CHECK(side[static_cast<std::size_t>(folded[4].row)].kind == diff::RowKind::Changed);
        // A run just longer than the context is kept whole rather than folded to one line.
        const auto tight = diff::foldUnchanged(diff::sideBySide(diff::computeLineDiff("x\n1\n2\n3\ny\n", "X\n1\n2\n3\nY\n").unified), 1);
        CHECK(tight.size() == 5);
    }
    SECTION("splitLines handles a missing final newline and CRLF") {
        CHECK(diff::splitLines("").empty());
        CHECK(diff::splitLines("a").size() == 1);
        const auto l = diff::splitLines("a\r\nb\n");
        REQUIRE(l.size() == 2);
        CHECK(l[0] == "a");
    }
    SECTION("masking names leaves only code differences in PTX") {
        const std::string a = ".global .u32 _ZN23_INTERNAL_abc_cu_1234567kx_BME = 64; // gemm_64\n";
        const std::string b = ".global .u32 _ZN24_INTERNAL_abcd_cu_1234567kx_BME = 64; // gemm_128\n";
        CHECK(diff::normaliseNames(a, "gemm_64") == diff::normaliseNames(b, "gemm_128"));
        CHECK(diff::normaliseNames(a, "gemm_64") == ".global .u32 _ZN<file>7kx_BME = 64; // <variant>\n");
    }
}

TEST_CASE("gui: three pinned GEMM tile configs in the Compare view", "[app][gui][compare]") {
    requirePrerequisites();
    TempDir dir("compare");
    const fs::path shot = dir.path / "compare.png";
    const fs::path csv = dir.path / "compare.csv";
    const fs::path md = dir.path / "compare.md";
    const fs::path two = dir.path / "two.csv";
    const fs::path script = writeScript(dir, R"(# three tile shapes of one GEMM on Hopper, side by side
template gemm
arch sm_90
set BM=64
pin
set BM=128
pin
set BN=64
pin
view compare
compare-select 1 2
compare-tab ptx
export-compare )" + csv.string() + R"(
export-compare )" + md.string() + R"(
screenshot )" + shot.string() + R"(
compare-table 3 1
export-compare )" + two.string() + R"(
)");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    REQUIRE(fs::exists(shot));
    int w = 0;
    int h = 0;
    CHECK(distinctColours(shot, w, h) > 200);
    CHECK(w == 1600);

    // The table has one column per pinned variant and the ptxas rows.
    const std::string table = readFile(csv);
    INFO(table);
    CHECK(table.rfind("metric,unit,gemm_f16_rcr_64x128x32", 0) == 0);
    CHECK(table.find("gemm_f16_rcr_128x128x32") != std::string::npos);
    CHECK(table.find("gemm_f16_rcr_128x64x32") != std::string::npos);
    CHECK(table.find("\nRegisters,/thread,") != std::string::npos);
    CHECK(table.find("\nOccupancy,%,") != std::string::npos);
    // 128x128 tiles use 256 threads, the others 128.
    CHECK(table.find("\nThreads,/block,128,256,128\n") != std::string::npos);
    const std::string markdown = readFile(md);
    CHECK(markdown.find("| Registers (/thread) |") != std::string::npos);
    CHECK(markdown.find("**") != std::string::npos);  // a best value in bold
    // compare-table ticks exactly the variants it names: the table loses the 128x128 column.
    const std::string narrowed = readFile(two);
    INFO(narrowed);
    const std::string header = narrowed.substr(0, narrowed.find('\n'));
    CHECK(header.find("gemm_f16_rcr_64x128x32") != std::string::npos);
    CHECK(header.find("gemm_f16_rcr_128x64x32") != std::string::npos);
    CHECK(header.find("gemm_f16_rcr_128x128x32") == std::string::npos);
    CHECK(narrowed.find("\nThreads,/block,128,128\n") != std::string::npos);
}

TEST_CASE("gui: runs stored before runs said their share of the roof get it in the Compare view", "[app][gui][compare]") {
    requirePrerequisites();
    TempDir dir("compare_roof");
    const fs::path csv = dir.path / "demo.csv";
    // The demo session's runs were measured on an H100 and stored without it.
    const fs::path script = writeScript(dir, "demo\ncompare-select 1 3\nview compare\nexport-compare " + csv.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const std::string table = readFile(csv);
    INFO(table);
    const auto at = table.find("\n% of roof,%,");
    REQUIRE(at != std::string::npos);
    std::istringstream row(table.substr(at + 1, table.find('\n', at + 1) - at - 1));
    std::vector<std::string> cells;
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    REQUIRE(cells.size() >= 5);
    // Column A: the fp32 GEMM at 40.0 TFLOP/s on the H100 SXM's 67 TFLOP/s FP32 roof.
    CHECK(std::stod(cells[2]) == Approx(100.0 * 40.0 / 67).epsilon(0.01));
    for (std::size_t i = 2; i < cells.size(); ++i) {
        CHECK_FALSE(cells[i].empty());
        CHECK(std::stod(cells[i]) > 0);
        CHECK(std::stod(cells[i]) < 100);
    }
}

// The Compare view's Waves row: two runs of conv's backward weight (the stand-in runner says 132
// SMs and two blocks per SM), Split-K 32 (288 blocks, a second wave 9% full) and 29 (261 blocks,
// one wave).
TEST_CASE("gui: the Compare view says how many waves each run took", "[app][gui][compare]") {
    requirePrerequisites();
    TempDir dir("compare_waves");
    const fs::path csv = dir.path / "waves.csv";
    const fs::path script = writeScript(dir, "template conv\narch sm_90\nset direction=bwd_weight BN=128 WN=64 SPLITK=32\n"
                                             "size N=2 C=128 K=128 Hi=28 Wi=28\nwait-compile\npin\nrun\nwait-run\nset SPLITK=29\nwait-compile\npin\nrun\nwait-run\n"
                                             "compare-select 1 2\nframes 2\nexport-compare " + csv.string() + "\n");
    const std::string env = "KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1 KX_FAKE_GPU_NAME='NVIDIA H200'";
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'", env);
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const std::string table = readFile(csv);
    INFO(table);
    const auto at = table.find("\nWaves,");
    REQUIRE(at != std::string::npos);
    const std::string row = table.substr(at + 1, table.find('\n', at + 1) - at - 1);
    CHECK(row.find("2 waves, 55% busy") != std::string::npos);
    CHECK(row.find("1 wave, 99% busy") != std::string::npos);
}

TEST_CASE("gui: bad compare commands exit 2 naming file and line", "[app][gui][compare]") {
    requirePrerequisites();
    SECTION("a variant that does not exist") {
        TempDir dir("compare_bad_pin");
        const fs::path script = writeScript(dir, "template gemm\narch sm_90\npin\ncompare-select 1 7\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find(script.string() + ":4: no single variant matches '7'") != std::string::npos);
    }
    SECTION("a table of one variant") {
        TempDir dir("compare_table_one");
        const fs::path script = writeScript(dir, "template gemm\narch sm_90\npin\ncompare-table 1\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find(script.string() + ":4: 'compare-table' takes 2 to 4 variants, got 1") != std::string::npos);
    }
    SECTION("a malformed command is caught before a window opens") {
        TempDir dir("compare_bad_syntax");
        const fs::path script = writeScript(dir, "template gemm\ncompare-tab cubin\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find(script.string() + ":2: unknown compare tab 'cubin'") != std::string::npos);
    }
    SECTION("keeping an invalid config") {
        TempDir dir("compare_bad_config");
        // 64 KiB tiles x 4 stages exceed sm_90's shared memory per block: nothing to keep.
        const fs::path script = writeScript(dir, "template gemm\narch sm_90\nset BM=256 BN=256 BK=64 STAGES=4\npin\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
        INFO(r.stderrText);
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find(script.string() + ":4: cannot keep: this config is not valid") != std::string::npos);
    }
}
