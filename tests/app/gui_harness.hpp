// Running the real kernel-explorer under Xvfb in scripted mode, for the GUI tests.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kx::test {

namespace fs = std::filesystem;

inline const fs::path kAppBinary = fs::path(KX_TEST_BINARY_DIR) / "bin" / "kernel-explorer";

inline bool haveXvfbRun() { return std::system("command -v xvfb-run >/dev/null 2>&1") == 0; }

// A fresh folder per test case, removed at the end.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) {
        path = fs::temp_directory_path() / ("kx_test_app_" + std::to_string(::getpid()) + "_" + name);
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

inline std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct RunResult {
    int exitCode = -1;
    std::string stderrText;
};

// Runs the app under xvfb-run with the given arguments; stderr is captured. `env` is put before
// the command ("HOME=/tmp/x XDG_CONFIG_HOME=...").
inline RunResult runApp(const TempDir& dir, const std::string& args, const std::string& env = "") {
    const fs::path err = dir.path / "stderr.txt";
    // The X authority file lives in the test's own folder: left to itself, xvfb-run makes a
    // temporary folder for it and, when removing that folder fails while parallel tests start and
    // stop X servers, exits 5 in place of the app's exit status.
    const std::string cmd = (env.empty() ? std::string() : "env " + env + " ") + "xvfb-run -a -f '" + (dir.path / "Xauthority").string() +
                            "' -s \"-screen 0 1600x1000x24\" '" + kAppBinary.string() + "' " + args + " 2> '" + err.string() + "' > /dev/null";
    RunResult r;
    // xvfb-run -a picks a free display by looking, so two tests starting at once may pick the
    // same one and one X server fails to start: that is the harness's trouble, try again.
    for (int attempt = 0; attempt < 3; ++attempt) {
        const int status = std::system(cmd.c_str());
        r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.stderrText = readFile(err);
        if (r.stderrText.find("Xvfb failed to start") == std::string::npos) break;
    }
    return r;
}

inline fs::path writeScript(const TempDir& dir, const std::string& text) {
    const fs::path p = dir.path / "scenario.script";
    std::ofstream(p) << text;
    return p;
}

}  // namespace kx::test
