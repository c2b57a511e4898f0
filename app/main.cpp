// kernel-explorer: the GUI. Main loop in the shape of Dear ImGui's example_glfw_opengl3.
//
// Exit codes: 0 success; 1 the window or a screenshot could not be made; 2 bad command line or
// a malformed script ("FILE:LINE: reason" on stderr).
#include "explorer_app.hpp"
#include "explorer_model.hpp"
#include "gl_context.hpp"
#include "script.hpp"
#include "theme.hpp"

#include "util/data_paths.hpp"
#include "widgets/opaque_fill.hpp"

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <fmt/format.h>
#include <imgui.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <csignal>
#include <execinfo.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

using namespace kx;

namespace {

struct Options {
    std::string screenshot;
    std::string workspace;
    int frames = 60;
    std::string script;
    int width = 1600;
    int height = 1000;
    std::string dataDir;
    std::string session;
};

void glfwErrorCallback(int error, const char* description) {
    std::cerr << "kernel-explorer: GLFW error " << error << ": " << description << "\n";
}

// Writes the current back buffer as a PNG (OpenGL's rows run bottom-up, PNG's top-down).
bool saveFramebuffer(GLFWwindow* window, const std::string& file) {
    int w = 0;
    int h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    std::vector<unsigned char> pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    const std::filesystem::path path(file);
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    stbi_flip_vertically_on_write(1);
    const int ok = stbi_write_png(file.c_str(), w, h, 3, pixels.data(), w * 3);
    if (ok == 0) {
        std::cerr << "kernel-explorer: cannot write " << file << "\n";
        return false;
    }
    std::cerr << "kernel-explorer: wrote " << file << " (" << w << "x" << h << ")\n";
    return true;
}

// Every input or window event bumps this, so the loop knows whether waking up was for a reason
// (installed before ImGui's callbacks, which chain to them).
unsigned long long g_events = 0;

void countEvents(GLFWwindow* window) {
    glfwSetCursorPosCallback(window, [](GLFWwindow*, double, double) { ++g_events; });
    glfwSetMouseButtonCallback(window, [](GLFWwindow*, int, int, int) { ++g_events; });
    glfwSetScrollCallback(window, [](GLFWwindow*, double, double) { ++g_events; });
    glfwSetKeyCallback(window, [](GLFWwindow*, int, int, int, int) { ++g_events; });
    glfwSetCharCallback(window, [](GLFWwindow*, unsigned) { ++g_events; });
    glfwSetWindowFocusCallback(window, [](GLFWwindow*, int) { ++g_events; });
    glfwSetCursorEnterCallback(window, [](GLFWwindow*, int) { ++g_events; });
    glfwSetWindowSizeCallback(window, [](GLFWwindow*, int, int) { ++g_events; });
    glfwSetWindowRefreshCallback(window, [](GLFWwindow*) { ++g_events; });
}

float g_contentScale = 1.0f;

// Frames drawn after each event, so ImGui's one-frame lags (hover, a popup opening, a layout
// that depends on last frame's size) settle before the app sleeps again.
constexpr int kFramesAfterEvent = 3;
// Asleep, the app still wakes this often to draw results that arrived without an event;
// while a background job will post one soon (a session write), it looks more often.
constexpr double kIdleWakeSeconds = 5.0;
constexpr double kPollWakeSeconds = 0.1;
// Between frames while kernels are timed on the GPU, unless input comes first: on a GPU that also
// draws the window, an unpaced frame loop (no vsync under a virtual X server) made a timed SGEMM
// 25 % slower.
constexpr double kMeasuringFrameSeconds = 0.1;
// While something moves, at most this many frames a second (Xvfb and some drivers ignore vsync).
constexpr double kMaxFps = 60.0;

// [SECTION] Crash report

// A crash leaves its call stack on stderr (addresses resolve with addr2line against the
// unstripped binary), then the signal's default action ends the process as before.
void reportFatalSignal(int signal) {
    const char* name = signal == SIGSEGV ? "SIGSEGV" : signal == SIGABRT ? "SIGABRT" : signal == SIGBUS ? "SIGBUS" : "SIGFPE";
    ::write(STDERR_FILENO, "kernel-explorer: fatal signal ", 30);
    ::write(STDERR_FILENO, name, std::char_traits<char>::length(name));
    ::write(STDERR_FILENO, "; call stack:\n", 14);
    void* frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

void installCrashReport() {
    void* warm[1];
    backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
    for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE}) std::signal(signal, reportFatalSignal);
}

// [SECTION] Start-up

// The command line into opt; an exit code when the program should stop here (--help: 0, a
// mistake: 2), else nullopt.
std::optional<int> parseOptions(int argc, char** argv, Options& opt) {
    CLI::App cli{"kernel-explorer - explore GPU kernel templates: configs, validity, source, PTX, resources"};
    cli.add_option("--screenshot", opt.screenshot, "Render, save a PNG of the window to FILE and exit");
    cli.add_option("--frames", opt.frames, "Frames to render before the --screenshot (default 60)")->check(CLI::NonNegativeNumber);
    cli.add_option("--script", opt.script, "Run the commands in FILE (see app/script.hpp) before the screenshot");
    cli.add_option("--width", opt.width, "Window width (default 1600)")->check(CLI::PositiveNumber);
    cli.add_option("--height", opt.height, "Window height (default 1000)")->check(CLI::PositiveNumber);
    cli.add_option("--session", opt.session,
                   "Work in this session file (.kxs), created when absent (default: the most recent session; a "
                   "temporary one for --screenshot and --script)");
    cli.add_option("--workspace", opt.workspace,
                   "Keep the layout, theme and zoom in this JSON file (default: workspace.json in the user's config folder; "
                   "scripted runs start from the shipped layout and save nothing without this option)");
    cli.add_option("--data-dir", opt.dataDir, "Folder holding templates/ and assets/ (default: found next to the binary)");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "kernel-explorer: " << e.what() << "\n";
        return 2;
    }
    return std::nullopt;
}

// The OpenGL 3 window with its context current, events counted and the monitor's content scale
// followed; nullptr when none can be made. The context reports a GPU reset where the driver can
// (gl_context.hpp).
GLFWwindow* createWindow(int width, int height, bool headless) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    // ImGui draws in painter's order: no depth or stencil buffer, which a software renderer would
    // otherwise clear and carry through every frame.
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    app::hintContextRobustness(true);
    GLFWwindow* window = glfwCreateWindow(width, height, "Kernel Explorer", nullptr, nullptr);
    if (window == nullptr) {
        app::hintContextRobustness(false);
        window = glfwCreateWindow(width, height, "Kernel Explorer", nullptr, nullptr);
    }
    if (window == nullptr) return nullptr;
    glfwMakeContextCurrent(window);
    glfwSwapInterval(headless ? 0 : 1);  // scripted runs go as fast as the renderer allows
    countEvents(window);
    // The monitor's content scale (HiDPI): sizes and fonts follow it, times the user's zoom.
    float sx = 1.0f, sy = 1.0f;
    glfwGetWindowContentScale(window, &sx, &sy);
    g_contentScale = std::clamp(std::max(sx, sy), 0.5f, 4.0f);
    glfwSetWindowContentScaleCallback(window, [](GLFWwindow*, float x, float y) {
        g_contentScale = std::clamp(std::max(x, y), 0.5f, 4.0f);
        ++g_events;
    });
    return window;
}

// GLFW and the first window; nullptr (GLFW terminated) after saying why not.
GLFWwindow* openWindow(const Options& opt, bool headless) {
    glfwSetErrorCallback(glfwErrorCallback);
    if (!glfwInit()) {
        std::cerr << "kernel-explorer: cannot initialise GLFW (no display? try xvfb-run)\n";
        return nullptr;
    }
    GLFWwindow* window = createWindow(opt.width, opt.height, headless);
    if (window == nullptr) {
        std::cerr << "kernel-explorer: cannot create an OpenGL 3 window\n";
        glfwTerminate();
    }
    return window;
}

// The theme as the workspace asks for it (kind, zoom) at the monitor's content scale.
struct Appearance {
    app::Theme theme;
    float appliedScale = 0;

    void apply(const app::WorkspaceSettings& w) {
        theme = app::Theme::ofKind(w.theme);
        appliedScale = w.zoom * g_contentScale;
        theme.setScale(appliedScale);
        theme.applyStyle();
        theme.loadFonts(KX_APP_FONT_DIR);
    }
    bool scaleChanged(const app::WorkspaceSettings& w) const { return appliedScale != w.zoom * g_contentScale; }
};

// The workspace files: the shipped layout, overlaid by the user's file (not for scripted runs,
// whose pictures must not depend on how the user arranged their panels).
struct WorkspaceFiles {
    std::filesystem::path file;  // where the workspace is kept; empty: nowhere
    app::WorkspaceSettings defaults;
    app::WorkspaceSettings settings;
};

WorkspaceFiles loadWorkspace(const Options& opt, const std::filesystem::path& root, bool scripted) {
    const std::filesystem::path defaultsFile = root / "assets" / "layout" / "default.json";
    WorkspaceFiles w;
    w.file = !opt.workspace.empty() ? std::filesystem::path(opt.workspace) : scripted ? std::filesystem::path() : app::userWorkspaceFile();
    std::string warning;
    w.defaults = app::WorkspaceSettings::loadOrDefault(defaultsFile, {}, warning);
    w.settings = app::WorkspaceSettings::loadOrDefault(defaultsFile, w.file, warning);
    if (!warning.empty()) std::cerr << "kernel-explorer: warning: " << warning << "\n";
    return w;
}

// [SECTION] The frame loop

class FrameLoop {
public:
    using Clock = std::chrono::steady_clock;

    FrameLoop(GLFWwindow*& window, const Options& opt, app::ScriptRunner* runner, app::ExplorerModel& model, app::ExplorerApp& explorer,
              Appearance& appearance)
        : m_window(window), m_opt(opt), m_headless(!opt.screenshot.empty()), m_runner(runner), m_model(model), m_explorer(explorer),
          m_appearance(appearance) {}

    // Until the window closes, the app quits, the script fails or --screenshot's picture is
    // written; the exit code.
    int run() {
        m_start = Clock::now();
        m_model.runs().windowRenderer = app::rendererName();
        while (!glfwWindowShouldClose(m_window) && !m_explorer.quitRequested()) {
            // Idle costs nothing: while nothing moves the loop sleeps until an event (or a slow
            // timer, to pick up results that arrive without one); scripts and screenshots
            // never sleep, a script's idle measurement excepted.
            const bool scripted = m_headless || (m_runner && !m_runner->done() && !m_runner->allowsSleep());
            waitForWork(scripted);
            const auto frameStart = Clock::now();
            if (!keepContext()) return 1;
            if (!update()) return 2;
            draw(frameStart);
            if (const std::optional<int> exitCode = takeScreenshots()) return *exitCode;
            glfwSwapBuffers(m_window);
            m_explorer.frameTimes().add(std::chrono::duration<double>(Clock::now() - frameStart).count());
            // Scripted runs render without vsync; while a kernel is timed on the GPU, do not
            // compete with it for the GPU at hundreds of frames a second.
            if (m_headless && m_model.runs().running()) std::this_thread::sleep_for(std::chrono::milliseconds(30));
            // A user's window: no faster than the display needs, vsync or not.
            if (!m_headless && !scripted) std::this_thread::sleep_until(frameStart + std::chrono::duration<double>(1.0 / kMaxFps));
        }
        return 0;
    }

private:
    // A context the GPU reset (or a script's gl-reset) is replaced by a new window of the same
    // size and place before the frame is drawn; false when no new one can be made.
    bool keepContext() {
        std::string why = app::contextResetStatus();
        if (why.empty() && m_runner && m_runner->takeContextResetRequest()) why = "a script's gl-reset";
        if (why.empty()) return true;
        int x = 0, y = 0, w = 0, h = 0;
        glfwGetWindowPos(m_window, &x, &y);
        glfwGetWindowSize(m_window, &w, &h);
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
        glfwDestroyWindow(m_window);
        m_window = createWindow(w, h, m_headless);
        if (m_window == nullptr) {
            std::cerr << "kernel-explorer: the window's OpenGL context was lost (" << why << ") and no new one could be made\n";
            return false;
        }
        glfwSetWindowPos(m_window, x, y);
        ImGui_ImplGlfw_InitForOpenGL(m_window, true);
        ImGui_ImplOpenGL3_Init("#version 130");
        app::nextGlContextGeneration();
        m_model.runs().windowRenderer = app::rendererName();
        m_framesLeft = kFramesAfterEvent;
        std::cerr << "kernel-explorer: the window's OpenGL context was lost (" << why << "); the window was made anew\n";
        return true;
    }

    void waitForWork(bool scripted) {
        const bool moving = scripted || m_framesLeft > 0 || !m_explorer.activity().empty();
        if (m_explorer.measuringOnGpu() && (scripted || m_framesLeft == 0)) glfwWaitEventsTimeout(kMeasuringFrameSeconds);
        else if (moving) glfwPollEvents();
        else glfwWaitEventsTimeout(m_explorer.pollSoon() ? kPollWakeSeconds : kIdleWakeSeconds);
        if (g_events != m_eventsSeen) {
            m_eventsSeen = g_events;
            m_framesLeft = kFramesAfterEvent;
        } else if (m_framesLeft > 0) {
            --m_framesLeft;
        }
    }

    // The appearance, the app and the script's next commands; false when the script failed.
    bool update() {
        // Theme, zoom or the monitor's scale changed: new style and font atlas between frames.
        if (m_explorer.takeAppearanceChange() || m_appearance.scaleChanged(m_explorer.workspace())) {
            m_appearance.apply(m_explorer.workspace());
            ImGui_ImplOpenGL3_DestroyFontsTexture();
            ImGui_ImplOpenGL3_CreateFontsTexture();
            m_framesLeft = kFramesAfterEvent;
        }
        m_explorer.update();
        if (!m_runner) return true;
        try {
            m_runner->step(m_explorer);
        } catch (const app::ScriptError& e) {
            std::cerr << e.what() << "\n";
            return false;
        }
        return true;
    }

    void draw(Clock::time_point frameStart) {
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGuiIO& io = ImGui::GetIO();
        // Scripted shots have no user: keep Xvfb's centred pointer from hovering a line.
        if (m_headless) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        if (m_runner) m_runner->injectInput(m_explorer, io);
        ImGui::NewFrame();
        m_explorer.draw();
        ImGui::Render();
        app::dropHiddenDrawLists(ImGui::GetDrawData());
        m_explorer.buildTimes().add(std::chrono::duration<double>(Clock::now() - frameStart).count());

        int fbW = 0;
        int fbH = 0;
        glfwGetFramebufferSize(m_window, &fbW, &fbH);
        glViewport(0, 0, fbW, fbH);
        const ImVec4 clear = app::Theme::toVec4(m_appearance.theme.palette().windowBg);
        glClearColor(clear.x, clear.y, clear.z, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        ++m_frame;
    }

    // The script's screenshot of this frame, and --screenshot's final one; an exit code when the
    // loop ends here.
    std::optional<int> takeScreenshots() {
        if (m_runner) {
            if (auto shot = m_runner->takeScreenshot())
                if (!saveFramebuffer(m_window, *shot)) return 1;
        }
        if (!m_headless || (m_runner && !m_runner->done())) return std::nullopt;
        // The final shot waits for the compile so it shows PTX and resources, not a spinner.
        const bool waited = Clock::now() - m_start > app::kCompileWaitCap;
        const bool ready = m_frame >= m_opt.frames && (m_model.compileIdle() || waited);
        m_settled = ready ? m_settled + 1 : 0;
        if (m_settled <= app::kSettleFrames) return std::nullopt;
        if (!m_model.compileIdle()) std::cerr << "kernel-explorer: warning: compile still running\n";
        return saveFramebuffer(m_window, m_opt.screenshot) ? 0 : 1;
    }

    GLFWwindow*& m_window;  // main's: a new window after a context reset replaces it there too
    const Options& m_opt;
    const bool m_headless;
    app::ScriptRunner* m_runner;
    app::ExplorerModel& m_model;
    app::ExplorerApp& m_explorer;
    Appearance& m_appearance;
    Clock::time_point m_start;
    int m_frame = 0;
    int m_settled = 0;                    // frames rendered since the final screenshot's conditions held
    int m_framesLeft = kFramesAfterEvent;  // frames to draw before sleeping again
    unsigned long long m_eventsSeen = g_events;
};

}  // namespace

int main(int argc, char** argv) {
    installCrashReport();
    Options opt;
    if (const std::optional<int> exitCode = parseOptions(argc, argv, opt)) return *exitCode;

    // Parse the script before opening a window: a typo should not cost a GL context.
    std::optional<app::ScriptRunner> runner;
    if (!opt.script.empty()) {
        try {
            runner.emplace(app::parseScript(opt.script));
        } catch (const app::ScriptError& e) {
            std::cerr << e.what() << "\n";
            return 2;
        }
    }
    const bool headless = !opt.screenshot.empty();
    const bool scripted = headless || runner;
    GLFWwindow* window = openWindow(opt, headless);
    if (window == nullptr) return 1;

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is ours (WorkspaceSettings), not imgui.ini's
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;

    const std::filesystem::path root = opt.dataDir.empty() ? engine::dataRoot() : std::filesystem::path(opt.dataDir);
    WorkspaceFiles workspace = loadWorkspace(opt, root, scripted);
    Appearance appearance;
    appearance.apply(workspace.settings);

    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 130");

    int exitCode = 0;
    {
        app::ExplorerModel model(root, engine::cacheRoot() / "nvrtc", engine::userTemplatesRoot());
        for (const auto& w : model.loadWarnings()) std::cerr << "kernel-explorer: warning: " << w << "\n";
        app::ExplorerApp explorer(model, appearance.theme, workspace.settings, workspace.defaults, workspace.file);
        if (scripted) model.setPrefetch(false);
        if (!opt.session.empty()) model.session().openOrCreate(opt.session);
        else if (scripted) model.session().openTemporary();  // scripted runs leave no files behind
        else model.session().openDefault();

        exitCode = FrameLoop(window, opt, runner ? &*runner : nullptr, model, explorer, appearance).run();
        explorer.saveWorkspace();
        // Where the user was, for the next start; the session writes it before it closes.
        model.saveEditorStateNow();
    }

    // No window: a lost context could not be replaced, and its backends were already shut down.
    if (window != nullptr) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
        glfwDestroyWindow(window);
    }
    ImGui::DestroyContext();
    glfwTerminate();
    return exitCode;
}
