// Runs on the GPU, for the app: the runner's status (which GPU, or why there is none), the
// problem sizes the user typed, the run in flight, and the history of runs per variant.
//
// Runs happen on a JobQueue worker through kx-runner (engine/run); results come back through a
// Mailbox drained by update() on the UI thread. A fault or a hang kills only the runner process:
// the report says what happened and the next run starts a fresh runner. Not thread-safe: call
// everything from the UI thread.
#pragma once

#include "analysis/roofline.hpp"
#include "jobs/job_queue.hpp"
#include "run/variant_run.hpp"
#include "sweep/preselected.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kx::app {

struct RunRecord {
    std::string variant;        // procedural config name
    std::string arch;
    engine::RunReport report;
    std::string when;           // local time: "14:03:12" today, else "2026-11-21 14:03"
};

// A run that ended, with what the session needs to keep it and its variant.
struct FinishedRun {
    std::string arch;
    engine::Config config;
    std::string source;
    std::shared_ptr<const engine::CompileResult> compiled;
    engine::RunReport report;
    bool cancelled = false;
};

enum class RunnerState { Probing, Ready, Unavailable };

class RunModel {
public:
    // Probes the runner in the background (which GPU is there, if any).
    explicit RunModel(std::filesystem::path runnerPath = engine::defaultRunnerPath());
    ~RunModel();
    RunModel(const RunModel&) = delete;
    RunModel& operator=(const RunModel&) = delete;

    // The device database the runs' roof shares are taken from (RunReport::pctOfRoof); none
    // until set.
    void setArchDatabase(const engine::ArchDatabase* arches) { m_arches = arches; }

    RunnerState runnerState() const { return m_state; }
    const std::string& deviceName() const { return m_deviceName; }
    const std::string& deviceArch() const { return m_deviceArch; }   // "sm_90"
    const std::string& unavailableReason() const { return m_unavailable; }

    // Size text per size name; edited by the Run view, reset to the template's defaults when
    // the template changes.
    std::map<std::string, std::string>& sizeText() { return m_sizeText; }
    const std::map<std::string, std::string>& sizeText() const { return m_sizeText; }
    void resetSizes(const engine::Template& tmpl);
    const std::string& sizesTemplate() const { return m_sizesTemplate; }
    // Sets the sizes to the problem a preselected set names (the template's defaults under it, so
    // that nothing of another problem stays) and notes whose they are; nothing when it names none.
    void usePresetSizes(const engine::Template& tmpl, const engine::PreselectedSet& set);
    // That preset's name while the sizes are still the ones it set; empty after any edit.
    std::string presetSizes() const { return m_sizeText == m_presetSizeText ? m_presetSizes : std::string(); }

    int reps = 20;
    // Count each run's DRAM, L2 and L1 bytes with the hardware counters (CUPTI), so that its
    // roofline points sit at measured intensities.
    bool memoryCounters = true;
    double timeoutSeconds = 10;
    // The OpenGL renderer that draws the window (GL_RENDERER, "NVIDIA H200/PCIe/SSE2"); set by
    // the frame loop. A window drawn by the GPU that runs the kernels may not survive the
    // driver's recovery from a fault (README, "Reliability"): the Run panel says so then.
    std::string windowRenderer;
    // True when windowRenderer names this machine's GPU.
    bool windowDrawnByRunGpu() const;

    // Starts a run of a compiled variant. Throws engine::InputError on bad sizes (nothing starts).
    void start(std::shared_ptr<const engine::Template> tmpl, const engine::Config& config, const engine::Arch& arch,
               const engine::CompileResult& compiled, const std::string& source);
    // Launches one of the runner's planted faulty kernels ("out_of_bounds", "trap", "hang"), to
    // see that a faulting kernel costs only the runner process. Its report enters the history
    // under the variant name "planted fault: KIND"; it is not kept in the session.
    void startPlantedFault(const std::string& kind);
    // Kills the runner; the run in flight ends with "cancelled".
    void cancel();
    bool running() const { return m_job && !m_job->finished(); }
    // A run started and its result not yet in the history and handed to the session: longer than
    // running(), whose job ends before the UI thread has taken the result.
    bool unsettled() const { return m_runsStarted != m_runsLanded || !m_finished.empty(); }
    std::string stage() const;               // what the run in flight is doing
    double runningSeconds() const;

    // Every run of the variant, newest first.
    std::vector<const RunRecord*> historyFor(const std::string& variant) const;
    const RunRecord* latestFor(const std::string& variant) const;
    const std::vector<RunRecord>& history() const { return m_history; }
    // Replaces the history (with the runs of a session that was opened), oldest first.
    void setHistory(std::vector<RunRecord> history) { m_history = std::move(history); }
    // Runs that ended since the last call, oldest first, for the session to keep.
    std::vector<FinishedRun> takeFinished() { return std::exchange(m_finished, {}); }
    // Runs landed and not yet taken: the last ones of the history that are not planted faults.
    std::size_t pendingFinished() const { return m_finished.size(); }
    // Measured roofline points of the variant's successful runs.
    std::vector<engine::RooflinePoint> pointsFor(const std::string& variant) const;

    void update();  // once per frame on the UI thread

private:
    std::shared_ptr<engine::RunnerClient> m_runner;
    RunnerState m_state = RunnerState::Probing;
    std::string m_deviceName, m_deviceArch, m_unavailable;
    long long m_deviceMemoryBytes = 0;  // 0 until the runner has listed the device
    const engine::ArchDatabase* m_arches = nullptr;
    std::map<std::string, std::string> m_sizeText;
    std::string m_sizesTemplate;
    std::string m_presetSizes;
    std::map<std::string, std::string> m_presetSizeText;
    std::vector<RunRecord> m_history;
    std::vector<FinishedRun> m_finished;
    std::shared_ptr<engine::Job> m_job;
    std::chrono::steady_clock::time_point m_started;
    bool m_cancelled = false;
    std::uint64_t m_runsStarted = 0, m_runsLanded = 0;  // landed: the result is in the history

    engine::Mailbox m_mailbox;
    engine::JobQueue m_jobs{1};  // last: joins before the mailbox goes
};

}  // namespace kx::app
