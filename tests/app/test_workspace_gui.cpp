// The workspace: splitters and their saved layout, maximising a panel, the 1280x720 layout,
// themes and their contrast, zoom, the invalid field's outline, comparison labels, idle CPU and
// the app's own frame times. Checked on the running app under Xvfb, region by region.
#include "gui_harness.hpp"

#include "../../app/frame_times.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed (apt-get install xvfb)");
    REQUIRE(fs::exists(kAppBinary));
}

struct Rect {
    int x = 0, y = 0, w = 0, h = 0;
};

// "kernel-explorer: layout: TITLE X Y W H" lines, by title.
std::map<std::string, Rect> layoutOf(const std::string& text) {
    std::map<std::string, Rect> out;
    static const std::regex line(R"(kernel-explorer: layout: (.+) (-?\d+) (-?\d+) (\d+) (\d+))");
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (std::regex_match(l, m, line)) out[m[1]] = {std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5])};
    }
    return out;
}

struct Image {
    int w = 0, h = 0;
    std::vector<unsigned char> rgb;
    explicit Image(const fs::path& p) {
        int channels = 0;
        unsigned char* data = stbi_load(p.c_str(), &w, &h, &channels, 3);
        REQUIRE(data != nullptr);
        rgb.assign(data, data + static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
        stbi_image_free(data);
    }
    const unsigned char* at(int x, int y) const { return &rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)) * 3]; }
    // Mean luminance (0..255) of a region.
    double luminance(const Rect& r) const {
        double sum = 0;
        for (int y = r.y; y < r.y + r.h; ++y)
            for (int x = r.x; x < r.x + r.w; ++x) sum += 0.2126 * at(x, y)[0] + 0.7152 * at(x, y)[1] + 0.0722 * at(x, y)[2];
        return sum / (r.w * r.h);
    }
    // The longest horizontal run of pixels near `colour` inside the region.
    int longestRun(const Rect& r, const unsigned char colour[3], int tolerance) const {
        int best = 0;
        for (int y = r.y; y < r.y + r.h; ++y) {
            int run = 0;
            for (int x = r.x; x < r.x + r.w; ++x) {
                const unsigned char* p = at(x, y);
                const bool near = std::abs(p[0] - colour[0]) <= tolerance && std::abs(p[1] - colour[1]) <= tolerance &&
                                  std::abs(p[2] - colour[2]) <= tolerance;
                run = near ? run + 1 : 0;
                best = std::max(best, run);
            }
        }
        return best;
    }
};

bool overlap(const Rect& a, const Rect& b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

}  // namespace

TEST_CASE("frame times: percentiles, the slowest frame and the newest frames in order", "[app][workspace]") {
    kx::app::FrameTimes f;
    CHECK(f.percentileMs(99) == 0);
    for (int i = 1; i <= 100; ++i) f.add(i / 1000.0);  // 1 ms ... 100 ms
    CHECK(f.count() == 100);
    CHECK(f.percentileMs(50) == Approx(51.0));
    CHECK(f.percentileMs(99) == Approx(99.0));
    CHECK(f.maxMs() == Approx(100.0));
    const std::vector<double> last = f.recent(3);
    REQUIRE(last.size() == 3);
    CHECK(last[0] == Approx(0.098));
    CHECK(last[2] == Approx(0.100));
    // Past the ring's capacity the oldest frames go and the newest stay in order.
    for (int i = 0; i < 5000; ++i) f.add(0.001 * (i % 7));
    CHECK(f.count() == 4096);
    CHECK(f.total() == 5100);
    CHECK(f.recent(1).front() == Approx(0.001 * (4999 % 7)));
    CHECK(f.recent(2).front() == Approx(0.001 * (4998 % 7)));
    f.clear();
    CHECK(f.total() == 0);
}

TEST_CASE("gui: splitters move the panels and the layout comes back on the next start", "[app][gui][workspace]") {
    requirePrerequisites();
    TempDir dir("workspace_layout");
    const fs::path ws = dir.path / "workspace.json";
    const fs::path shot = dir.path / "final.png";
    const std::string base = "--width 1280 --height 720 --workspace '" + ws.string() + "' --screenshot '" + shot.string() + "'";

    const fs::path first = writeScript(dir, "template gemm\narch sm_90\nprint-layout\nlayout left 0.3\nlayout centre-top 0.7\nframes 3\nprint-layout\n");
    const RunResult a = runApp(dir, "--script '" + first.string() + "' " + base);
    INFO(a.stderrText);
    REQUIRE(a.exitCode == 0);
    // The second print-layout block is after the splitters moved.
    const auto cut = a.stderrText.rfind("layout: Kernel");
    const auto before = layoutOf(a.stderrText.substr(0, cut));
    const auto after = layoutOf(a.stderrText.substr(cut - std::string("kernel-explorer: ").size()));
    REQUIRE(before.count("Code") == 1);
    REQUIRE(after.count("Code") == 1);
    CHECK(after.at("Kernel").w == 384);  // 30% of 1280
    CHECK(after.at("Code").x > before.at("Code").x);
    CHECK(after.at("Code").h > before.at("Code").h + 100);
    const std::string saved = readFile(ws);
    INFO(saved);
    CHECK(saved.find("\"left_width\": 0.3") != std::string::npos);

    // A fresh start with the same workspace file lays the panels out as they were left.
    const fs::path second = writeScript(dir, "template gemm\narch sm_90\nframes 3\nprint-layout\n");
    const RunResult b = runApp(dir, "--script '" + second.string() + "' " + base);
    INFO(b.stderrText);
    REQUIRE(b.exitCode == 0);
    const auto restored = layoutOf(b.stderrText);
    REQUIRE(restored.count("Code") == 1);
    CHECK(restored.at("Code").x == after.at("Code").x);
    CHECK(restored.at("Code").h == after.at("Code").h);

    // A workspace file that is not JSON is reported with its line and the shipped layout used.
    std::ofstream(ws) << "{\n  \"left_width\": oops\n}\n";
    const RunResult c = runApp(dir, "--script '" + second.string() + "' " + base);
    CHECK(c.exitCode == 0);
    CHECK(c.stderrText.find(ws.string() + ":2: not JSON") != std::string::npos);
}

TEST_CASE("gui: Ctrl+M maximises a panel and restores the layout", "[app][gui][workspace]") {
    requirePrerequisites();
    TempDir dir("workspace_maximise");
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nframes 2\nkey ctrl+m\nframes 2\nprint-layout\n"
                                             "key ctrl+m\nframes 2\nprint-layout\nmaximise roofline\nframes 2\nprint-layout\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --width 1280 --height 720 --screenshot '" +
                                        (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    std::vector<std::string> blocks;
    for (std::size_t at = r.stderrText.find("kernel-explorer: layout:"); at != std::string::npos;) {
        // One line per panel on screen.
        const std::size_t next = r.stderrText.find("kernel-explorer: layout:", at + 1);
        blocks.push_back(r.stderrText.substr(at, next == std::string::npos ? std::string::npos : next - at));
        at = next;
    }
    // Maximised: one panel, the whole width. Restored: all nine. Roofline maximised: one.
    REQUIRE(blocks.size() == 1 + 9 + 1);
    const auto code = layoutOf(blocks[0]);
    REQUIRE(code.count("Code") == 1);
    CHECK(code.at("Code").w == 1280);
    CHECK(code.at("Code").h > 600);
    const auto roof = layoutOf(blocks[10]);
    REQUIRE(roof.count("Roofline") == 1);
    CHECK(roof.at("Roofline").w == 1280);
}

TEST_CASE("gui: at 1280x720 every panel keeps a usable size and none overlap", "[app][gui][workspace]") {
    requirePrerequisites();
    TempDir dir("workspace_720");
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nwait-compile\nframes 3\nprint-layout\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --width 1280 --height 720 --screenshot '" +
                                        (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const auto rects = layoutOf(r.stderrText);
    REQUIRE(rects.size() == 9);
    for (const auto& [title, rect] : rects) {
        INFO(title);
        CHECK(rect.w >= 260);
        CHECK(rect.h >= 60);
        CHECK(rect.x >= 0);
        CHECK(rect.x + rect.w <= 1280);
        CHECK(rect.y + rect.h <= 720);
        for (const auto& [other, o] : rects)
            if (other != title) CHECK_FALSE(overlap(rect, o));
    }
    // The code pane gets the larger share of the centre.
    CHECK(rects.at("Code").w >= 680);
    CHECK(rects.at("Code").h >= 300);
}

TEST_CASE("gui: both themes keep text contrast, the light one is light, and zoom scales the UI", "[app][gui][workspace]") {
    requirePrerequisites();
    TempDir dir("workspace_theme");
    const fs::path dark = dir.path / "dark.png";
    const fs::path light = dir.path / "light.png";
    const fs::path script = writeScript(dir, "theme-check\ntemplate gemm\narch sm_90\nframes 3\nprint-layout\nscreenshot " + dark.string() +
                                                 "\ntheme light\nzoom 150\nframes 3\nprint-layout\nscreenshot " + light.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --width 1280 --height 720 --screenshot '" +
                                        (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK(r.stderrText.find("theme-check: dark: lowest text contrast") != std::string::npos);
    CHECK(r.stderrText.find("theme-check: light: lowest text contrast") != std::string::npos);
    const auto cut = r.stderrText.rfind("layout: Kernel") - std::string("kernel-explorer: ").size();
    const auto normal = layoutOf(r.stderrText.substr(0, cut));
    const auto zoomed = layoutOf(r.stderrText.substr(cut));
    REQUIRE(normal.count("Kernel") == 1);
    REQUIRE(zoomed.count("Kernel") == 1);
    // The panels start under the menu bar, whose height follows the font: 1.5 times at 150%.
    CHECK(zoomed.at("Kernel").y >= normal.at("Kernel").y * 1.4);
    // The configuration panel's background, region by region: dark, then light.
    const Rect config = normal.at("Configuration");
    const Rect sample{config.x + 4, config.y + config.h / 2, config.w - 8, 8};
    CHECK(Image(dark).luminance(sample) < 90);
    CHECK(Image(light).luminance(sample) > 180);
}

TEST_CASE("gui: a field that breaks a rule is outlined", "[app][gui][workspace]") {
    requirePrerequisites();
    TempDir dir("workspace_invalid");
    const fs::path bad = dir.path / "bad.png";
    const fs::path good = dir.path / "good.png";
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nframes 3\nscreenshot " + good.string() +
                                                 "\nset BM=256 BN=256 STAGES=4\nframes 3\nprint-layout\nscreenshot " + bad.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --width 1920 --height 1080 --screenshot '" +
                                        (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const auto rects = layoutOf(r.stderrText);
    REQUIRE(rects.count("Configuration") == 1);
    const Rect c = rects.at("Configuration");
    // The value column of the configuration, where the outlines are drawn (the red verdict
    // text below is made of short runs, an outline of one long line).
    const Rect fields{c.x + c.w / 3, c.y, c.w * 2 / 3 - 4, c.h / 2};
    const unsigned char red[3] = {0xFF, 0x6B, 0x78};
    CHECK(Image(bad).longestRun(fields, red, 40) > 80);
    CHECK(Image(good).longestRun(fields, red, 40) < 20);
}

TEST_CASE("gui: comparison columns are lettered with the parameters that differ, best only where it means something",
          "[app][gui][workspace][compare]") {
    requirePrerequisites();
    TempDir dir("workspace_compare");
    const fs::path md = dir.path / "compare.md";
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nset BM=64\npin\nset BM=128\npin\nset STAGES=3\npin\nview compare\nexport-compare " +
                                                 md.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const std::string text = readFile(md);
    INFO(text);
    CHECK(text.find("| A  BM=64 STAGES=2<br>") != std::string::npos);
    CHECK(text.find("| B  BM=128 STAGES=2<br>") != std::string::npos);
    CHECK(text.find("| C  BM=128 STAGES=3<br>") != std::string::npos);
    // Registers and occupancy have no better direction: never bold.
    const auto registers = text.find("| Registers (/thread) |");
    REQUIRE(registers != std::string::npos);
    const std::string row = text.substr(registers, text.find('\n', registers) - registers);
    CHECK(row.find("**") == std::string::npos);
}

TEST_CASE("gui: an idle window sleeps, and the app reports its own frame times", "[app][gui][workspace][idle]") {
    requirePrerequisites();
    TempDir dir("workspace_idle");
    // No --screenshot: the window behaves as a user's, sleeping on events once nothing moves.
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nwait-compile\nframe-stats reset\ntab ptx\nwheel code 3 20\n"
                                             "tab source\nframe-stats\nframe-stats max-p99 2000\nidle-cpu 6 2\nquit\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --width 1280 --height 720");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    std::smatch m;
    REQUIRE(std::regex_search(r.stderrText, m, std::regex(R"(frame-stats: (\d+) frames, p50 ([\d.]+) ms, p99 ([\d.]+) ms)")));
    CHECK(std::stoi(m[1]) >= 20);
    CHECK(std::stod(m[2]) <= std::stod(m[3]));
    REQUIRE(std::regex_search(r.stderrText, m, std::regex(R"(idle-cpu: ([\d.]+)% of a core over ([\d.]+) s, (\d+) frames)")));
    CHECK(std::stod(m[1]) < 2.0);
    // Asleep: a frame every few seconds at most, not sixty a second.
    CHECK(std::stoi(m[3]) <= 4);
}

TEST_CASE("gui: the mouse wheel over a panel scrolls it, not the splitters' window behind the panels", "[app][gui][workspace]") {
    requirePrerequisites();
    TempDir dir("workspace_wheel");
    // The pointer is moved onto the Code panel and the wheel turned there, as a user does. The
    // splitters live in a window covering the whole viewport; were it in front of the panels it
    // would take the wheel (and every click) and the listing would not move.
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nwait-compile\ntab ptx\nframes 3\ncode print\n"
                                             "wheel code 4 6\nframes 2\ncode print\nquit\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --width 1280 --height 720");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    static const std::regex top(R"(code: line \d+: .*top lines: source \d+, PTX (\d+), SASS \d+)");
    std::vector<int> ptxTop;
    for (auto it = std::sregex_iterator(r.stderrText.begin(), r.stderrText.end(), top); it != std::sregex_iterator(); ++it)
        ptxTop.push_back(std::stoi((*it)[1]));
    REQUIRE(ptxTop.size() == 2);
    CHECK(ptxTop[0] > 0);
    // 24 notches of at least a few lines each.
    CHECK(ptxTop[1] > ptxTop[0] + 40);
}

TEST_CASE("gui: bad workspace commands exit 2 naming file and line", "[app][gui][workspace]") {
    requirePrerequisites();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"layout middle 0.3\n", "unknown splitter 'middle'"},
        {"layout left 1.5\n", "between 0 and 1"},
        {"zoom 900\n", "70 to 250"},
        {"key ctrl+hyper\n", "does not know the key"},
        {"theme sepia\n", "dark or light"},
        {"maximise nowhere\n", "no panel titled 'nowhere'"},
    };
    for (const auto& [text, reason] : cases) {
        TempDir dir("workspace_bad");
        const fs::path script = writeScript(dir, "template gemm\n" + text);
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'");
        INFO(text << r.stderrText);
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find(script.string() + ":2: ") != std::string::npos);
        CHECK(r.stderrText.find(reason) != std::string::npos);
    }
}
