#include "run/runner_client.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kx::engine {
namespace fs = std::filesystem;

fs::path defaultRunnerPath() {
    if (const char* env = std::getenv("KX_RUNNER"); env && *env) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && fs::exists(exe.parent_path() / "kx-runner", ec)) return exe.parent_path() / "kx-runner";
    return "kx-runner";
}

RunnerClient::RunnerClient(fs::path runnerPath) : m_path(std::move(runnerPath)) {
    // A runner that dies closes its pipe; writing to it must be an error, not a SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
}

RunnerClient::~RunnerClient() { stop(); }

void RunnerClient::stop() {
    // Kill first without the lock: a request in flight holds it while it waits for the reply.
    if (const pid_t pid = m_pid.load(); pid > 0) ::kill(pid, SIGKILL);
    std::unique_lock lock(m_mutex, std::try_to_lock);
    if (lock.owns_lock()) killLocked();
}

void RunnerClient::killLocked() {
    if (const pid_t pid = m_pid.load(); pid > 0) {
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
    }
    if (m_toRunner >= 0) ::close(m_toRunner);
    if (m_fromRunner >= 0) ::close(m_fromRunner);
    m_pid = -1;
    m_toRunner = m_fromRunner = -1;
    m_buffer.clear();
}

bool RunnerClient::start(std::string* error) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
        *error = std::string("cannot create pipes: ") + std::strerror(errno);
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    const std::string path = m_path.string();
    char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
    pid_t pid = -1;
    const int rc = path.find('/') == std::string::npos
                       ? posix_spawnp(&pid, path.c_str(), &actions, nullptr, argv, environ)
                       : posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    if (rc != 0) {
        ::close(in[1]);
        ::close(out[0]);
        *error = "cannot start the GPU runner '" + path + "': " + std::strerror(rc);
        return false;
    }
    m_pid = pid;
    m_toRunner = in[1];
    m_fromRunner = out[0];
    ++m_starts;
    return true;
}

bool RunnerClient::ensureStarted(std::string* error) {
    std::lock_guard lock(m_mutex);
    if (m_pid >= 0) return true;
    if (start(error)) return true;
    killLocked();
    return false;
}

nlohmann::json RunnerClient::request(const nlohmann::json& req, double timeoutSeconds) {
    std::lock_guard lock(m_mutex);
    auto failure = [&](const std::string& message) {
        killLocked();
        return nlohmann::json{{"ok", false}, {"error", message}, {"fatal", true}};
    };
    std::string error;
    if (m_pid < 0 && !start(&error)) return failure(error);

    const std::string line = req.dump() + "\n";
    for (size_t sent = 0; sent < line.size();) {
        const ssize_t n = ::write(m_toRunner, line.data() + sent, line.size() - sent);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return failure("the GPU runner stopped before it took the request");
        sent += static_cast<size_t>(n);
    }

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    for (;;) {
        if (const size_t nl = m_buffer.find('\n'); nl != std::string::npos) {
            const std::string replyLine = m_buffer.substr(0, nl);
            m_buffer.erase(0, nl + 1);
            nlohmann::json reply;
            try {
                reply = nlohmann::json::parse(replyLine);
            } catch (const std::exception&) {
                return failure("the GPU runner answered something that is not JSON: " + replyLine.substr(0, 200));
            }
            // A fatal reply means the runner is exiting; reap it now so the next request starts afresh.
            if (reply.value("fatal", false)) killLocked();
            return reply;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            return failure("the kernel did not finish within " + std::to_string(static_cast<int>(timeoutSeconds)) +
                           " s (it may never end); the GPU runner was stopped and a fresh one will be started");
        }
        pollfd p{m_fromRunner, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        char chunk[65536];
        const ssize_t n = ::read(m_fromRunner, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int status = 0;
            std::string how = "it exited";
            if (const pid_t pid = m_pid.load(); ::waitpid(pid, &status, 0) == pid) {
                m_pid = -1;
                if (WIFSIGNALED(status)) how = std::string("it was killed by signal ") + strsignal(WTERMSIG(status));
                else if (WIFEXITED(status)) how = "it exited with status " + std::to_string(WEXITSTATUS(status));
            }
            return failure("the GPU runner died while running the request (" + how + "); a fresh one will be started");
        }
        m_buffer.append(chunk, static_cast<size_t>(n));
    }
}

RunnerClient& RunnerPool::forDevice(int device) {
    std::lock_guard lock(m_mutex);
    auto& client = m_clients[device];
    if (!client) client = std::make_unique<RunnerClient>(m_path);
    return *client;
}

int RunnerPool::size() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_clients.size());
}

}  // namespace kx::engine
