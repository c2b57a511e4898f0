// kernel-explorer: the GUI. Main loop in the shape of Dear ImGui's example_glfw_opengl3.
//
// Exit codes: 0 success; 1 the window or a screenshot could not be made; 2 bad command line or
// a malformed script ("FILE:LINE: reason" on stderr).
#include "explorer_app.hpp"
#include "explorer_model.hpp"
#include "script.hpp"
#include "theme.hpp"

#include "util/data_paths.hpp"

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
// While something moves, at most this many frames a second (Xvfb and some drivers ignore vsync).
constexpr double kMaxFps = 60.0;

}  // namespace

namespace {

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

}  // namespace

int main(int argc, char** argv) {
    installCrashReport();
    CLI::App cli{"kernel-explorer - explore GPU kernel templates: configs, validity, source, PTX, resources"};
    Options opt;
    cli.add_option("--screenshot", opt.screenshot, "Render, save a PNG of the window to FILE and exit");
    cli.add_option("--frames", opt.frames, "Frames to render before the --screenshot (default 60)")
        ->check(CLI::NonNegativeNumber);
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

    glfwSetErrorCallback(glfwErrorCallback);
    if (!glfwInit()) {
        std::cerr << "kernel-explorer: cannot initialise GLFW (no display? try xvfb-run)\n";
        return 1;
    }
    const char* glslVersion = "#version 130";
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "Kernel Explorer", nullptr, nullptr);
    if (window == nullptr) {
        std::cerr << "kernel-explorer: cannot create an OpenGL 3 window\n";
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(headless ? 0 : 1);  // scripted runs go as fast as the renderer allows
    countEvents(window);
    {
        // The monitor's content scale (HiDPI): sizes and fonts follow it, times the user's zoom.
        float sx = 1.0f, sy = 1.0f;
        glfwGetWindowContentScale(window, &sx, &sy);
        g_contentScale = std::clamp(std::max(sx, sy), 0.5f, 4.0f);
        glfwSetWindowContentScaleCallback(window, [](GLFWwindow*, float x, float y) {
            g_contentScale = std::clamp(std::max(x, y), 0.5f, 4.0f);
            ++g_events;
        });
    }

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is ours (WorkspaceSettings), not imgui.ini's
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;

    const std::filesystem::path root = opt.dataDir.empty() ? engine::dataRoot() : std::filesystem::path(opt.dataDir);
    // The workspace: the shipped layout, overlaid by the user's file (not for scripted runs,
    // whose pictures must not depend on how the user arranged their panels).
    const std::filesystem::path defaultsFile = root / "assets" / "layout" / "default.json";
    const std::filesystem::path workspaceFile =
        !opt.workspace.empty() ? std::filesystem::path(opt.workspace) : (headless || runner) ? std::filesystem::path() : app::userWorkspaceFile();
    std::string workspaceWarning;
    const app::WorkspaceSettings defaults = app::WorkspaceSettings::loadOrDefault(defaultsFile, {}, workspaceWarning);
    app::WorkspaceSettings workspace = app::WorkspaceSettings::loadOrDefault(defaultsFile, workspaceFile, workspaceWarning);
    if (!workspaceWarning.empty()) std::cerr << "kernel-explorer: warning: " << workspaceWarning << "\n";

    app::Theme theme;
    float appliedScale = 0;
    auto applyAppearance = [&](const app::WorkspaceSettings& w) {
        theme = app::Theme::ofKind(w.theme);
        appliedScale = w.zoom * g_contentScale;
        theme.setScale(appliedScale);
        theme.applyStyle();
        theme.loadFonts(KX_APP_FONT_DIR);
    };
    applyAppearance(workspace);

    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init(glslVersion);

    int exitCode = 0;
    {
        app::ExplorerModel model(root, engine::cacheRoot() / "nvrtc", engine::userTemplatesRoot());
        for (const auto& w : model.loadWarnings()) std::cerr << "kernel-explorer: warning: " << w << "\n";
        app::ExplorerApp explorer(model, theme, workspace, defaults, workspaceFile);
        if (headless || runner) model.setPrefetch(false);
        if (!opt.session.empty()) model.session().openOrCreate(opt.session);
        else if (headless || runner) model.session().openTemporary();  // scripted runs leave no files behind
        else model.session().openDefault();

        using Clock = std::chrono::steady_clock;
        const auto start = Clock::now();
        int frame = 0;
        int settled = 0;  // frames rendered since the final screenshot's conditions held
        int framesLeft = kFramesAfterEvent;  // frames to draw before sleeping again
        unsigned long long eventsSeen = g_events;
        while (!glfwWindowShouldClose(window) && !explorer.quitRequested()) {
            // Idle costs nothing: while nothing moves the loop sleeps until an event (or a slow
            // timer, to pick up results that arrive without one); scripts and screenshots
            // never sleep, a script's idle measurement excepted.
            const bool scripted = headless || (runner && !runner->done() && !runner->allowsSleep());
            const bool moving = scripted || framesLeft > 0 || !explorer.activity().empty();
            if (moving) glfwPollEvents();
            else glfwWaitEventsTimeout(explorer.pollSoon() ? kPollWakeSeconds : kIdleWakeSeconds);
            const auto frameStart = Clock::now();
            if (g_events != eventsSeen) {
                eventsSeen = g_events;
                framesLeft = kFramesAfterEvent;
            } else if (framesLeft > 0) {
                --framesLeft;
            }
            // Theme, zoom or the monitor's scale changed: new style and font atlas between frames.
            if (explorer.takeAppearanceChange() || appliedScale != explorer.workspace().zoom * g_contentScale) {
                applyAppearance(explorer.workspace());
                ImGui_ImplOpenGL3_DestroyFontsTexture();
                ImGui_ImplOpenGL3_CreateFontsTexture();
                framesLeft = kFramesAfterEvent;
            }
            explorer.update();
            if (runner) {
                try {
                    runner->step(explorer);
                } catch (const app::ScriptError& e) {
                    std::cerr << e.what() << "\n";
                    exitCode = 2;
                    break;
                }
            }

            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            // Scripted shots have no user: keep Xvfb's centred pointer from hovering a line.
            if (headless) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
            if (runner) runner->injectInput(explorer, io);
            ImGui::NewFrame();
            explorer.draw();
            ImGui::Render();
            explorer.buildTimes().add(std::chrono::duration<double>(Clock::now() - frameStart).count());

            int fbW = 0;
            int fbH = 0;
            glfwGetFramebufferSize(window, &fbW, &fbH);
            glViewport(0, 0, fbW, fbH);
            const ImVec4 clear = app::Theme::toVec4(theme.palette().windowBg);
            glClearColor(clear.x, clear.y, clear.z, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            ++frame;

            if (runner) {
                if (auto shot = runner->takeScreenshot()) {
                    if (!saveFramebuffer(window, *shot)) {
                        exitCode = 1;
                        break;
                    }
                }
            }
            if (headless && (!runner || runner->done())) {
                // The final shot waits for the compile so it shows PTX and resources, not a spinner.
                const bool waited = std::chrono::steady_clock::now() - start > app::kCompileWaitCap;
                const bool ready = frame >= opt.frames && (model.compileIdle() || waited);
                settled = ready ? settled + 1 : 0;
                if (settled > app::kSettleFrames) {
                    if (!model.compileIdle()) std::cerr << "kernel-explorer: warning: compile still running\n";
                    if (!saveFramebuffer(window, opt.screenshot)) exitCode = 1;
                    break;
                }
            }
            glfwSwapBuffers(window);
            explorer.frameTimes().add(std::chrono::duration<double>(Clock::now() - frameStart).count());
            // Scripted runs render without vsync; while a kernel is timed on the GPU, do not
            // compete with it for the GPU at hundreds of frames a second.
            if (headless && model.runs().running()) std::this_thread::sleep_for(std::chrono::milliseconds(30));
            // A user's window: no faster than the display needs, vsync or not.
            if (!headless && !scripted) std::this_thread::sleep_until(frameStart + std::chrono::duration<double>(1.0 / kMaxFps));
        }
        explorer.saveWorkspace();
        // Where the user was, for the next start; the session writes it before it closes.
        model.saveEditorStateNow();
    }

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exitCode;
}
