// kx sweep: a space of a template's configs compiled in parallel, pruned, run on every GPU
// given, with progress on stderr, Ctrl-C keeping what finished, and every config's outcome in
// the session; --emit-slurm writes the same sweep as a Slurm job array instead.
#include "command_options.hpp"
#include "commands.hpp"

#include "analysis/roofline_scene.hpp"
#include "compile/compiler.hpp"
#include "run/calibration.hpp"
#include "store/session_record.hpp"
#include "store/session_store.hpp"
#include "sweep/autotune.hpp"
#include "sweep/preselected.hpp"
#include "sweep/slurm.hpp"
#include "sweep/space.hpp"
#include "sweep/sweep.hpp"
#include "sweep/sweep_record.hpp"
#include "jobs/job_queue.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace kx::cli {
using namespace kx::engine;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// [SECTION] Ctrl-C and SIGTERM: the handler only notes the signal; the main loop cancels the
// sweep. SIGTERM is what `timeout` and batch schedulers send: a sweep stopped by them keeps its
// finished configs (and writes its CSV) as after Ctrl-C.
std::atomic<int> g_stopSignal{0};
extern "C" void onStopSignal(int signal) {
    g_stopSignal.store(signal);
    std::signal(signal, SIG_DFL);  // a second one ends the process at once
}
bool stopAsked() { return g_stopSignal.load() != 0; }

std::string durationText(double seconds) {
    if (seconds < 0) return "?";
    const long long s = static_cast<long long>(seconds + 0.5);
    if (s < 60) return fmt::format("{}s", s);
    if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

// [SECTION] What to sweep

std::vector<int> parseDevices(const std::string& text, int available) {
    std::vector<int> devices;
    if (text == "all") {
        for (int d = 0; d < available; ++d) devices.push_back(d);
        return devices;
    }
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        int d = -1;
        try {
            std::size_t used = 0;
            d = std::stoi(item, &used);
            if (used != item.size()) d = -1;
        } catch (const std::exception&) {
        }
        if (d < 0) throw InputError("--devices expects 'all' or GPU indices such as 0,1; got '" + item + "'");
        if (d >= available)
            throw InputError(fmt::format("--devices {}: this machine has {} GPU{}", d, available, available == 1 ? "" : "s"));
        if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
    }
    if (devices.empty()) throw InputError("--devices names no GPU");
    return devices;
}

// The GPUs of this machine as the runner sees them; empty with *why set when it cannot run.
nlohmann::json gpuList(RunnerClient& runner, std::string* why) {
    const nlohmann::json hello = runner.request({{"cmd", "hello"}}, 30);
    if (!hello.value("ok", false) || !hello.value("driver", false)) {
        *why = hello.value("error", std::string("no NVIDIA driver"));
        return nlohmann::json::array();
    }
    const nlohmann::json devices = listDevices(runner);
    if (!devices.value("ok", false)) {
        *why = devices.value("error", std::string("no CUDA device"));
        return nlohmann::json::array();
    }
    return devices.at("devices");
}

nlohmann::json specJson(const SweepArgs& args, const SweepSpace& space, const Template& tmpl, const Arch& arch, const SizeMap& sizes,
                        std::size_t configs) {
    nlohmann::json axes = nlohmann::json::array();
    for (const SweepAxis& a : space.axes) {
        axes.push_back({{"param", a.param}, {"values", a.values}});
        if (a.flag) axes.back()["flag"] = true;
    }
    nlohmann::json spec = {{"template", tmpl.id()},
                           {"arch", arch.name},
                           {"base", space.bases.front().values},
                           {"flags", space.bases.front().flags.canonical()},
                           {"bases", space.bases.size()},
                           {"axes", axes},
                           {"preselected", args.preselected},
                           {"configs_file", args.configsFile},
                           {"sample", args.sample},
                           {"seed", args.seed},
                           {"sizes", sizes},
                           {"configs", configs},
                           {"compile_only", args.compileOnly},
                           {"reps", args.reps},
                           {"max_spill_bytes", args.allowSpills ? -1 : args.maxSpillBytes},
                           {"max_registers", args.maxRegs}};
    return spec;
}

// [SECTION] Output

// Measured first (fastest first), then compiled, then the rest, each in sweep order.
std::vector<SweepPoint> ordered(std::vector<SweepPoint> points) {
    auto rank = [](const SweepPoint& p) {
        if (p.measured()) return 0;
        if (p.status == PointStatus::Compiled) return 1;
        return 2;
    };
    std::stable_sort(points.begin(), points.end(), [&](const SweepPoint& a, const SweepPoint& b) {
        if (rank(a) != rank(b)) return rank(a) < rank(b);
        if (rank(a) == 0) return a.medianMs() < b.medianMs();
        return a.index < b.index;
    });
    return points;
}

// The REASON column: why a config was pruned or failed; else whether ptxas kept a register cap the
// config asks for (a kernel with __launch_bounds__ may keep more registers than the cap).
std::string pointNote(const SweepPoint& p) {
    if (!p.reason.empty() || !p.resources || !p.compiled || p.config.flags.maxRegisters <= 0) return p.reason;
    const int cap = p.config.flags.maxRegisters;
    if (registerCapOutcome(p.compiled->log, p.name, p.resources->registers, cap) != RegisterCapOutcome::Ignored) return {};
    return fmt::format("register cap {} not kept: {} registers (__launch_bounds__ take precedence)", cap, p.resources->registers);
}

void printTable(const std::vector<SweepPoint>& points, const Template& tmpl, const Arch& arch, bool anyRoof) {
    std::size_t width = 6;
    for (const SweepPoint& p : points) width = std::max(width, p.name.size());
    fmt::print("{:<14} {:<{}} {:>5} {:>6} {:>8} {:>5} {:>9} {:>7}  {:>9} {:>8} {:>6}  {}\n", "STATUS", "CONFIG", width, "REGS", "SPILL",
               "SMEM", "OCC", "WAVES", anyRoof ? "ROOF*" : "", "MS", "TFLOP/S", "%BASE", "REASON");
    for (const SweepPoint& p : points) {
        const PointResources* r = p.resources ? &*p.resources : nullptr;
        const PointPrediction* q = p.prediction ? &*p.prediction : nullptr;
        fmt::print("{:<14} {:<{}} {:>5} {:>6} {:>8} {:>5} {:>9} {:>7}  {:>9} {:>8} {:>6}  {}\n", pointStatusName(p.status), p.name, width,
                   r ? std::to_string(r->registers) : "-", r ? std::to_string(r->spillBytes()) : "-",
                   r ? std::to_string(r->staticSmemBytes + r->dynamicSmemBytes) : "-",
                   q ? fmt::format("{:.0f}%", 100 * q->occupancy) : "-",
                   q && q->waves > 0 ? fmt::format("{} {:.0f}%", q->waves, 100 * q->busyShare) : "-",
                   q && q->rooflineTflops > 0 ? fmt::format("{:.1f}", q->rooflineTflops) : "",
                   p.measured() ? fmt::format("{:.4f}", p.medianMs()) : "-", p.measured() ? fmt::format("{:.2f}", p.run->tflops) : "-",
                   p.pctOfBaseline() > 0 ? fmt::format("{:.1f}", p.pctOfBaseline()) : "-", pointNote(p));
    }
    if (anyRoof)
        for (const SweepPoint& p : points)
            if (p.prediction && p.prediction->rooflineTflops > 0) {
                fmt::print("* ROOF: predicted, not measured: the {} roofline of {} at the template's arithmetic intensity "
                           "({:.1f} FLOP/byte), TFLOP/s; {} for {}\n",
                           unitLabel(p.prediction->rooflineUnit), p.prediction->rooflineDevice, p.prediction->ai, tmpl.id(), arch.name);
                break;
            }
}

// Throws OutputError when the bytes could not all be written (util/output_file.hpp).
void writeText(const std::string& file, const std::string& text) {
    if (file == "-") {
        writeStandardOutput(text);
        return;
    }
    writeOutputFile(file, text);
}

}  // namespace

// [SECTION] Progress on stderr

SweepProgress::SweepProgress(bool quiet, std::string what)
    : m_tty(!quiet && ::isatty(STDERR_FILENO) != 0), m_quiet(quiet), m_what(std::move(what)), m_start(Clock::now()) {}

void SweepProgress::update(const SweepCounts& c, bool final) {
    if (m_quiet) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - m_start).count();
    // Work is compiles and runs; constraint pruning is instant and not counted.
    const int work = c.compilesTotal + c.runsTotal, workDone = c.compilesDone + c.runsDone;
    const double eta = workDone == 0 ? -1 : elapsed * (work - workDone) / workDone;
    const std::string counts = fmt::format("{}/{} configs  measured {}  compiled {}  pruned {}  failed {}", c.done(), c.total, c.measured,
                                           c.compiled, c.pruned, c.compileFailed + c.runFailed);
    if (m_tty) {
        constexpr int kWidth = 28;
        const int filled = c.total > 0 ? kWidth * c.done() / c.total : kWidth;
        std::cerr << fmt::format("\r\033[K{} [{}{}] {}  {} {}", m_what, std::string(static_cast<std::size_t>(filled), '#'),
                                 std::string(static_cast<std::size_t>(kWidth - filled), '.'), counts, final ? "took" : "ETA",
                                 durationText(final ? elapsed : eta));
        if (final) std::cerr << "\n";
        std::cerr.flush();
        return;
    }
    // Plain lines: at each tenth of the way, at most one every 2 s, and the last.
    const int tenth = c.total > 0 ? 10 * c.done() / c.total : 10;
    const bool due = tenth > m_lastTenth && std::chrono::duration<double>(Clock::now() - m_lastLine).count() >= 2.0;
    if (!final && !due) return;
    m_lastTenth = tenth;
    m_lastLine = Clock::now();
    if (final)
        std::cerr << fmt::format("kx: {} {}  took {}\n", m_what, counts, durationText(elapsed));
    else  // the time so far too: a log alone tells where a long sweep spent it
        std::cerr << fmt::format("kx: {} {}  after {}, ETA {}\n", m_what, counts, durationText(elapsed), durationText(eta));
}

// [SECTION] The sweep command's steps

namespace {

using SignalHandler = decltype(SIG_DFL);

// The handlers that were in place before the sweep caught SIGINT and SIGTERM.
struct StopHandlers {
    SignalHandler interrupt = SIG_DFL, terminate = SIG_DFL;
};
StopHandlers catchStopSignals() { return {std::signal(SIGINT, onStopSignal), std::signal(SIGTERM, onStopSignal)}; }
void restoreStopSignals(const StopHandlers& previous) {
    std::signal(SIGINT, previous.interrupt);
    std::signal(SIGTERM, previous.terminate);
}

// The GPUs, unless only compiling (or only writing a Slurm job); `gpus` is also filled for
// --arch native, which names the first GPU's arch.
void findGpus(const SweepArgs& args, RunnerPool& runners, nlohmann::json& gpus, std::vector<int>& devices) {
    const bool wantsGpu = !args.compileOnly && args.emitSlurm.empty();
    if (!wantsGpu && args.variant.arch != "native") return;
    std::string why;
    gpus = gpuList(runners.forDevice(0), &why);
    if (gpus.empty() && wantsGpu) {
        if (args.autotune > 0) throw InputError("--autotune needs an NVIDIA GPU: " + why);
        std::cerr << "kx: cannot run (" << why << "): compiling only; occupancy and roofline figures are predicted\n";
    } else if (wantsGpu) {
        devices = parseDevices(args.devices, static_cast<int>(gpus.size()));
    }
}

// The arch swept for (the first GPU's with --arch native), and the base config for it.
const Arch& sweptArch(const Context& ctx, const SweepArgs& args, const Template& tmpl, const nlohmann::json& gpus,
                      const std::vector<int>& devices, Config& base) {
    std::string archName = args.variant.arch;
    if (archName == "native") {
        if (gpus.empty()) throw InputError("--arch native needs an NVIDIA GPU: name the arch, e.g. --arch sm_90");
        archName = gpus[static_cast<std::size_t>(devices.empty() ? 0 : devices.front())].value("arch", "");
    }
    base = variantConfig(tmpl, args.variant, archName);
    const Arch* arch = nullptr;
    if (args.variant.arch == "native") {
        arch = archForDevice(ctx.arches, archName, tmpl, base);
    } else {
        arch = ctx.arches.findArch(archName);
    }
    if (!arch) throw InputError("unknown arch '" + archName + "' (see 'kx arches')");
    return *arch;
}

// The sizes swept at: a preselected set's problem (else the preset's), under --size. *problemOf
// names the set or preset whose problem it is ("" when neither names one).
SizeMap sweptSizes(const SweepArgs& args, const Template& tmpl, const Arch& arch, std::string* problemOf) {
    if (!args.preselected.empty() || !args.variant.preset.empty()) {
        const auto sets = loadPreselected(tmpl);
        for (const std::string& name : {args.preselected, args.variant.preset}) {
            if (name.empty()) continue;
            const PreselectedSet& set = findPreselected(sets, tmpl, name, arch.name);
            if (set.sizes.empty()) continue;
            *problemOf = (name == args.preselected ? "set " : "preset ") + name + ": " + preselectedSizesText(set);
            return preselectedSizes(tmpl, &set, parseAssignments(args.sizes, "--size"));
        }
    }
    return tmpl.withSizes(parseAssignments(args.sizes, "--size"));
}

// The space's bases: a preselected set and a config list, else the base config alone.
std::vector<Config> spaceBases(const SweepArgs& args, const Template& tmpl, const Config& base, const Arch& arch) {
    std::vector<Config> bases;
    if (!args.preselected.empty()) {
        const auto sets = loadPreselected(tmpl);
        for (Config& c : preselectedConfigs(findPreselected(sets, tmpl, args.preselected, arch.name), base)) bases.push_back(std::move(c));
    }
    if (!args.configsFile.empty())
        for (Config& c : readConfigList(tmpl, base, args.configsFile)) bases.push_back(std::move(c));
    if (bases.empty()) bases.push_back(base);
    return bases;
}

// The configs swept: the space, or a draw from it.
std::vector<Config> sweptConfigs(const SweepArgs& args, const Template& tmpl, const Arch& arch, const SweepSpace& space) {
    if (!args.validOnly) return spaceConfigs(space, args.sample, args.seed);
    // Constraints before the draw: N valid configs, and a line saying how many were left out.
    std::vector<Config> valid;
    const std::vector<Config> all = spaceConfigs(space);
    for (const Config& c : all)
        if (tmpl.validate(c, arch).empty()) valid.push_back(c);
    std::cerr << fmt::format("kx: --valid-only: {} of the space's {} configs break constraints and are left out\n", all.size() - valid.size(),
                             all.size());
    return sampleConfigs(std::move(valid), args.sample, args.seed);
}

// The predicted roofline's device: --roofline-device, else the datasheet of the GPU that runs the
// sweep (or, compiling only with --arch native, the GPU that named the arch) when the database
// has one of its model, else the arch's own device.
SweepOptions sweepOptions(const Context& ctx, const SweepArgs& args, const SizeMap& sizes, const nlohmann::json& gpus,
                          const std::vector<int>& devices, const Arch& arch) {
    SweepOptions options;
    options.sizes = sizes;
    options.compileThreads = args.jobs;
    options.devices = devices;
    options.run.reps = args.reps;
    options.run.warmup = args.warmup;
    options.run.arches = &ctx.arches;
    options.run.timeoutSeconds = args.timeout;
    options.run.baseline = !args.noBaseline;
    options.maxSpillBytes = args.allowSpills ? -1 : args.maxSpillBytes;
    options.maxRegisters = args.maxRegs;
    if (!args.rooflineDevice.empty()) {
        const DeviceSpec* d = ctx.arches.findDevice(args.rooflineDevice);
        if (!d) throw InputError("unknown device '" + args.rooflineDevice + "' for --roofline-device (see assets/devices/)");
        options.rooflineDevice = *d;
    } else {
        const std::size_t gpu = devices.empty() ? 0 : static_cast<std::size_t>(devices.front());
        const DeviceSpec* own = gpu < gpus.size() ? deviceForGpuName(ctx.arches, arch, gpus[gpu].value("name", "")) : nullptr;
        options.rooflineDevice = own ? std::optional<DeviceSpec>(*own) : rooflineDeviceFor(ctx.arches, arch);
    }
    return options;
}

// Runs the sweep on a worker while this thread records what finishes in the session (when there
// is one) and draws the progress; Ctrl-C cancels it. Returns why the session could not be
// written ("" when it could), which also stops the sweep.
std::string runWithProgress(Sweep& sweep, Compiler& compiler, RunnerPool* runners, SessionStore* store, std::int64_t sweepId,
                            const std::string& archName, bool json) {
    JobQueue worker(1);
    std::atomic<bool> finished{false};
    worker.submit("sweep", [&](Job&) {
        try {
            sweep.run(compiler, runners);
        } catch (...) {
        }
        finished.store(true);
    });
    SweepProgress progress(json && !::isatty(STDERR_FILENO), "sweep");
    std::string recordError;
    auto record = [&] {
        for (const SweepPoint& p : sweep.takeFinished()) {
            if (!store || !recordError.empty()) continue;
            try {
                recordSweepPoint(*store, sweepId, archName, p);
            } catch (const std::exception& e) {
                recordError = e.what();  // keep sweeping; say so at the end
                sweep.cancel();
            }
        }
    };
    while (!finished.load()) {
        if (stopAsked() && !sweep.cancelled()) {
            sweep.cancel();
            std::cerr << "\nkx: stopping: the compiles and runs under way finish, the rest is marked not reached\n";
        }
        record();
        progress.update(sweep.counts());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    record();
    progress.update(sweep.counts(), true);
    return recordError;
}

// Autotune: the fastest k again, several interleaved rounds with more repetitions, on one GPU;
// the winner becomes a preset when there is a session. Returns the candidates as JSON.
nlohmann::json autotuneTop(const SweepArgs& args, const Template& tmpl, const Arch& arch, const SizeMap& sizes,
                           const std::vector<SweepPoint>& points, const RunOptions& run, int device, RunnerPool& runners,
                           SessionStore* store, const StopHandlers& previous) {
    RunOptions more = run;
    more.device = device;
    more.reps = args.autotuneReps;
    more.baseline = false;
    RunnerClient& runner = runners.forDevice(device);
    catchStopSignals();
    const AutotuneResult tuned = autotune(
        points, args.autotune, args.autotuneRounds,
        [&](const SweepPoint& p) { return runVariant(runner, tmpl, p.config, arch, sizes, *p.compiled, more); },
        [] { return stopAsked(); });
    restoreStopSignals(previous);
    nlohmann::json out = nlohmann::json::array();
    if (!args.json) fmt::print(stderr, "kx: autotune: top {} re-timed in {} rounds of {} repetitions on GPU {}\n", tuned.candidates.size(),
                               args.autotuneRounds, args.autotuneReps, device);
    for (const AutotuneCandidate& c : tuned.candidates) {
        out.push_back({{"name", c.name}, {"sweep_ms", c.sweepMs}, {"round_ms", c.roundMs}, {"median_ms", c.medianMs},
                       {"min_ms", c.minMs}, {"max_ms", c.maxMs}, {"spread_pct", c.spreadPct}, {"error", c.error}});
        if (!args.json) {
            if (c.error.empty())
                fmt::print(stderr, "  {:<48} {:.4f} ms median of {} rounds (min {:.4f}, max {:.4f}, spread {:.1f}%)\n", c.name, c.medianMs,
                           c.roundMs.size(), c.minMs, c.maxMs, c.spreadPct);
            else
                fmt::print(stderr, "  {:<48} {}\n", c.name, c.error);
        }
    }
    if (tuned.winner >= 0) {
        const AutotuneCandidate& w = tuned.candidates[static_cast<std::size_t>(tuned.winner)];
        const SweepPoint& p = points[w.pointIndex];
        const std::string preset = args.presetName.empty() ? fmt::format("best {} {}", tmpl.id(), arch.name) : args.presetName;
        if (store)
            store->setPreset(preset, arch.name, p.config,
                             fmt::format("autotune winner: {:.4f} ms median of {} rounds (spread {:.1f}%) at {}", w.medianMs,
                                         w.roundMs.size(), w.spreadPct, nlohmann::json(sizes).dump()));
        if (!args.json)
            fmt::print(stderr, "kx: winner {}{}\n  for preselected.xml: {}\n", p.name,
                       store ? " (kept in the session as preset '" + preset + "')" : "", preselectedConfigXml(tmpl, p.config));
    }
    return out;
}

}  // namespace

int sweep(const Context& ctx, const SweepArgs& args) {
    auto tmpl = ctx.templates.find(args.variant.templateId);
    if (!tmpl) throw InputError("unknown template '" + args.variant.templateId + "' (see 'kx templates')");
    (void)tmpl->withSizes(parseAssignments(args.sizes, "--size"));  // a mistyped size is said before the GPUs are looked for
    if (args.autotune > 0 && args.compileOnly) throw InputError("--autotune times configs on a GPU: it cannot go with --compile-only");
    if (!args.csv.empty() && args.json) throw InputError("--csv and --json both write the results: choose one");
    checkVariantArgs(*tmpl, args.variant);  // a mistyped preset or parameter is said before the GPUs are looked for

    RunnerPool runners;
    std::vector<int> devices;
    nlohmann::json gpus = nlohmann::json::array();
    findGpus(args, runners, gpus, devices);
    Config base;
    const Arch* arch = &sweptArch(ctx, args, *tmpl, gpus, devices, base);
    std::string problemOf;
    const SizeMap sizes = sweptSizes(args, *tmpl, *arch, &problemOf);

    const SweepSpace space = makeSpace(*tmpl, spaceBases(args, *tmpl, base, *arch), args.varies);
    std::vector<Config> configs = sweptConfigs(args, *tmpl, *arch, space);
    const std::string uid = args.sweepId.empty() ? newSweepUid() : args.sweepId;
    const std::string name = args.name.empty() ? fmt::format("{} on {}", tmpl->id(), arch->name) : args.name;
    if (!args.emitSlurm.empty()) return emitSlurm(args, sizes, uid, name, configs);

    const SweepOptions options = sweepOptions(ctx, args, sizes, gpus, devices, *arch);
    Sweep sweep(tmpl, *arch, configs, options);

    // The session, checked before anything is compiled.
    std::optional<SessionStore> store;
    std::int64_t sweepId = 0;
    if (!args.session.empty()) {
        checkSessionTarget(args.session);
        std::error_code ec;
        store.emplace(fs::exists(args.session, ec) ? SessionStore::open(args.session) : SessionStore::create(args.session));
        StoredSweep s;
        s.uid = uid;
        s.name = name;
        s.templateId = tmpl->id();
        s.arch = arch->name;
        s.specJson = specJson(args, space, *tmpl, *arch, sizes, configs.size()).dump();
        sweepId = store->findOrAddSweep(s);
        store->setSweepState(sweepId, "running");
    }
    if (!args.json)
        std::cerr << fmt::format("kx: sweeping {} config{} of {} for {} ({} in the space){}\n", configs.size(), configs.size() == 1 ? "" : "s",
                                 tmpl->id(), arch->name, space.size(),
                                 devices.empty() ? ", compile only" : fmt::format(" on {} GPU{}", devices.size(), devices.size() == 1 ? "" : "s"));
    if (!args.json && !problemOf.empty())
        std::cerr << "kx: at the problem of " << problemOf << (args.sizes.empty() ? "" : ", under --size") << "\n";

    Compiler compiler(cacheRoot() / "nvrtc");
    g_stopSignal.store(0);
    const StopHandlers previous = catchStopSignals();
    const std::string recordError = runWithProgress(sweep, compiler, devices.empty() ? nullptr : &runners, store ? &*store : nullptr, sweepId,
                                                    arch->name, args.json);
    restoreStopSignals(previous);
    const bool stopped = sweep.cancelled();
    if (store && recordError.empty()) store->setSweepState(sweepId, stopped ? "stopped" : "finished");

    std::vector<SweepPoint> points = sweep.points();
    nlohmann::json autotuneJson = nullptr;
    if (args.autotune > 0 && !stopped)
        autotuneJson = autotuneTop(args, *tmpl, *arch, sizes, points, options.run, devices.front(), runners, store ? &*store : nullptr, previous);

    if (args.json) {
        nlohmann::json out = {{"sweep", {{"uid", uid}, {"name", name}, {"template", tmpl->id()}, {"arch", arch->name},
                                         {"state", stopped ? "stopped" : "finished"}, {"space_size", space.size()}}}};
        out["points"] = nlohmann::json::array();
        for (const SweepPoint& p : points) out["points"].push_back(sweepPointJson(p));
        out["autotune"] = autotuneJson;
        std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        bool anyRoof = false;
        for (const SweepPoint& p : points) anyRoof = anyRoof || (p.prediction && p.prediction->rooflineTflops > 0);
        printTable(ordered(points), *tmpl, *arch, anyRoof);
    }
    if (!args.csv.empty()) writeText(args.csv, sweepCsv(*tmpl, points));
    if (store && !args.json) std::cerr << "kx: recorded in " << args.session << " (sweep " << uid << ")\n";
    if (!recordError.empty()) {
        std::cerr << "kx: the session could not be written, the sweep was stopped: " << recordError << "\n";
        return 1;
    }
    if (stopped) {
        std::cerr << "kx: stopped: the configs finished so far are kept\n";
        return 128 + (g_stopSignal.load() != 0 ? g_stopSignal.load() : SIGINT);  // 130 after Ctrl-C, 143 after SIGTERM
    }
    return 0;
}

// [SECTION] Command line

void addSweepCommand(CLI::App& app, CommandTable& table) {
    auto sw = std::make_shared<SweepArgs>();
    CLI::App* sweepCmd = app.add_subcommand("sweep", "Compile (and run on every GPU given) a space of a template's configs; every outcome is kept");
    addVariantAndFlagOptions(sweepCmd, sw->variant);
    sweepCmd->add_option("--vary", sw->varies,
                         "Parameter or compiler flag to vary: P (all allowed values), P=v1,v2 or P=lo..hi (repeatable), "
                         "e.g. BM=64,128 or maxrregcount=0,64,128");
    sweepCmd->add_option("--preselected", sw->preselected, "A named set of templates/<id>/preselected.xml");
    sweepCmd->add_option("--configs", sw->configsFile, "File of configs, one KEY=VALUE,... line each (then |FLAGS, as --flag takes them)");
    sweepCmd->add_option("--sample", sw->sample, "Draw this many configs of the space at random");
    sweepCmd->add_option("--seed", sw->seed, "Seed of --sample");
    sweepCmd->add_flag("--valid-only", sw->validOnly, "Leave out configs that break constraints (counted on stderr), then draw --sample");
    addSizeOption(sweepCmd, sw->sizes);
    sweepCmd->add_option("--session", sw->session, "Record every config's outcome in this session file; created when absent");
    sweepCmd->add_option("--name", sw->name, "The sweep's name in the session");
    sweepCmd->add_option("--sweep-id", sw->sweepId, "The sweep's id (shards of one sweep share it and merge into one)");
    auto* sweepCsv = sweepCmd->add_option("--csv", sw->csv, "Write one CSV row per config to FILE ('-': stdout)");
    sweepCmd->add_flag("--json", sw->json, "Every config's result as JSON on stdout")->excludes(sweepCsv);
    sweepCmd->add_option("-j,--jobs", sw->jobs, "Compile threads (default: one per hardware thread)")->check(CLI::Range(1, 1024));
    sweepCmd->add_option("--devices", sw->devices, "GPUs to run on: 0,1 or all (default 0)");
    sweepCmd->add_flag("--compile-only", sw->compileOnly, "Compile and predict only (what runs without a GPU)");
    sweepCmd->add_option("--reps", sw->reps, "Timed repetitions per config")->check(CLI::Range(1, 100000));
    sweepCmd->add_option("--warmup", sw->warmup, "Untimed launches first")->check(CLI::Range(0, 100000));
    sweepCmd->add_option("--timeout", sw->timeout, "Seconds before a hung kernel's runner is killed")->check(CLI::Range(0.1, 86400.0));
    sweepCmd->add_flag("--no-baseline", sw->noBaseline, "Skip the baselines (cuBLAS, CUB, copy)");
    auto* allowSpills = sweepCmd->add_flag("--allow-spills", sw->allowSpills, "Run configs that spill registers (default: pruned)");
    sweepCmd->add_option("--max-spill-bytes", sw->maxSpillBytes, "Prune configs spilling more bytes (default 0)")->excludes(allowSpills);
    sweepCmd->add_option("--max-regs", sw->maxRegs, "Prune configs using more registers per thread")->check(CLI::Range(1, 255));
    sweepCmd->add_option("--roofline-device", sw->rooflineDevice, "Device of the predicted roofline (default: the GPU's own datasheet when kx has it, else the arch's; see assets/devices)");
    sweepCmd->add_option("--autotune", sw->autotune, "Re-time the K fastest in rounds with more repetitions; keep the winner as a preset")
        ->check(CLI::Range(1, 1000));
    sweepCmd->add_option("--autotune-rounds", sw->autotuneRounds, "Rounds per autotune candidate")->check(CLI::Range(1, 100));
    sweepCmd->add_option("--autotune-reps", sw->autotuneReps, "Repetitions per autotune round")->check(CLI::Range(1, 100000));
    sweepCmd->add_option("--save-preset", sw->presetName, "Name of the autotune winner's preset in the session");
    sweepCmd->add_option("--emit-slurm", sw->emitSlurm, "Write a Slurm job array (script and shard lists) to DIR instead of sweeping");
    sweepCmd->add_option("--shards", sw->shards, "Array tasks of --emit-slurm")->check(CLI::Range(1, 100000));
    sweepCmd->add_option("--slurm-time", sw->slurmTime, "Time limit of each array task (#SBATCH --time)");
    table.add(sweepCmd, [sw](Context& ctx) { return sweep(ctx, *sw); });
}

}  // namespace kx::cli
