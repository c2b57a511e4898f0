// Talks to kx-runner, the process that owns the GPU: spawns it, sends one JSON request per line,
// waits for the reply with a deadline, and kills it when a kernel hangs or the runner dies. The
// next request starts a fresh runner, so no fault reaches the caller's process.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <atomic>
#include <mutex>
#include <string>
#include <sys/types.h>

namespace kx::engine {

// $KX_RUNNER, else kx-runner next to the running executable, else "kx-runner" on PATH.
std::filesystem::path defaultRunnerPath();

class RunnerClient {
public:
    explicit RunnerClient(std::filesystem::path runnerPath = defaultRunnerPath());
    ~RunnerClient();  // stops the runner
    RunnerClient(const RunnerClient&) = delete;
    RunnerClient& operator=(const RunnerClient&) = delete;

    // Sends request and returns the reply. Never throws for runner trouble: when the runner
    // cannot start, dies, or does not answer within timeoutSeconds, it is killed and the reply is
    // {"ok":false,"error":<plain words>,"fatal":true}. Thread-safe (one request at a time).
    nlohmann::json request(const nlohmann::json& request, double timeoutSeconds);

    // Starts the runner unless it is running, so that a caller can say it cannot start before
    // preparing a run's inputs. False, with the reason in *error, when it cannot start.
    // Thread-safe.
    bool ensureStarted(std::string* error);

    // Kills the runner now (a later request starts a new one). Safe from any thread, also while
    // another thread waits in request(): that request then returns the runner's death.
    void stop();

    // How many runners this client has started (a restart after a fault counts).
    int starts() const { return m_starts.load(); }

private:
    bool start(std::string* error);
    void killLocked();

    std::filesystem::path m_path;
    std::mutex m_mutex;
    std::atomic<pid_t> m_pid{-1};
    int m_toRunner = -1;
    int m_fromRunner = -1;
    std::string m_buffer;
    std::atomic<int> m_starts{0};  // read by callers without the request lock
};

// One runner process per GPU, so a fault on one GPU never disturbs work on another.
class RunnerPool {
public:
    explicit RunnerPool(std::filesystem::path runnerPath = defaultRunnerPath()) : m_path(std::move(runnerPath)) {}
    // The client for a device, created on first use. Thread-safe; the reference stays valid.
    RunnerClient& forDevice(int device);
    int size() const;

private:
    std::filesystem::path m_path;
    mutable std::mutex m_mutex;
    std::map<int, std::unique_ptr<RunnerClient>> m_clients;
};

}  // namespace kx::engine
