// Running a sweep: every config of a space validated (violations prune it), the valid ones
// compiled in parallel through the Compiler (its cache reused), pruned again by their resources
// (spills, registers), then run on every GPU given, one runner per GPU taking configs from a
// shared queue. Nothing is dropped: every config ends as a SweepPoint with its outcome and, when
// it did not get to the end, the reason. Without GPUs the sweep stops after compiling, with the
// predicted figures (occupancy, roofline position) that need none.
#pragma once

#include "arch/arch.hpp"
#include "arch/arch_database.hpp"
#include "analysis/roofline.hpp"
#include "compile/compiler.hpp"
#include "run/runner_client.hpp"
#include "run/variant_run.hpp"
#include "templates/template.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

enum class PointStatus {
    Pending,        // not finished yet
    Pruned,         // a constraint is violated, or it spills or uses too many registers
    CompileFailed,  // the compiler refused it
    Compiled,       // compiled; not run (compile-only)
    Measured,       // ran: timed and checked
    RunFailed,      // the run failed (fault, hang, the runner's error)
    NotReached,     // the sweep was stopped before it
};

// "pending", "pruned", "compile_failed", "compiled", "measured", "run_failed", "not_reached";
// the parser throws InputError on other text.
const char* pointStatusName(PointStatus status);
PointStatus parsePointStatus(std::string_view name);

// What ptxas reported for the launched kernel, and its launch.
struct PointResources {
    int registers = 0;
    long long spillStoreBytes = 0;
    long long spillLoadBytes = 0;
    long long staticSmemBytes = 0;
    long long dynamicSmemBytes = 0;
    long long stackFrameBytes = 0;
    int threadsPerBlock = 0;
    int barriers = 0;
    long long spillBytes() const { return spillStoreBytes + spillLoadBytes; }
};

// Predicted from the compile and the template's formulas: never measured.
struct PointPrediction {
    double occupancy = 0;          // 0..1, from CUDA's occupancy calculator
    int blocksPerSm = 0;
    std::string limiter;           // "registers", "shared memory", ...
    // The grid on the roofline device: its waves (a persistent launch: rounds of work units) and
    // the share of those waves' block slots that have work; 0 without a device.
    long long waves = 0;
    double busyShare = 0;
    double ai = 0;                 // FLOP per byte (template formulas: flops / minimum bytes)
    double rooflineTflops = 0;     // attainable at that intensity on the roofline device; 0 unknown
    std::string rooflineDevice;    // "NVIDIA H100 SXM5 80GB"
    std::string rooflineUnit;      // "fp16_tensor"
    bool memoryBound = false;      // below the ridge point
};

struct SweepPoint {
    std::size_t index = 0;         // position in the sweep's config list
    Config config;
    std::string name;              // procedural name
    PointStatus status = PointStatus::Pending;
    std::string reason;            // pruned, failed or not reached: why, in words
    std::vector<std::string> violations;
    std::string source;            // rendered source (valid configs)
    std::shared_ptr<const CompileResult> compiled;  // compiled configs
    std::optional<PointResources> resources;
    std::optional<PointPrediction> prediction;
    double compileMs = 0;
    bool fromCache = false;
    int device = -1;               // the GPU it ran on
    std::optional<RunReport> run;  // measured and run_failed points

    // Measured figures (run ok): median time, TFLOP/s, GB/s; 0 when not measured.
    bool measured() const { return status == PointStatus::Measured && run && run->ok; }
    double medianMs() const { return measured() ? run->medianMs : 0; }
    // The kernel's speed as a percentage of the first baseline timed in its run; 0 when none.
    double pctOfBaseline() const;
    // Measured TFLOP/s as a percentage of the predicted roof at its intensity; 0 when unknown.
    double pctOfRoof() const;
};

struct SweepOptions {
    SizeMap sizes;                 // problem sizes of the runs and predictions
    int compileThreads = 0;        // 0: one per hardware thread
    std::vector<int> devices;      // GPUs to run on, one runner each; empty: compile only
    RunOptions run;                // repetitions, warm-up, timeout, seed, baselines (device set per GPU)
    long long maxSpillBytes = 0;   // prune after compiling when spill stores + loads exceed this; < 0: never
    int maxRegisters = 0;          // prune when registers per thread exceed this; 0: no limit
    std::optional<DeviceSpec> rooflineDevice;  // the roof of the predicted position; none: no position
};

// Counts of a sweep's points so far, for progress displays. done = total - pending.
struct SweepCounts {
    int total = 0;
    int pending = 0;
    int pruned = 0;
    int compileFailed = 0;
    int compiled = 0;       // compile-only points finished, and points compiled awaiting a run
    int measured = 0;
    int runFailed = 0;
    int notReached = 0;
    int compilesDone = 0;   // compiles finished (from the cache or not)
    int compilesTotal = 0;  // configs that passed the constraints
    int runsDone = 0;
    int runsTotal = 0;      // compiled configs that are to run (grows while compiling)
    int done() const { return total - pending; }
};

// The device of the arch for the predicted roofline: the H100 SXM for sm_90, otherwise the
// first device of the same compute capability; none when the database has none.
std::optional<DeviceSpec> rooflineDeviceFor(const ArchDatabase& arches, const Arch& arch);

class Sweep {
public:
    // Throws InputError when the arch cannot be compiled for (AMD, analysis-only) or a config is
    // not of the template.
    Sweep(std::shared_ptr<const Template> tmpl, Arch arch, std::vector<Config> configs, SweepOptions options);

    // Does the whole sweep and returns when it is done or stopped. Call once, from a worker
    // thread (the CLI's main thread is fine). runners is needed when options.devices is not
    // empty. Thread-safe with everything below.
    void run(Compiler& compiler, RunnerPool* runners);

    // Stops the sweep between configs: compiles and runs under way finish, nothing new starts,
    // and the configs not reached end as NotReached. Safe from any thread, and from a signal
    // handler (it only sets an atomic flag).
    void cancel() { m_cancel.store(true); }
    bool cancelled() const { return m_cancel.load(); }

    const Template& templ() const { return *m_tmpl; }
    const Arch& arch() const { return m_arch; }
    const SweepOptions& options() const { return m_options; }

    SweepCounts counts() const;
    // The points that finished since the last call, in the order they finished: the caller
    // records and shows them on its own thread.
    std::vector<SweepPoint> takeFinished();
    // Every point as it stands.
    std::vector<SweepPoint> points() const;

private:
    void finish(SweepPoint point);
    void compileOne(Compiler& compiler, std::size_t index);
    void runWorker(RunnerPool& runners, int device);

    std::shared_ptr<const Template> m_tmpl;
    Arch m_arch;
    SweepOptions m_options;
    std::atomic<bool> m_cancel{false};
    std::optional<RooflineModel> m_roof;  // of options.rooflineDevice

    mutable std::mutex m_mutex;
    std::vector<SweepPoint> m_points;
    std::vector<SweepPoint> m_finished;  // not yet taken
    std::vector<CompileRequest> m_requests;  // by point index (valid points)
    SweepCounts m_counts;

    // Compiled points waiting for a GPU.
    std::condition_variable m_runReady;
    std::deque<std::size_t> m_runQueue;
    int m_compilesLeft = 0;
};

}  // namespace kx::engine
