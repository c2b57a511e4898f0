// GUI tests of the linked code panes: select the GEMM's inner-loop line in scripted mode, read
// back what the panes linked (source line -> PTX and SASS lines), check that its colour band is
// on screen beside the source and its code, and that bad `code` commands name file and line.
#include "gui_harness.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace kx::test;

namespace {

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

bool haveNvdisasm() {
    return fs::exists("/usr/local/cuda/bin/nvdisasm") || std::system("command -v nvdisasm >/dev/null 2>&1") == 0;
}

// Pixels of the right half of the window (where the Source tab shows the SASS) whose hue is
// within 0.03 of the line's band hue and that carry some colour (saturation over 0.2): the band
// strips and, much larger, the highlighted rows of the selected line's code.
int countHue(const fs::path& png, int line) {
    const float hue = std::fmod(static_cast<float>(line) * 0.618034f, 1.0f);
    int w = 0, h = 0, channels = 0;
    unsigned char* data = stbi_load(png.c_str(), &w, &h, &channels, 3);
    REQUIRE(data != nullptr);
    int n = 0;
    for (int y = 0; y < h; ++y)
        for (int x = w / 2; x < w; ++x) {
            const unsigned char* p = data + (static_cast<std::size_t>(y) * w + x) * 3;
            const float r = p[0] / 255.0f, g = p[1] / 255.0f, b = p[2] / 255.0f;
            const float mx = std::max({r, g, b}), mn = std::min({r, g, b}), d = mx - mn;
            if (mx <= 0 || d / mx < 0.2f) continue;
            float hh = mx == r ? (g - b) / d : mx == g ? 2 + (b - r) / d : 4 + (r - g) / d;
            hh = std::fmod(hh / 6.0f + 1.0f, 1.0f);
            const float diff = std::min(std::abs(hh - hue), 1.0f - std::abs(hh - hue));
            n += diff < 0.03f ? 1 : 0;
        }
    stbi_image_free(data);
    return n;
}

}  // namespace

TEST_CASE("gui: selecting the GEMM's inner-loop line links its PTX and SASS", "[app][gui][code]") {
    requirePrerequisites();
    TempDir dir("codelinks");
    const fs::path shot = dir.path / "linked.png";
    const fs::path cleared = dir.path / "cleared.png";
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\nwait-compile\nmaximise code\ncode split sass\n"
                                             "code select acc[i][j] = fmaf(\ncode print\nframes 3\nscreenshot " + shot.string() +
                                                 "\ncode select 0\nframes 3\nscreenshot " + cleared.string() +
                                                 "\ncode select acc[i][j] = fmaf(\ncode hover ptx\n" +
                                                 (haveNvdisasm() ? "code hover sass\ncode peak\n" : "") + "frames 2\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "final.png").string() + "' --frames 3");
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    std::smatch m;
    const std::regex printed("kernel-explorer: code: line (\\d+): (\\d+) PTX lines, (\\d+) SASS lines, peak (-?\\d+) live registers");
    REQUIRE(std::regex_search(r.stderrText, m, printed));
    const int line = std::stoi(m[1]);
    CHECK(line > 0);
    CHECK(std::stoi(m[2]) > 0);  // the fmaf line became fma.rn.f32 instructions
    if (haveNvdisasm()) {
        CHECK(std::stoi(m[3]) >= 64);  // one FFMA per accumulator of the 8x8 thread tile, at least
        CHECK(std::stoi(m[4]) > 0);
    } else {
        WARN("nvdisasm is absent: the SASS side is not checked");
    }
    // The selected line's code lights up in the line's colour beside the source; clearing the
    // selection (the panes stay where they are) leaves only the thin colour bands.
    REQUIRE((fs::exists(shot) && fs::exists(cleared)));
    const int lit = countHue(shot, line), unlit = countHue(cleared, line);
    INFO("pixels of the line's hue with the line selected: " << lit << ", without: " << unlit);
    if (haveNvdisasm()) CHECK(lit > 5 * unlit + 2000);
}

TEST_CASE("gui: bad code commands exit 2 naming file and line", "[app][gui][code]") {
    requirePrerequisites();
    TempDir dir("codebad");
    for (const char* bad : {"code hover foo", "code split left", "code", "code select", "code hover sass x1", "tab isa2"}) {
        const fs::path script = writeScript(dir, std::string("template gemm\n") + bad + "\n");
        const RunResult r = runApp(dir, "--script '" + script.string() + "' --frames 1");
        INFO(bad << "\n" << r.stderrText);
        CHECK(r.exitCode == 2);
        CHECK(r.stderrText.find("scenario.script:2:") != std::string::npos);
    }
    // A text no source line holds is found when the command runs.
    const fs::path script = writeScript(dir, "template gemm\narch sm_90\ncode select no such text here\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --frames 1");
    INFO(r.stderrText);
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find("scenario.script:3: no source line holds 'no such text here'") != std::string::npos);
}
