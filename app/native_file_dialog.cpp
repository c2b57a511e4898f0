#include "native_file_dialog.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

extern char** environ;

namespace kx::app {

namespace fs = std::filesystem;

namespace {

bool onPath(const std::string& program) {
    const char* path = std::getenv("PATH");
    if (path == nullptr) return false;
    std::string dirs = path;
    std::size_t start = 0;
    while (start <= dirs.size()) {
        const std::size_t end = dirs.find(':', start);
        const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!dir.empty() && ::access((fs::path(dir) / program).c_str(), X_OK) == 0) return true;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return false;
}

struct Outcome {
    bool ran = false;
    int status = -1;
    std::string output;
    std::string error;
};

// Runs argv (no shell: names with spaces or quotes pass as they are) and returns its stdout.
Outcome capture(const std::vector<std::string>& argv) {
    Outcome out;
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        out.error = std::strerror(errno);
        return out;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    if (rc != 0) {
        ::close(pipeFds[0]);
        out.error = std::strerror(rc);
        return out;
    }
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
        if (n > 0) out.output.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(pipeFds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.ran = true;
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    while (!out.output.empty() && (out.output.back() == '\n' || out.output.back() == '\r')) out.output.pop_back();
    return out;
}

}  // namespace

fs::path withSessionExtension(fs::path file) {
    if (!file.empty() && !file.has_extension()) file += ".kxs";
    return file;
}

NativeFileDialog::NativeFileDialog() {
    if (const char* env = std::getenv("KX_NATIVE_DIALOGS"); env != nullptr && std::string(env) == "0") return;
    // A dialog program needs a desktop to show on.
    if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) return;
    if (onPath("zenity")) m_program = "zenity";
    else if (onPath("kdialog")) m_program = "kdialog";
}

NativeFileDialog::~NativeFileDialog() = default;

bool NativeFileDialog::request(FileRequest request) {
    if (!available() || busy()) return false;
    m_error.clear();
    std::vector<std::string> argv;
    const bool save = request.mode == FileRequest::Mode::Save;
    const fs::path start = request.folder / (save ? request.suggestedName : std::string());
    if (m_program == "zenity") {
        argv = {"zenity", "--file-selection", "--title=" + request.title, "--filename=" + start.string(),
                "--file-filter=Kernel Explorer sessions (*.kxs) | *.kxs", "--file-filter=All files | *"};
        if (save) {
            argv.push_back("--save");
            argv.push_back("--confirm-overwrite");
        }
    } else {
        argv = {"kdialog", "--title", request.title, save ? "--getsavefilename" : "--getopenfilename", start.string(),
                "*.kxs|Kernel Explorer sessions"};
    }
    engine::Mailbox* mailbox = &m_mailbox;
    m_job = m_jobs.submit("file dialog", [this, argv, request = std::move(request), save, mailbox](engine::Job&) {
        Outcome out = capture(argv);
        // Runs on the UI thread in update(); `this` outlives the queue.
        mailbox->post([this, out, request, save] {
            if (!out.ran) {
                m_error = m_program + " could not be started: " + out.error;
                return;
            }
            // Exit 1 is "cancelled" for both programs.
            if (out.status != 0 || out.output.empty()) return;
            fs::path file = out.output;
            if (save) file = withSessionExtension(file);
            if (request.onChosen) request.onChosen(file);
        });
    });
    return true;
}

void NativeFileDialog::update() { m_mailbox.drain(); }

}  // namespace kx::app
