#include "sweep/sweep.hpp"

#include "run/run_share.hpp"

#include "analysis/occupancy.hpp"
#include "analysis/roofline.hpp"
#include "analysis/tile_layout.hpp"
#include "compile/variant_build.hpp"
#include "jobs/job_queue.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

#include <thread>

namespace kx::engine {

namespace {

// The compiler's first error, else the log's last non-empty line: one line for a table.
std::string compileFailureReason(const CompileResult& r) {
    for (const CompileDiagnostic& d : r.diagnostics)
        if (d.severity == "error") return "compile error: " + d.message + (d.line > 0 ? fmt::format(" (line {})", d.line) : "");
    std::string last;
    std::size_t start = 0;
    while (start < r.log.size()) {
        const std::size_t end = r.log.find('\n', start);
        const std::string line = r.log.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return "compile error: " + (last.empty() ? std::string("the compiler gave no reason") : last);
}

// Fills resources and prediction from the compile; returns why the point is to be pruned, or "".
std::string analyse(SweepPoint& point, const Template& tmpl, const Arch& arch, const SweepOptions& options,
                    const std::optional<RooflineModel>& roof) {
    const LaunchGeometry launch = tmpl.launch(point.config, arch, options.sizes);
    PointResources res;
    res.threadsPerBlock = static_cast<int>(launch.threadsPerBlock());
    res.dynamicSmemBytes = launch.dynamicSmemBytes;
    if (const KernelResources* k = kernelNamed(point.compiled->kernels, launch.kernel)) {
        res.registers = k->registers;
        res.spillStoreBytes = k->spillStoreBytes;
        res.spillLoadBytes = k->spillLoadBytes;
        res.staticSmemBytes = k->sharedBytes;
        res.stackFrameBytes = k->stackFrameBytes;
        res.barriers = k->barriers;
    }
    point.resources = res;

    PointPrediction prediction;
    std::string prune;
    const OccupancyInput in{.registersPerThread = res.registers,
                            .threadsPerBlock = res.threadsPerBlock,
                            .staticSmemBytes = res.staticSmemBytes,
                            .dynamicSmemBytes = res.dynamicSmemBytes,
                            .barriers = res.barriers};
    try {
        const OccupancyResult occ = nvidiaOccupancy(arch, in);
        prediction.occupancy = occ.occupancy;
        prediction.blocksPerSm = occ.blocksPerSm;
        if (!occ.limiters.empty()) prediction.limiter = limiterName(occ.limiters.front());
        if (options.rooflineDevice && options.rooflineDevice->smCount > 0) {
            const WaveModel w = launchWaves(*options.rooflineDevice, launch, occ);
            prediction.waves = w.rounds();
            prediction.busyShare = w.busyShare();
        }
    } catch (const InputError& e) {
        prune = std::string("cannot launch: ") + e.what();
    }
    try {
        const double flops = tmpl.flops(point.config, arch, options.sizes);
        const double bytes = tmpl.minBytes(point.config, arch, options.sizes);
        if (flops > 0 && bytes > 0) {
            RooflinePoint p = predictedPoint(point.name, flops, bytes);
            prediction.ai = p.ai;
            const std::string unit = tmpl.rooflineUnit(point.config, arch);
            if (roof && roof->compute(unit) != nullptr && roof->memory("dram") != nullptr) {
                p = placeOnRoof(*roof, p, unit);
                prediction.rooflineTflops = p.flopsPerSec / 1e12;
                prediction.rooflineDevice = roof->deviceName();
                prediction.rooflineUnit = unit;
                prediction.memoryBound = p.flopsPerSec < roof->compute(unit)->value;
            }
        }
    } catch (const InputError&) {
        // A template without formulas has no predicted position; the point keeps the rest.
    }
    point.prediction = prediction;

    if (!prune.empty()) return prune;
    if (options.maxSpillBytes >= 0 && res.spillBytes() > options.maxSpillBytes)
        return fmt::format("spills {} bytes ({} stored, {} loaded)", res.spillBytes(), res.spillStoreBytes, res.spillLoadBytes);
    if (options.maxRegisters > 0 && res.registers > options.maxRegisters)
        return fmt::format("{} registers per thread, over the limit of {}", res.registers, options.maxRegisters);
    return "";
}

void count(SweepCounts& c, PointStatus status, int delta) {
    switch (status) {
    case PointStatus::Pending: c.pending += delta; break;
    case PointStatus::Pruned: c.pruned += delta; break;
    case PointStatus::CompileFailed: c.compileFailed += delta; break;
    case PointStatus::Compiled: c.compiled += delta; break;
    case PointStatus::Measured: c.measured += delta; break;
    case PointStatus::RunFailed: c.runFailed += delta; break;
    case PointStatus::NotReached: c.notReached += delta; break;
    }
}

}  // namespace

namespace {
const char* const kPointStatusNames[] = {"pending",  "pruned",     "compile_failed", "compiled",
                                         "measured", "run_failed", "not_reached"};
}  // namespace

const char* pointStatusName(PointStatus status) { return enumName(status, kPointStatusNames, "pending"); }

PointStatus parsePointStatus(std::string_view name) {
    return enumNamed<PointStatus>(name, kPointStatusNames, "sweep point status");
}

double SweepPoint::pctOfBaseline() const {
    if (!measured()) return 0;
    const BaselineReport* b = run->primaryBaseline();
    return b && b->speedup > 0 ? 100.0 * b->speedup : 0;
}

double SweepPoint::pctOfRoof() const {
    if (!measured() || !prediction || prediction->rooflineTflops <= 0) return 0;
    return 100.0 * run->tflops / prediction->rooflineTflops;
}

std::optional<DeviceSpec> rooflineDeviceFor(const ArchDatabase& arches, const Arch& arch) {
    auto matches = [&](const DeviceSpec& d) {
        const Arch* da = arches.findArch(d.arch);
        return da != nullptr && da->vendor == arch.vendor && da->nv.computeMajor == arch.nv.computeMajor &&
               da->nv.computeMinor == arch.nv.computeMinor;
    };
    if (const DeviceSpec* sxm = arches.findDevice("h100_sxm"); sxm != nullptr && matches(*sxm)) return *sxm;
    for (const DeviceSpec& d : arches.devices())
        if (matches(d)) return d;
    return std::nullopt;
}

Sweep::Sweep(std::shared_ptr<const Template> tmpl, Arch arch, std::vector<Config> configs, SweepOptions options)
    : m_tmpl(std::move(tmpl)), m_arch(std::move(arch)), m_options(std::move(options)) {
    if (m_arch.vendor != Vendor::Nvidia) throw InputError("sweeps compile with NVRTC: " + m_arch.name + " is not an NVIDIA arch");
    if (!m_arch.compilable)
        throw InputError(m_arch.name + " is for analysis only: this NVRTC (" + nvrtcVersionString() + ") cannot compile for it");
    if (m_options.sizes.empty()) m_options.sizes = m_tmpl->defaultSizes();
    m_points.reserve(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) {
        if (configs[i].templateId != m_tmpl->id())
            throw InputError("a config of '" + configs[i].templateId + "' in a sweep of '" + m_tmpl->id() + "'");
        SweepPoint p;
        p.index = i;
        p.config = std::move(configs[i]);
        p.name = m_tmpl->configName(p.config);
        m_points.push_back(std::move(p));
    }
    m_requests.resize(m_points.size());
    m_counts.total = m_counts.pending = static_cast<int>(m_points.size());
}

SweepCounts Sweep::counts() const {
    std::lock_guard lock(m_mutex);
    return m_counts;
}

std::vector<SweepPoint> Sweep::takeFinished() {
    std::lock_guard lock(m_mutex);
    std::vector<SweepPoint> out;
    out.swap(m_finished);
    return out;
}

std::vector<SweepPoint> Sweep::points() const {
    std::lock_guard lock(m_mutex);
    return m_points;
}

void Sweep::finish(SweepPoint point) {
    std::lock_guard lock(m_mutex);
    SweepPoint& slot = m_points.at(point.index);
    count(m_counts, slot.status, -1);
    count(m_counts, point.status, +1);
    slot = point;
    m_finished.push_back(std::move(point));
}

void Sweep::compileOne(Compiler& compiler, std::size_t index) {
    SweepPoint point;
    {
        std::lock_guard lock(m_mutex);
        point = m_points[index];
    }
    CompileResult result;
    try {
        result = compiler.compile(m_requests[index]);
    } catch (const std::exception& e) {
        result.ok = false;
        result.log = e.what();
    }
    point.compiled = std::make_shared<const CompileResult>(result);
    point.compileMs = result.compileMs;
    point.fromCache = result.fromCache;
    bool toRun = false;
    if (!result.ok || !result.assembled) {
        point.status = PointStatus::CompileFailed;
        point.reason = compileFailureReason(result);
    } else {
        try {
            point.reason = analyse(point, *m_tmpl, m_arch, m_options, m_roof);
        } catch (const std::exception& e) {
            point.reason = std::string("cannot analyse: ") + e.what();
        }
        if (!point.reason.empty()) point.status = PointStatus::Pruned;
        else if (m_options.devices.empty()) point.status = PointStatus::Compiled;
        else toRun = true;
    }
    std::lock_guard lock(m_mutex);
    ++m_counts.compilesDone;
    --m_compilesLeft;
    if (toRun) {
        // Kept as compiled until a GPU takes it, so the table can show its resources already.
        SweepPoint& slot = m_points[index];
        count(m_counts, slot.status, -1);
        point.status = PointStatus::Pending;
        slot = point;
        count(m_counts, slot.status, +1);
        ++m_counts.runsTotal;
        m_runQueue.push_back(index);
    } else {
        count(m_counts, m_points[index].status, -1);
        count(m_counts, point.status, +1);
        m_points[index] = point;
        m_finished.push_back(std::move(point));
    }
    m_runReady.notify_all();
}

void Sweep::runWorker(RunnerPool& runners, int device) {
    RunOptions options = m_options.run;
    options.device = device;
    // Every config of the sweep reads the same inputs and is compared with the same baselines:
    // generated and timed once per GPU.
    options.share = std::make_shared<RunShare>();
    RunnerClient& runner = runners.forDevice(device);
    // Sizes whose buffers cannot fit the device are refused before inputs are made.
    const nlohmann::json devices = listDevices(runner);
    if (devices.value("ok", false) && devices.contains("devices") && device < static_cast<int>(devices["devices"].size()))
        options.deviceMemoryBytes = devices["devices"][device].value("memory_bytes", 0LL);
    for (;;) {
        std::size_t index = 0;
        SweepPoint point;
        {
            std::unique_lock lock(m_mutex);
            m_runReady.wait(lock, [&] { return cancelled() || !m_runQueue.empty() || m_compilesLeft == 0; });
            if (cancelled() || m_runQueue.empty()) return;
            index = m_runQueue.front();
            m_runQueue.pop_front();
            point = m_points[index];
        }
        point.device = device;
        RunReport report = runVariant(runner, *m_tmpl, point.config, m_arch, m_options.sizes, *point.compiled, options);
        if (!report.ok) {
            point.status = PointStatus::RunFailed;
            point.reason = "run failed: " + report.error;
        } else if (report.correctness.verdict() == Verdict::Fail) {
            // Timed, but a wrong answer fast is no answer: it does not compete.
            point.status = PointStatus::RunFailed;
            point.reason = "wrong results: " +
                           (report.correctness.firstBadText.empty() ? fmt::format("max error {:.3g} over tolerance {:.3g}",
                                                                                  report.correctness.maxRelError, report.correctness.tolerance)
                                                                    : "first mismatch " + report.correctness.firstBadText);
        } else {
            point.status = PointStatus::Measured;
        }
        point.run = std::move(report);
        {
            std::lock_guard lock(m_mutex);
            ++m_counts.runsDone;
        }
        finish(std::move(point));
    }
}

void Sweep::run(Compiler& compiler, RunnerPool* runners) {
    if (!m_options.devices.empty() && runners == nullptr) throw InputError("a sweep on GPUs needs runners");
    if (m_options.rooflineDevice) m_roof.emplace(*m_options.rooflineDevice);

    // Constraints first: cheap, and they decide how many compiles there will be.
    std::vector<std::size_t> valid;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        SweepPoint point;
        {
            std::lock_guard lock(m_mutex);
            point = m_points[i];
        }
        try {
            PreparedVariant prepared = prepareVariant(*m_tmpl, point.config, m_arch);
            for (const Violation& v : prepared.violations) point.violations.push_back(v.message);
            point.source = std::move(prepared.source);
            if (!point.violations.empty()) {
                point.status = PointStatus::Pruned;
                point.reason = "violates " + std::to_string(point.violations.size()) + " constraint" +
                               (point.violations.size() == 1 ? "" : "s") + ": " + point.violations.front();
                for (std::size_t v = 1; v < point.violations.size(); ++v) point.reason += "; " + point.violations[v];
                finish(std::move(point));
                continue;
            }
            m_requests[i] = std::move(prepared.request);
        } catch (const InputError& e) {
            point.status = PointStatus::CompileFailed;
            point.reason = std::string("cannot render: ") + e.what();
            finish(std::move(point));
            continue;
        }
        {
            std::lock_guard lock(m_mutex);
            m_points[i].source = point.source;
        }
        valid.push_back(i);
    }
    {
        std::lock_guard lock(m_mutex);
        m_compilesLeft = static_cast<int>(valid.size());
        m_counts.compilesTotal = m_compilesLeft;
    }

    // Every job lowers `jobsLeft`: the JobQueues are destroyed (joined) only after all ran.
    std::mutex doneMutex;
    std::condition_variable doneSignal;
    int jobsLeft = static_cast<int>(valid.size() + m_options.devices.size());
    auto jobDone = [&] {
        std::lock_guard lock(doneMutex);
        --jobsLeft;
        doneSignal.notify_all();
    };
    const int threads = m_options.compileThreads > 0 ? m_options.compileThreads
                                                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    JobQueue compilers(threads);
    std::optional<JobQueue> gpus;
    if (!m_options.devices.empty()) gpus.emplace(static_cast<int>(m_options.devices.size()));
    for (std::size_t index : valid) {
        compilers.submit("compile " + m_points[index].name, [this, &compiler, index, &jobDone](Job&) {
            if (!cancelled()) {
                try {
                    compileOne(compiler, index);
                } catch (...) {
                }
            }
            if (cancelled()) {
                std::lock_guard lock(m_mutex);
                m_runReady.notify_all();
            }
            jobDone();
        });
    }
    for (int device : m_options.devices) {
        gpus->submit("run on GPU " + std::to_string(device), [this, runners, device, &jobDone](Job&) {
            try {
                runWorker(*runners, device);
            } catch (...) {
            }
            jobDone();
        });
    }
    {
        std::unique_lock lock(doneMutex);
        doneSignal.wait(lock, [&] { return jobsLeft == 0; });
    }

    // Whatever did not finish was not reached: say so, never drop it.
    std::lock_guard lock(m_mutex);
    for (SweepPoint& p : m_points) {
        if (p.status != PointStatus::Pending) continue;
        count(m_counts, p.status, -1);
        p.status = PointStatus::NotReached;
        p.reason = p.compiled ? "not run: the sweep was stopped" : "not compiled: the sweep was stopped";
        count(m_counts, p.status, +1);
        m_finished.push_back(p);
    }
    m_runQueue.clear();
}

}  // namespace kx::engine
