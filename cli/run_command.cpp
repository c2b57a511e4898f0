#include "command_options.hpp"
#include "commands.hpp"

#include "analysis/roofline_scene.hpp"

#include "analysis/pc_attribution.hpp"
#include "analysis/tile_layout.hpp"
#include "compile/variant_build.hpp"
#include "run/calibration.hpp"
#include "run/run_limits.hpp"
#include "run/run_report_json.hpp"
#include "run/variant_run.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/text.hpp"
#include "util/time_text.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <iostream>
#include <optional>

namespace kx::cli {
using namespace kx::engine;

namespace {

// The device's facts from the runner, or an error that says running needs a driver.
nlohmann::json deviceInfo(RunnerClient& runner, int device) {
    const nlohmann::json hello = runner.request({{"cmd", "hello"}}, 30);
    if (!hello.value("ok", false)) throw std::runtime_error(hello.value("error", std::string("the GPU runner did not start")));
    if (!hello.value("driver", false)) throw std::runtime_error(hello.value("error", std::string("no CUDA driver")));
    const nlohmann::json devices = listDevices(runner);
    if (!devices.value("ok", false)) throw std::runtime_error(devices.value("error", std::string("no CUDA device")));
    const auto& list = devices.at("devices");
    if (device < 0 || device >= static_cast<int>(list.size()))
        throw InputError("--device " + std::to_string(device) + " does not exist (this machine has " + std::to_string(list.size()) + ")");
    return list[static_cast<size_t>(device)];
}

// deviceInfo for a command that cannot go on without the device: an unknown --device is the
// caller's mistake (InputError goes on up); any other failure is said on stderr ("kx: cannot
// run: no CUDA driver"), and the result is empty.
std::optional<nlohmann::json> deviceOrExplain(RunnerClient& runner, int device, const char* verb) {
    try {
        return deviceInfo(runner, device);
    } catch (const InputError&) {
        throw;
    } catch (const std::exception& e) {
        std::cerr << "kx: cannot " << verb << ": " << e.what() << "\n";
        return std::nullopt;
    }
}

// A CUBIN for sm_XY runs on compute capability X.Z with Z >= Y; arch-specific code (sm_90a)
// only on X.Y itself. capability: the runner's "9.0".
bool cubinRunsOn(const Arch& arch, const std::string& capability) {
    if (arch.vendor != Vendor::Nvidia) return false;
    const size_t dot = capability.find('.');
    if (dot == std::string::npos) return true;  // an older runner: let the driver judge
    const int major = std::atoi(capability.substr(0, dot).c_str()), minor = std::atoi(capability.substr(dot + 1).c_str());
    if (arch.name.ends_with('a') || arch.name.ends_with('f')) return major == arch.nv.computeMajor && minor == arch.nv.computeMinor;
    return major == arch.nv.computeMajor && minor >= arch.nv.computeMinor;
}

std::string sizesText(const SizeMap& sizes) {
    std::string text;
    for (const auto& [k, v] : sizes) text += (text.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return text;
}

void printReport(const RunReport& r, const std::string& archName) {
    fmt::print("{} on {} ({}), {}\n", r.variant, r.deviceName, archName, sizesText(r.sizes));
    const CorrectnessReport& c = r.correctness;
    fmt::print("  correctness   {}  {}\n", verdictText(c.verdict()), c.method);
    fmt::print("                max error {:.3g} abs, {:.3g} relative to the terms' scale (tolerance {:.3g}){}\n", c.maxAbsError,
               c.maxRelError, c.tolerance, c.baselineCompared ? fmt::format("; vs the baseline's output {:.3g}", c.baselineMaxRelDiff) : "");
    if (c.firstBadIndex >= 0) fmt::print("                first mismatch: {}\n", c.firstBadText);
    if (c.baselineCompared && !c.baselineAgrees) fmt::print("                the kernel disagrees with the baseline's output beyond tolerance\n");
    fmt::print("  time          {:.4f} ms median (min {:.4f}, max {:.4f}; {} reps{}, {} input set{})\n", r.medianMs, r.minMs, r.maxMs,
               r.reps, r.rounds > 1 ? fmt::format(" in {} rounds with the baselines", r.rounds) : "", r.rotationSets,
               r.rotationSets == 1 ? "" : "s");
    if (const std::optional<WaveModel> w = runWaves(r)) fmt::print("  waves         {}\n", wavesSentence(*w));
    else if (r.persistentBlocks > 0) fmt::print("  persistent    {} blocks, one wave, each walking its share of the work\n", r.persistentBlocks);
    fmt::print("  throughput    {:.2f} TFLOP/s   {:.1f} GB/s (minimum bytes)\n", r.tflops, r.gbps);
    if (r.pctOfRoof) fmt::print("  of roof       {:.1f}% ({})\n", *r.pctOfRoof, r.roofName);
    if (r.pctOfComputeCeiling) fmt::print("  of ceiling    {:.1f}% of {}\n", *r.pctOfComputeCeiling, r.computeCeilingName);
    if (r.pctOfCopyBandwidth) fmt::print("  of ceiling    {:.1f}% of calibrated copy bandwidth\n", *r.pctOfCopyBandwidth);
    for (const BaselineReport& b : r.baselines) {
        if (!b.ok()) {
            fmt::print("  baseline      {}: not run ({})\n", b.name, b.error);
            continue;
        }
        const std::string rate = b.tflops > 0 ? fmt::format("{:.2f} TFLOP/s", b.tflops) : fmt::format("{:.1f} GB/s", b.gbps);
        const std::string sets = b.rotationSets > 1 ? fmt::format(" (the same {} input sets)", b.rotationSets) : std::string();
        fmt::print("  baseline      {} {:.4f} ms, {}{}: the kernel runs at {:.1f}% of its speed\n", b.name, b.medianMs, rate, sets, 100.0 * b.speedup);
    }
}

// The instructions with the most samples, with their share and top stall reasons.
void printPcSampling(const PcSamplingReport& p, const CompileResult& compiled, int top) {
    if (!p.error.empty()) {
        fmt::print("  PC sampling   not done: {}\n", p.error);
        return;
    }
    fmt::print("  PC sampling   {} samples in {} run{} ({}; {} dropped)\n", p.totalSamples, p.runs, p.runs == 1 ? "" : "s",
               p.period ? fmt::format("every 2^{} cycles", p.period) : std::string("CUPTI's default interval"), p.droppedSamples);
    std::string error;
    const std::optional<std::string> sass = disassembleCubin(compiled.cubin, &error);
    if (!sass) {
        fmt::print("                (no SASS to place them in: {})\n", error);
        return;
    }
    long long unplaced = 0;
    std::vector<LineSamples> lines = samplesPerSassLine(p, *sass, &unplaced);
    long long sum = unplaced;
    for (const LineSamples& l : lines) sum += l.samples;
    if (sum == 0) return;
    std::stable_sort(lines.begin(), lines.end(), [](const LineSamples& a, const LineSamples& b) { return a.samples > b.samples; });
    const std::vector<std::string_view> text = splitLines(*sass);
    fmt::print("                 share  samples  instruction  (top stall reasons)\n");
    for (size_t i = 0; i < lines.size() && i < static_cast<size_t>(top); ++i) {
        const LineSamples& l = lines[i];
        std::string instruction(l.line < static_cast<int>(text.size()) ? text[static_cast<size_t>(l.line)] : "");
        // "/*0080*/      LDG.E R2, ... ;" with its runs of blanks squeezed to one.
        std::string squeezed;
        for (char c : instruction) {
            if (c == '\t') c = ' ';
            if (c != ' ' || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c;
        }
        instruction = squeezed;
        if (instruction.size() > 60) instruction = instruction.substr(0, 57) + "...";
        std::string stalls;
        for (const auto& [reason, n] : topStalls(l, 3))
            stalls += fmt::format("{}{} {:.0f}%", stalls.empty() ? "" : ", ", reason, 100.0 * static_cast<double>(n) / static_cast<double>(l.samples));
        fmt::print("                {:5.1f}% {:8}  {:<60}  {}\n", 100.0 * static_cast<double>(l.samples) / static_cast<double>(sum), l.samples,
                   instruction, stalls);
    }
    if (unplaced > 0) fmt::print("                {} samples outside this module's code (baselines, the driver)\n", unplaced);
}

}  // namespace

int run(const Context& ctx, const RunArgs& args) {
    auto tmpl = ctx.templates.find(args.variant.templateId);
    if (!tmpl) throw InputError("unknown template '" + args.variant.templateId + "' (see 'kx templates')");
    checkSizeTypes(*tmpl, tmpl->withSizes(parseAssignments(args.sizes, "--size")));  // before the runner starts: a size the kernel's int cannot hold

    if (!args.session.empty()) checkSessionTarget(args.session);
    checkVariantArgs(*tmpl, args.variant);  // a mistyped preset or parameter is said before the GPU is looked for

    RunnerClient runner;
    const std::optional<nlohmann::json> found = deviceOrExplain(runner, args.device, "run");
    if (!found) return 1;
    const nlohmann::json& device = *found;
    const std::string archName = args.variant.arch == "native" ? device.value("arch", "") : args.variant.arch;
    const Config config = variantConfig(*tmpl, args.variant, archName);
    const SizeMap sizes = variantSizes(*tmpl, args.variant, args.sizes, archName);  // a preset may name its problem
    checkSizeTypes(*tmpl, sizes);
    if (const std::string note = presetSizesNote(*tmpl, args.variant, sizes, archName); !note.empty()) std::cerr << "kx: " << note << "\n";
    const Arch* arch = args.variant.arch == "native" ? archForDevice(ctx.arches, archName, *tmpl, config) : ctx.arches.findArch(archName);
    if (!arch) throw InputError("unknown arch '" + archName + "'");
    if (args.variant.arch != "native" && !cubinRunsOn(*arch, device.value("compute_capability", "")))
        throw InputError("cannot run: " + deviceArchMismatch(*arch, device.value("arch", "")));
    const PreparedVariant prepared = prepareVariant(*tmpl, config, *arch);
    requireValid(prepared, *arch);
    checkRunLimits(*tmpl, config, *arch, sizes, device.value("memory_bytes", 0LL));
    Compiler compiler(cacheRoot() / "nvrtc");
    const CompileResult compiled = compiler.compile(prepared.request);
    if (!compiled.ok) {
        std::cerr << "kx: " << prepared.name << " failed to compile:\n" << compiled.log;
        return 1;
    }
    const RunOptions options{.device = args.device,
                             .reps = args.reps,
                             .warmup = args.warmup,
                             .rounds = args.rounds,
                             .timeoutSeconds = args.timeout,
                             .seed = args.seed,
                             .baseline = !args.noBaseline,
                             .pcSamplingRuns = args.pcSampling ? args.pcRuns : 0,
                             .pcSamplingPeriod = args.pcSampling ? args.pcPeriod : 0,
                             .memoryCounters = args.counters,
                             .share = nullptr,  // one run: it makes its own inputs and times its baselines
                             .deviceMemoryBytes = device.value("memory_bytes", 0LL),
                             .arches = &ctx.arches,
                             .onStage = {}};
    const RunReport report = runVariant(runner, *tmpl, config, *arch, sizes, compiled, options);
    if (args.json) std::cout << toJson(report).dump(2) << "\n";
    if (!report.ok) {
        std::cerr << "kx: the run failed: " << report.error << "\n";
        return 1;
    }
    if (!args.session.empty()) {
        const std::string recorded = recordRun(args.session, prepared.name, arch->name, config, prepared.source, compiled, report);
        std::cerr << "kx: recorded in " << args.session << " as " << recorded << "\n";
    }
    if (!args.json) {
        printReport(report, arch->name);
        if (const auto quantities = tmpl->quantities(config, *arch, sizes); !quantities.empty()) {
            std::string text;
            for (const auto& [name, value] : quantities) text += fmt::format("{}{} {:.0f}", text.empty() ? "" : "   ", name, value);
            fmt::print("  problem       {}\n", text);
        }
        if (const std::string traffic = memoryTrafficText(report); !traffic.empty()) fmt::print("  traffic       {}\n", traffic);
        if (const auto points = measuredRooflinePoints(report, ""); points.size() == 2 && report.bytes > 0)
            fmt::print("  intensity     {:.3g} FLOP/B at DRAM, {:.3g} at L2, counted ({:.3g} from the template's bytes)\n", points[0].ai,
                       points[1].ai, report.flops / report.bytes);
        if (report.pcSampling) printPcSampling(*report.pcSampling, compiled, args.pcTop);
    }
    return report.correctness.verdict() == Verdict::Fail ? 1 : 0;
}

int calibrate(const Context&, const CalibrateArgs& args) {
    RunnerClient runner;
    const std::optional<nlohmann::json> found = deviceOrExplain(runner, args.device, "calibrate");
    if (!found) return 1;
    const nlohmann::json& device = *found;
    const nlohmann::json reply =
        runner.request({{"cmd", "calibrate"}, {"device", args.device}, {"gemm_size", args.gemmSize}, {"reps", args.reps}}, 600);
    if (!reply.value("ok", false)) {
        std::cerr << "kx: calibration failed: " << reply.value("error", std::string("unknown error")) << "\n";
        return 1;
    }
    Calibration c;
    c.device = device.value("name", "");
    c.measuredAt = utcNowText();
    c.copyGBs = reply.at("copy").at("gbps");
    c.gemmSize = args.gemmSize;
    for (const auto& [dtype, v] : reply.at("cublas_gemm").items()) c.computeTflops[dtype] = v.at("tflops");
    saveCalibration(c);
    if (args.json) {
        std::cout << reply.dump(2) << "\n";
        return 0;
    }
    fmt::print("{} ({}), calibrated {}\n", c.device, device.value("arch", ""), c.measuredAt);
    fmt::print("  copy bandwidth   {:.0f} GB/s (device-to-device, bytes read + written)\n", c.copyGBs);
    for (const auto& [dtype, tflops] : c.computeTflops)
        fmt::print("  cuBLAS {:<5}     {:.1f} TFLOP/s at {}^3\n", dtype, tflops, c.gemmSize);
    fmt::print("  saved to {}\n", calibrationPath(c.device).string());
    return 0;
}

// [SECTION] Command line

void addRunCommand(CLI::App& app, CommandTable& table) {
    auto [runCmd, args] = table.addCommand<RunArgs>(
        app, "run", "Run a config on the GPU: correctness against float64, timing, baseline (needs an NVIDIA driver)", run);
    addVariantAndFlagOptions(runCmd, *args);
    runCmd->add_option("--reps", args->reps, "Timed repetitions (median, min, max)")->check(CLI::Range(1, 100000));
    runCmd->add_option("--warmup", args->warmup, "Untimed launches first")->check(CLI::Range(0, 100000));
    runCmd->add_option("--rounds", args->rounds,
                       "Time the reps in this many turns with the baselines' (1: the kernel's runs first, then each baseline's)")
        ->check(CLI::Range(1, 100000));
    runCmd->add_option("--timeout", args->timeout, "Seconds before a hung kernel's runner is killed")->check(CLI::Range(0.1, 86400.0));
    runCmd->add_option("--seed", args->seed, "Seed of the random inputs");
    runCmd->add_option("--device", args->device, "GPU index");
    runCmd->add_flag("--no-baseline", args->noBaseline, "Skip cuBLAS / copy baseline");
    runCmd->add_flag("--json", args->json, "JSON report");
    runCmd->add_flag("--pc-sampling", args->pcSampling, "Sample program counters with CUPTI in extra runs after the timed ones: the hottest instructions and their stall reasons");
    runCmd->add_flag("--counters", args->counters,
                     "Count one run's DRAM, L2 and L1 bytes with the GPU's hardware counters (CUPTI), each pass from a cold L2");
    runCmd->add_option("--pc-runs", args->pcRuns, "Runs sampled with --pc-sampling")->check(CLI::Range(1, 100000));
    runCmd->add_option("--pc-period", args->pcPeriod, "Sampling interval 2^N cycles, N in 5..31 (default: CUPTI's)")->check(CLI::Range(5, 31));
    runCmd->add_option("--pc-top", args->pcTop, "Instructions listed with --pc-sampling")->check(CLI::Range(1, 100000));
    runCmd->add_option("--session", args->session, "Record the run (variant, source, PTX, resources, report) in this session file; created when absent");
}

void addCalibrateCommand(CLI::App& app, CommandTable& table) {
    auto cal = std::make_shared<CalibrateArgs>();
    CLI::App* calibrateCmd = app.add_subcommand("calibrate", "Measure the GPU's copy bandwidth and cuBLAS GEMM throughput per dtype");
    calibrateCmd->add_option("--device", cal->device, "GPU index");
    calibrateCmd->add_option("--gemm-size", cal->gemmSize, "GEMM size (cube)")->check(CLI::Range(256, 32768));
    calibrateCmd->add_option("--reps", cal->reps, "Timed repetitions")->check(CLI::Range(1, 10000));
    calibrateCmd->add_flag("--json", cal->json, "JSON output");
    table.add(calibrateCmd, [cal](Context& ctx) { return calibrate(ctx, *cal); });
}

}  // namespace kx::cli
