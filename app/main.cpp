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

}  // namespace

int main(int argc, char** argv) {
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

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is computed, there is nothing to remember
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;

    app::Theme theme = app::Theme::darkProfessional();
    theme.applyStyle();
    theme.loadFonts(KX_APP_FONT_DIR);

    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init(glslVersion);

    int exitCode = 0;
    {
        const std::filesystem::path root = opt.dataDir.empty() ? engine::dataRoot() : std::filesystem::path(opt.dataDir);
        app::ExplorerModel model(root, engine::cacheRoot() / "nvrtc");
        for (const auto& w : model.loadWarnings()) std::cerr << "kernel-explorer: warning: " << w << "\n";
        app::ExplorerApp explorer(model, theme);
        if (headless || runner) model.setPrefetch(false);
        if (!opt.session.empty()) model.session().openOrCreate(opt.session);
        else if (headless || runner) model.session().openTemporary();  // scripted runs leave no files behind
        else model.session().openDefault();

        const auto start = std::chrono::steady_clock::now();
        int frame = 0;
        int settled = 0;  // frames rendered since the final screenshot's conditions held
        while (!glfwWindowShouldClose(window) && !explorer.quitRequested()) {
            glfwPollEvents();
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
            ImGui::NewFrame();
            explorer.draw();
            ImGui::Render();

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
            // Scripted runs render without vsync; while a kernel is timed on the GPU, do not
            // compete with it for the GPU at hundreds of frames a second.
            if (headless && model.runs().running()) std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
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
