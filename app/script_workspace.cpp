// The script commands for the workspace (layout, maximise, theme, zoom), for input (wheel, key)
// and for measuring the app itself (frame-stats, idle-cpu, theme-check, print-layout).
#include "script.hpp"

#include "contrast.hpp"
#include "explorer_app.hpp"
#include "theme.hpp"

#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <stdexcept>

namespace kx::app {

namespace {

double processCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return s(u.ru_utime) + s(u.ru_stime);
}

double parseNumber(const std::string& text, const std::string& what) {
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size()) throw std::invalid_argument("trailing");
        return v;
    } catch (const std::exception&) {
        throw std::invalid_argument(fmt::format("{} needs a number, got '{}'", what, text));
    }
}

// "ctrl+shift+f6" -> GLFW key and modifiers; the key is a letter, a digit, f1..f12 or a name.
struct Chord {
    int key = -1;
    bool ctrl = false, shift = false;
};

Chord parseChord(const std::string& text) {
    Chord chord;
    std::string rest;
    for (char ch : text) rest += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (;;) {
        const auto plus = rest.find('+');
        if (plus == std::string::npos || plus + 1 == rest.size()) break;
        const std::string mod = rest.substr(0, plus);
        if (mod == "ctrl") chord.ctrl = true;
        else if (mod == "shift") chord.shift = true;
        else throw std::invalid_argument(fmt::format("'key' knows the modifiers ctrl and shift, not '{}'", mod));
        rest = rest.substr(plus + 1);
    }
    static const std::map<std::string, int> kNamed = {{"equal", GLFW_KEY_EQUAL}, {"minus", GLFW_KEY_MINUS}, {"tab", GLFW_KEY_TAB},
                                                      {"escape", GLFW_KEY_ESCAPE}, {"enter", GLFW_KEY_ENTER}, {"space", GLFW_KEY_SPACE},
                                                      {"up", GLFW_KEY_UP}, {"down", GLFW_KEY_DOWN}, {"left", GLFW_KEY_LEFT},
                                                      {"right", GLFW_KEY_RIGHT}};
    if (rest.size() == 1 && std::isalnum(static_cast<unsigned char>(rest[0]))) {
        chord.key = std::toupper(static_cast<unsigned char>(rest[0]));  // GLFW letters and digits are ASCII
    } else if (rest.size() >= 2 && rest[0] == 'f' && std::all_of(rest.begin() + 1, rest.end(), ::isdigit)) {
        const int n = std::stoi(rest.substr(1));
        if (n >= 1 && n <= 12) chord.key = GLFW_KEY_F1 + n - 1;
    } else if (auto it = kNamed.find(rest); it != kNamed.end()) {
        chord.key = it->second;
    }
    if (chord.key < 0) throw std::invalid_argument(fmt::format("'key' does not know the key '{}'", rest));
    return chord;
}

const std::map<std::string, float WorkspaceSettings::*> kSplitters = {
    {"left", &WorkspaceSettings::leftWidth},          {"right", &WorkspaceSettings::rightWidth},
    {"centre-top", &WorkspaceSettings::centreTop},    {"kernel", &WorkspaceSettings::kernelHeight},
    {"variants", &WorkspaceSettings::variantsHeight}, {"run-top", &WorkspaceSettings::runTop}};

// Prints each theme's lowest text contrast, and every pair below kMinTextContrast; true when
// there is none.
bool themeContrastPasses() {
    bool allPass = true;
    for (const auto& [name, t] : {std::pair{"dark", Theme::darkProfessional()}, std::pair{"light", Theme::light()}}) {
        const Palette& p = t.palette();
        struct Pair {
            const char* what;
            ImU32 fg;
        };
        std::vector<Pair> texts = {{"text", p.text}, {"dim", p.textDim}, {"faint", p.textFaint},
                                   {"ok", p.ok},     {"warn", p.warn},   {"error", p.error}};
        double worst = 100;
        std::string worstWhat;
        for (const auto& [bgName, bg] : {std::pair{"panel", p.panelBg}, std::pair{"code", p.codeBg}}) {
            for (const Pair& x : texts) {
                const double r = contrastRatio(x.fg, bg);
                if (r < worst) worst = r, worstWhat = fmt::format("{} on {}", x.what, bgName);
                if (r < kMinTextContrast) {
                    allPass = false;
                    std::cerr << fmt::format("kernel-explorer: theme-check: {}: {} on {} is {:.2f}:1\n", name, x.what, bgName, r);
                }
            }
        }
        for (int k = 0; k < static_cast<int>(SyntaxClass::Count); ++k) {
            const double r = contrastRatio(p.syntax[k], p.codeBg);
            if (r < worst) worst = r, worstWhat = fmt::format("syntax class {} on code", k);
            if (r < kMinTextContrast) {
                allPass = false;
                std::cerr << fmt::format("kernel-explorer: theme-check: {}: syntax class {} on code is {:.2f}:1\n", name, k, r);
            }
        }
        std::cerr << fmt::format("kernel-explorer: theme-check: {}: lowest text contrast {:.2f}:1 ({})\n", name, worst, worstWhat);
    }
    return allPass;
}

}  // namespace

bool isWorkspaceCommand(const std::string& w) {
    return w == "frame-stats" || w == "wheel" || w == "key" || w == "layout" || w == "maximise" || w == "theme" || w == "zoom" ||
           w == "print-layout" || w == "idle-cpu" || w == "theme-check" || w == "quit";
}

void parseWorkspaceCommand(const std::vector<std::string>& w, ScriptCommand& c) {
    c.kind = ScriptCommand::Kind::Workspace;
    c.argument = w[0];
    const std::size_t nargs = w.size() - 1;
    for (std::size_t i = 1; i < w.size(); ++i) c.values.emplace_back(w[i], "");
    const std::string& cmd = w[0];
    if (cmd == "frame-stats") {
        const bool ok = nargs == 0 || (nargs == 1 && w[1] == "reset") || (nargs == 2 && w[1] == "max-p99");
        if (!ok) throw std::invalid_argument("'frame-stats' takes nothing, reset, or max-p99 MS");
        if (nargs == 2) parseNumber(w[2], "'frame-stats max-p99'");
    } else if (cmd == "wheel") {
        if (nargs != 2 && nargs != 3) throw std::invalid_argument("'wheel' takes VIEW NOTCHES [FRAMES]");
        parseNumber(w[2], "'wheel'");
        if (nargs == 3 && parseNumber(w[3], "'wheel' FRAMES") < 1) throw std::invalid_argument("'wheel' FRAMES must be at least 1");
    } else if (cmd == "key") {
        if (nargs != 1) throw std::invalid_argument("'key' takes one chord, e.g. ctrl+m");
        parseChord(w[1]);
    } else if (cmd == "layout") {
        if (nargs == 1 && w[1] == "reset") return;
        if (nargs != 2) throw std::invalid_argument("'layout' takes NAME SHARE or reset");
        const bool below = w[1].rfind("below-", 0) == 0 && w[1].size() > 6 && std::isdigit(static_cast<unsigned char>(w[1][6]));
        if (kSplitters.count(w[1]) == 0 && !below)
            throw std::invalid_argument(fmt::format("unknown splitter '{}' (left, right, centre-top, kernel, variants, run-top, below-N)", w[1]));
        const double v = parseNumber(w[2], "'layout'");
        if (v <= 0 || v >= 1) throw std::invalid_argument(fmt::format("'layout' takes a share between 0 and 1, got {}", w[2]));
    } else if (cmd == "maximise") {
        c.values.clear();
        for (std::size_t i = 1; i < w.size(); ++i) c.second += (i > 1 ? " " : "") + w[i];
    } else if (cmd == "theme") {
        if (nargs != 1 || (w[1] != "dark" && w[1] != "light")) throw std::invalid_argument("'theme' takes dark or light");
    } else if (cmd == "zoom") {
        if (nargs != 1) throw std::invalid_argument("'zoom' takes a percentage");
        const double z = parseNumber(w[1], "'zoom'");
        if (z < WorkspaceSettings::kMinZoom * 100 - 1e-6 || z > WorkspaceSettings::kMaxZoom * 100 + 1e-6)
            throw std::invalid_argument(fmt::format("'zoom' takes 70 to 250 (percent), got {}", w[1]));
    } else if (cmd == "idle-cpu") {
        if (nargs != 1 && nargs != 2) throw std::invalid_argument("'idle-cpu' takes SECONDS [MAX_PERCENT]");
        if (parseNumber(w[1], "'idle-cpu'") <= 0) throw std::invalid_argument("'idle-cpu' SECONDS must be positive");
        if (nargs == 2) parseNumber(w[2], "'idle-cpu' MAX_PERCENT");
    } else if (nargs != 0) {
        throw std::invalid_argument(fmt::format("'{}' takes no argument", cmd));
    }
}

void ScriptRunner::injectInput(ExplorerApp& app, ImGuiIO& io) {
    if (m_keyReleasePending) {
        io.KeysDown[m_key] = false;
        io.KeyCtrl = io.KeyShift = false;
        m_keyReleasePending = false;
        m_key = -1;
    } else if (m_key >= 0) {
        io.KeysDown[m_key] = true;
        io.KeyCtrl = m_keyCtrl;
        io.KeyShift = m_keyShift;
        m_keyReleasePending = true;
    }
    if (m_wheelFrames > 0) {
        if (View* v = app.findView(m_wheelView)) {
            const ImVec2 p = v->rectPos(), s = v->rectSize();
            io.MousePos = ImVec2(p.x + s.x * 0.5f, p.y + s.y * 0.6f);
            io.MouseWheel -= m_wheelNotches;  // ImGui's wheel is positive upwards
        }
        --m_wheelFrames;
    }
}

bool ScriptRunner::stepWorkspace(const ScriptCommand& c, ExplorerApp& app) {
    const std::string& cmd = c.argument;
    auto arg = [&](std::size_t i) { return c.values[i].first; };
    FrameTimes& frames = app.frameTimes();
    if (cmd == "frame-stats") {
        if (!c.values.empty() && arg(0) == "reset") {
            frames.clear();
            app.buildTimes().clear();
        } else if (!c.values.empty()) {
            const double limit = std::stod(arg(1));
            if (frames.count() == 0) fail(c, "no frames were drawn since the last reset");
            if (frames.percentileMs(99) > limit)
                fail(c, fmt::format("frame time p99 {:.1f} ms over {} frames is above {} ms", frames.percentileMs(99), frames.count(), limit));
        } else {
            const FrameTimes& build = app.buildTimes();
            std::cerr << fmt::format("kernel-explorer: frame-stats: {} frames, p50 {:.1f} ms, p99 {:.1f} ms, max {:.1f} ms; "
                                     "UI build p50 {:.1f} ms, p99 {:.1f} ms\n",
                                     frames.count(), frames.percentileMs(50), frames.percentileMs(99), frames.maxMs(), build.percentileMs(50),
                                     build.percentileMs(99));
        }
    } else if (cmd == "wheel") {
        // Wait for the previous wheel command's frames before starting this one.
        if (m_wheelFrames > 0) return true;
        if (app.findView(arg(0)) == nullptr) fail(c, fmt::format("unknown view '{}'", arg(0)));
        if (m_waitFrames < 0) {
            m_wheelView = arg(0);
            m_wheelNotches = static_cast<float>(std::stod(arg(1)));
            m_wheelFrames = c.values.size() > 2 ? std::stoi(arg(2)) : 1;
            m_waitFrames = 0;
            return true;
        }
        m_waitFrames = -1;
    } else if (cmd == "key") {
        if (m_waitFrames < 0) {
            const Chord chord = parseChord(arg(0));
            m_key = chord.key;
            m_keyCtrl = chord.ctrl;
            m_keyShift = chord.shift;
            m_waitFrames = 2;  // pressed on one frame, released on the next
        }
        if (m_waitFrames > 0) {
            --m_waitFrames;
            return true;
        }
        m_waitFrames = -1;
    } else if (cmd == "layout") {
        WorkspaceSettings& ws = app.workspace();
        if (arg(0) == "reset") {
            app.resetLayout();
        } else if (arg(0).rfind("below-", 0) == 0) {
            const std::size_t i = static_cast<std::size_t>(std::stoi(arg(0).substr(6)));
            if (i < 1) fail(c, "below-N counts from 1");
            if (ws.belowSplits.size() < i) ws.belowSplits.resize(i, 0.5f);
            ws.belowSplits[i - 1] = std::stof(arg(1));
        } else {
            ws.*kSplitters.at(arg(0)) = std::stof(arg(1));
        }
        ws.clamp();
        app.saveWorkspace();
    } else if (cmd == "maximise") {
        if (!app.toggleMaximised(c.second)) fail(c, fmt::format("no panel titled '{}' (code, occupancy, roofline, ...)", c.second));
        // Toggling a maximised view restores it; the command means "this one maximised".
        if (!c.second.empty() && app.workspace().maximised.empty()) app.toggleMaximised(c.second);
    } else if (cmd == "theme") {
        app.setTheme(arg(0) == "light" ? ThemeKind::Light : ThemeKind::Dark);
    } else if (cmd == "zoom") {
        app.setZoom(static_cast<float>(std::stod(arg(0)) / 100.0));
    } else if (cmd == "print-layout") {
        for (const auto& v : app.views()) {
            if (!v->tiled() || !v->isOpen() || v->isHidden()) continue;
            const ImVec2 p = v->rectPos(), s = v->rectSize();
            std::cerr << fmt::format("kernel-explorer: layout: {} {:.0f} {:.0f} {:.0f} {:.0f}\n", v->title(), p.x, p.y, s.x, s.y);
        }
    } else if (cmd == "theme-check") {
        if (!themeContrastPasses()) fail(c, fmt::format("text below {:.1f}:1 contrast (listed above)", kMinTextContrast));
    } else if (cmd == "quit") {
        app.requestQuit();
    } else if (cmd == "idle-cpu") {
        return stepIdleCpu(c, app);
    }
    return false;
}

bool ScriptRunner::stepIdleCpu(const ScriptCommand& c, ExplorerApp& app) {
    auto arg = [&](std::size_t i) { return c.values[i].first; };
    const FrameTimes& frames = app.frameTimes();
    const double seconds = std::stod(arg(0));
    if (!m_idleStart) {
        // First let everything settle: the compile, the GPU probe, the frames after input.
        if (waitFor(c, app.activity().empty() && !app.pollSoon(), kCompileWaitCap, "settling before the idle measurement")) return true;
        m_idleStart = std::chrono::steady_clock::now();
        m_idleCpuStart = processCpuSeconds();
        m_idleFramesStart = frames.total();
        return true;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - *m_idleStart).count();
    if (elapsed < seconds) return true;
    const double share = (processCpuSeconds() - m_idleCpuStart) / elapsed * 100.0;
    const std::size_t drawn = frames.total() - m_idleFramesStart;
    m_idleStart.reset();
    std::cerr << fmt::format("kernel-explorer: idle-cpu: {:.2f}% of a core over {:.1f} s, {} frames\n", share, elapsed, drawn);
    if (c.values.size() > 1 && share > std::stod(arg(1)))
        fail(c, fmt::format("idle CPU {:.2f}% of a core is above {}%", share, arg(1)));
    return false;
}

}  // namespace kx::app
