#include "run/variant_run.hpp"

#include "analysis/roofline_scene.hpp"
#include "run/run_limits.hpp"

#include "run/input_fill.hpp"
#include "run/reference.hpp"
#include "run/reference_registry.hpp"
#include "run/run_report_json.hpp"
#include "run/run_share.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <unistd.h>

namespace kx::engine {
namespace fs = std::filesystem;

namespace {

// A private folder for the run's input and output files, removed however the run ends.
struct ScratchDir {
    fs::path path;
    ScratchDir() {
        static std::atomic<int> counter{0};
        const fs::path shm = "/dev/shm";
        std::error_code ec;
        const fs::path base = fs::is_directory(shm, ec) ? shm : fs::temp_directory_path();
        path = base / ("kx-run-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::create_directories(path);
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void writeBytes(const fs::path& p, const void* data, size_t bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw InputError("cannot write " + p.string());
}

// The whole file in one read: outputs run to hundreds of MB, which a stream iterator, a character
// at a time, read several times slower (seconds of every sweep config's check). "" when missing.
std::string readBytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary | std::ios::ate);
    if (!in) return {};
    const std::streamsize size = std::max<std::streamsize>(in.tellg(), 0);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    in.read(bytes.data(), size);
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
}

// Everything the run sends and keeps: the request, the inputs as generated, where the outputs
// and baseline outputs will be.
struct RunPlan {
    nlohmann::json request;
    std::map<std::string, HostArray> inputs;
    std::map<std::string, std::shared_ptr<const HostArray>> sharedInputs;  // from the RunShare
    std::map<std::string, const DtypeInfo*> outputTypes;   // out and inout args
    std::map<std::string, fs::path> outputFiles;
    std::map<std::string, std::pair<const DtypeInfo*, fs::path>> baselineOutputs;  // by baseline id
    // Every baseline of the manifest, in order: its share key, and its result when the share
    // already had it (then the runner is not asked to time it again).
    std::vector<std::string> baselineKeys;
    std::vector<std::optional<RunShare::Baseline>> sharedBaselines;
    std::string inputKeys;  // the inputs' share keys, which the baselines' results depend on too
};

// Everything that decides an input's values.
std::string inputShareKey(const std::string& name, const DtypeInfo& dtype, long long count, const FillSpec& fill, std::uint64_t stream) {
    std::string key = name + "|" + std::string(dtype.name) + "|" + std::to_string(count) + "|" + fill.kind + (fill.sorted ? "|sorted" : "") + "|" +
                      std::to_string(stream);
    for (double a : fill.args) key += "|" + nlohmann::json(a).dump();
    return key;
}

// The request entry of a buffer argument (in, out, inout, scratch). An input's values are
// generated from its fill rule (or taken from the share) into plan; outputs are recorded in
// plan with the files the runner will write.
nlohmann::json planBuffer(const ResolvedArg& a, size_t index, const DtypeInfo& dtype, const std::map<std::string, double>& vars,
                          const RunOptions& opt, const fs::path& dir, RunPlan& plan) {
    nlohmann::json j = {{"name", a.name}, {"role", a.role}, {"elem_bytes", dtype.bytes}, {"count", a.count}};
    if (a.zeroEachRun) j["zero"] = "each";
    const fs::path file = dir / (a.name + ".bin");
    if (a.role == "in" || a.role == "inout") {
        // Each argument's own stream of the seed, so adding an argument changes no other's values.
        const FillSpec fill = parseFill(a.fill, dtype, vars);
        const std::uint64_t stream = opt.seed * 1000003 + index;
        const std::string key = inputShareKey(a.name, dtype, a.count, fill, stream);
        plan.inputKeys += key + ";";
        std::optional<RunShare::Input> shared = opt.share ? opt.share->input(key) : std::nullopt;
        if (!shared) {
            HostArray host{&dtype, generateFill(fill, dtype, static_cast<size_t>(a.count), stream)};
            const std::string bytes = encodeValues(host.values, dtype);
            if (opt.share) {
                shared = opt.share->putInput(key, std::move(host), bytes);
            } else {
                writeBytes(file, bytes.data(), bytes.size());
                plan.inputs[a.name] = std::move(host);
            }
        }
        if (shared) {
            // An in-place argument is written by the kernel: the runner copies it to a
            // device buffer and writes its output file separately, so the shared file stays.
            plan.sharedInputs[a.name] = shared->host;
            if (a.role == "in") {
                j["file"] = shared->file.string();
                return j;
            }
            fs::copy_file(shared->file, file, fs::copy_options::overwrite_existing);
        }
    }
    if (a.role == "out" || a.role == "inout") {
        plan.outputTypes[a.name] = &dtype;
        plan.outputFiles[a.name] = file;
    }
    if (a.role != "scratch") j["file"] = file.string();
    return j;
}

// The request's "args", in signature order, generating the inputs into plan.
nlohmann::json planArgs(const std::vector<ResolvedArg>& args, const std::map<std::string, double>& vars, const RunOptions& opt,
                        const fs::path& dir, RunPlan& plan) {
    nlohmann::json jsonArgs = nlohmann::json::array();
    std::map<std::string, const ResolvedArg*> byName;
    for (size_t i = 0; i < args.size(); ++i) {
        const ResolvedArg& a = args[i];
        byName[a.name] = &a;
        if (a.role == "size") {
            jsonArgs.push_back({{"name", a.name}, {"role", "size"}, {"value", a.count}});
            continue;
        }
        if (a.role == "tensor_map") {
            // The runner encodes it from the buffer's allocation in each rotation set.
            const DtypeInfo& of = dtypeOfCType(byName.at(a.of)->type);
            nlohmann::json map = {{"name", a.name}, {"role", a.role}, {"of", a.of},   {"dtype", std::string(of.name)},
                                  {"dims", a.dims}, {"box", a.box},   {"swizzle", a.swizzle}};
            if (a.mode == "im2col") map.update({{"mode", a.mode}, {"lower", a.lower}, {"upper", a.upper}});
            if (!a.strides.empty()) map["strides"] = a.strides;
            jsonArgs.push_back(map);
            continue;
        }
        const DtypeInfo& dtype = dtypeOfCType(a.type);
        if (a.role == "scalar" || a.role == "pass") {
            nlohmann::json j = {{"name", a.name}, {"role", a.role}, {"dtype", std::string(dtype.name)}};
            if (a.role == "scalar") j["value"] = a.value;
            jsonArgs.push_back(j);
            continue;
        }
        jsonArgs.push_back(planBuffer(a, i, dtype, vars, opt, dir, plan));
    }
    return jsonArgs;
}

// The request's "launches": the template's launch sequence, its primary kernel marked.
nlohmann::json planLaunches(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes) {
    nlohmann::json launches = nlohmann::json::array();
    const std::string primaryKernel = tmpl.launch(config, arch, sizes).kernel;
    for (const LaunchStep& step : tmpl.launches(config, arch, sizes)) {
        const LaunchGeometry& g = step.geometry;
        launches.push_back({{"kernel", step.kernel},
                            {"grid", {g.grid[0], g.grid[1], g.grid[2]}},
                            {"block", {g.block[0], g.block[1], g.block[2]}},
                            {"cluster", {g.cluster[0], g.cluster[1], g.cluster[2]}},
                            {"dynamic_smem", g.dynamicSmemBytes},
                            {"repeat", step.repeat},
                            {"persistent", step.persistent},
                            {"prepare", step.prepare},
                            {"primary", step.kernel == primaryKernel}});
    }
    return launches;
}

// The request's "baselines": the manifest's, less those the share already timed (kept in plan
// with their keys, which depend on plan.inputKeys, so the inputs are planned first).
nlohmann::json planBaselines(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes,
                             const std::vector<ResolvedArg>& args, const RunOptions& opt, const fs::path& dir, RunPlan& plan) {
    std::map<std::string, const ResolvedArg*> byName;
    for (const ResolvedArg& a : args) byName[a.name] = &a;
    nlohmann::json baselines = nlohmann::json::array();
    for (const ResolvedBaseline& b : tmpl.baselines(config, arch, sizes)) {
        nlohmann::json params = nlohmann::json::object();
        for (const auto& [k, v] : b.numbers) params[k] = v == std::floor(v) && std::fabs(v) < 9e15 ? nlohmann::json(static_cast<long long>(v)) : nlohmann::json(v);
        for (const auto& [k, v] : b.texts) params[k] = v;
        nlohmann::json j = {{"name", b.name}, {"args", b.args}, {"params", params}};
        const std::string key = j.dump() + "|" + plan.inputKeys + "|" + std::to_string(opt.device);
        plan.baselineKeys.push_back(key);
        plan.sharedBaselines.push_back(opt.share ? opt.share->baseline(key) : std::nullopt);
        if (plan.sharedBaselines.back()) continue;  // timed by an earlier run of the sweep
        if (!b.output.empty()) {
            const DtypeInfo& dtype = dtypeOfCType(byName.at(b.output)->type);
            const fs::path file = dir / ("baseline-" + b.name + ".bin");
            j["output"] = {{"like", b.output}, {"file", file.string()}};
            plan.baselineOutputs[b.name] = {&dtype, file};
        }
        baselines.push_back(j);
    }
    return baselines;
}

RunPlan planRun(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes, const CompileResult& compiled,
                const RunOptions& opt, const fs::path& dir) {
    RunPlan plan;
    // Sizes the kernel's types cannot hold and byte counts that overflow are refused before any
    // input is generated (run/run_limits.hpp), and with the device's memory known, buffers that
    // cannot fit in it.
    checkRunLimits(tmpl, config, arch, sizes, opt.deviceMemoryBytes);
    const auto vars = tmpl.variables(config, arch, sizes);
    const std::vector<ResolvedArg> args = tmpl.resolveArgs(config, arch, sizes);

    const fs::path module = dir / (compiled.cubin.empty() ? "kernel.ptx" : "kernel.cubin");
    const std::string& image = compiled.cubin.empty() ? compiled.ptx : compiled.cubin;
    writeBytes(module, image.data(), image.size());

    const nlohmann::json jsonArgs = planArgs(args, vars, opt, dir, plan);
    const nlohmann::json launches = planLaunches(tmpl, config, arch, sizes);
    plan.request = {{"cmd", "run"},      {"device", opt.device}, {"module", module.string()}, {"launches", launches},
                    {"args", jsonArgs},  {"warmup", opt.warmup}, {"reps", opt.reps},          {"rotate", "auto"},
                    {"rounds", opt.rounds}};

    if (opt.pcSamplingRuns > 0) plan.request["pc_sampling"] = {{"runs", opt.pcSamplingRuns}, {"period", opt.pcSamplingPeriod}};
    if (opt.memoryCounters) plan.request["memory_counters"] = true;
    if (opt.baseline) {
        const nlohmann::json baselines = planBaselines(tmpl, config, arch, sizes, args, opt, dir, plan);
        if (!baselines.empty()) plan.request["baselines"] = baselines;
    }
    return plan;
}

}  // namespace

namespace {

// reply[key] as an int, fallback when absent; a value that is not an integer in int's range is a
// malformed reply (converting it would be undefined behaviour).
int replyInt(const nlohmann::json& reply, const char* key, int fallback) {
    const auto it = reply.find(key);
    if (it == reply.end() || it->is_null()) return fallback;
    const bool inRange = it->is_number_unsigned()  ? it->get<unsigned long long>() <= static_cast<unsigned long long>(INT_MAX)
                         : it->is_number_integer() ? it->get<long long>() >= INT_MIN && it->get<long long>() <= INT_MAX
                                                   : false;
    if (!inRange) throw InputError(std::string("the runner's reply: '") + key + "' is not an integer in range");
    return static_cast<int>(it->get<long long>());
}

}  // namespace

void applyRunReply(const nlohmann::json& reply, RunReport& report) {
    const nlohmann::json& dev = reply.at("device");
    report.deviceName = dev.value("name", "");
    report.deviceArch = dev.value("arch", "");
    const nlohmann::json& t = reply.at("timing");
    report.medianMs = t.at("median_ms");
    report.minMs = t.at("min_ms");
    report.maxMs = t.at("max_ms");
    report.reps = replyInt(reply, "reps", 0);
    report.rotationSets = replyInt(reply, "rotation_sets", 1);
    report.rounds = replyInt(reply, "rounds", 1);
    report.registers = replyInt(reply, "registers", 0);
    report.driverBlocksPerSm = replyInt(reply, "driver_blocks_per_sm", 0);
    report.persistentBlocks = replyInt(reply, "persistent_blocks", 0);
    report.smCount = replyInt(dev, "sm_count", 0);
    const double seconds = report.medianMs * 1e-3;
    report.tflops = seconds > 0 ? report.flops / seconds / 1e12 : 0;
    report.gbps = seconds > 0 ? report.bytes / seconds / 1e9 : 0;

    // Each baseline did the kernel's work (or, a copy, moved its bytes): its throughput is the
    // kernel's FLOPs and bytes over the baseline's time.
    report.baselines.clear();
    for (const nlohmann::json& b : reply.value("baselines", nlohmann::json::array())) {
        BaselineReport base;
        base.id = b.value("id", "");
        base.name = b.value("name", base.id);
        if (b.contains("error")) {
            base.error = b.value("error", std::string("failed"));
        } else {
            base.medianMs = b.at("timing").at("median_ms");
            base.rotationSets = replyInt(b, "rotation_sets", 1);
            const double s = base.medianMs * 1e-3;
            if (s > 0) {
                base.speedup = base.medianMs / report.medianMs;
                base.tflops = report.flops / s / 1e12;
                base.gbps = report.bytes / s / 1e9;
            }
        }
        report.baselines.push_back(std::move(base));
    }
    report.phasesMs.clear();
    if (reply.contains("phases_ms") && reply["phases_ms"].is_object())
        for (const auto& [name, ms] : reply["phases_ms"].items())
            if (ms.is_number()) report.phasesMs["runner " + name] = ms.get<double>();
    report.pcSampling.reset();
    if (reply.contains("pc_sampling")) report.pcSampling = pcSamplingReportFromJson(reply.at("pc_sampling"));
    report.memoryCounters.reset();
    if (reply.contains("memory_counters")) report.memoryCounters = memoryCountersReportFromJson(reply.at("memory_counters"));
}

void applyCalibration(const Calibration& cal, const std::string& unit, RunReport& report) {
    if (cal.copyGBs > 0) report.pctOfCopyBandwidth = 100.0 * report.gbps / cal.copyGBs;
    if (report.flops <= 0) return;
    const RooflineCalibration roof = rooflineCalibration(cal);
    const auto it = roof.peakTflops.find(unit);
    if (it == roof.peakTflops.end() || it->second <= 0) return;
    report.pctOfComputeCeiling = 100.0 * report.tflops / it->second;
    report.computeCeilingName = unitLabel(unit) + " (measured)";
}

void applyRoofShare(const ArchDatabase& arches, const Arch& arch, const std::string& unit,
                    const std::optional<Calibration>& calibration, RunReport& report) {
    const DeviceSpec* device = deviceForGpuName(arches, arch, report.deviceName);
    if (device == nullptr) return;
    std::optional<RooflineCalibration> measured;
    if (calibration) measured = rooflineCalibration(*calibration);
    const RooflineModel model(*device, measured);
    const auto share = roofShare(model, unit, report.tflops * 1e12, report.gbps * 1e9);
    if (!share) return;
    report.pctOfRoof = share->percent;
    const bool isDram = share->bound.kind == CeilingKind::Memory;
    const std::string ceiling = isDram ? std::string("DRAM") : unitLabel(share->bound.id);
    report.roofName = fmt::format("{} roof, {} {}", ceiling, model.deviceName(),
                                  share->bound.source == CeilingSource::Measured ? "measured" : "datasheet");
}

CheckContext checkContextFor(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes, const RunOptions& opt) {
    CheckContext ctx;
    ctx.variables = tmpl.variables(config, arch, sizes);
    for (const ParamSpec& p : tmpl.manifest().params) ctx.choices[p.name] = config.at(p.name);
    ctx.sizes = sizes;
    ctx.seed = opt.seed;
    ctx.fullCheckOps = opt.fullCheckMacs;
    ctx.sampledOutputs = kSampledOutputs;
    return ctx;
}

void checkOutputs(const std::string& referenceName, const CheckContext& ctx, CorrectnessReport& report) {
    const ReferenceCheck* check = referenceName.empty() ? nullptr : findReference(referenceName);
    if (check == nullptr) {
        report.hasReference = false;
        report.passed = false;
        report.method = referenceName.empty() ? "not checked: the template names no CPU reference"
                                              : "not checked: this build has no CPU reference named '" + referenceName + "'";
        return;
    }
    (*check)(ctx, report);
}

nlohmann::json listDevices(RunnerClient& runner) { return runner.request({{"cmd", "devices"}}, 60); }

RunReport runVariant(RunnerClient& runner, const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes,
                     const CompileResult& compiled, const RunOptions& opt) {
    RunReport report;
    report.variant = tmpl.configName(config);
    report.sizes = sizes;
    try {
        if (!compiled.ok) throw InputError("the variant did not compile");
        report.flops = tmpl.flops(config, arch, sizes);
        report.bytes = tmpl.minBytes(config, arch, sizes);
        auto phaseStart = std::chrono::steady_clock::now();
        std::map<std::string, double> hostPhases;
        auto phase = [&](const char* name) {
            const auto now = std::chrono::steady_clock::now();
            hostPhases[name] = std::chrono::duration<double, std::milli>(now - phaseStart).count();
            phaseStart = now;
        };
        auto stage = [&](const char* text) {
            if (opt.onStage) opt.onStage(text);
        };
        // A runner that cannot start is said before the inputs are made (seconds for large sizes).
        if (std::string why; !runner.ensureStarted(&why)) {
            report.error = why;
            return report;
        }
        stage("preparing inputs");
        ScratchDir dir;
        RunPlan plan = planRun(tmpl, config, arch, sizes, compiled, opt, dir.path);

        phase("host inputs");
        stage("running on the GPU");
        const nlohmann::json reply = runner.request(plan.request, opt.timeoutSeconds);
        phase("host runner request");
        if (!reply.value("ok", false)) {
            report.error = reply.value("error", std::string("the runner failed"));
            return report;
        }
        // The baselines in the manifest's order, those timed by an earlier run of the sweep
        // taken from the share, and the new ones kept there.
        nlohmann::json merged = reply;
        if (!plan.baselineKeys.empty()) {
            nlohmann::json timed = reply.value("baselines", nlohmann::json::array());
            nlohmann::json all = nlohmann::json::array();
            size_t next = 0;
            for (size_t b = 0; b < plan.baselineKeys.size(); ++b) {
                if (plan.sharedBaselines[b]) {
                    all.push_back(plan.sharedBaselines[b]->entry);
                    continue;
                }
                if (next >= timed.size()) break;
                all.push_back(timed[next++]);
            }
            merged["baselines"] = all;
        }
        applyRunReply(merged, report);
        // The waves it ran in (runWaves): the grid at these sizes, and for a persistent launch the
        // blocks launched, grid-x as the runner trimmed it times y and z, which it keeps.
        const LaunchGeometry launched = tmpl.launch(config, arch, sizes);
        report.gridBlocks = launched.blocks();
        report.persistentBlocks *= launched.grid[1] * launched.grid[2];
        const std::optional<Calibration> calibration = loadCalibration(report.deviceName);
        if (calibration) applyCalibration(*calibration, tmpl.rooflineUnit(config, arch), report);
        if (opt.arches != nullptr) applyRoofShare(*opt.arches, arch, tmpl.rooflineUnit(config, arch), calibration, report);

        stage("checking against the reference");
        CheckContext ctx = checkContextFor(tmpl, config, arch, sizes, opt);
        ctx.inputs = std::move(plan.inputs);
        ctx.sharedInputs = std::move(plan.sharedInputs);
        for (const auto& [name, file] : plan.outputFiles)
            ctx.outputs[name] = HostArray{plan.outputTypes.at(name), decodeValues(readBytes(file), *plan.outputTypes.at(name))};
        for (const auto& [id, typed] : plan.baselineOutputs)
            if (fs::exists(typed.second)) ctx.baselineOutputs[id] = HostArray{typed.first, decodeValues(readBytes(typed.second), *typed.first)};
        for (size_t b = 0; b < plan.baselineKeys.size(); ++b) {
            const nlohmann::json& entry = merged["baselines"].size() > b ? merged["baselines"][b] : nlohmann::json();
            const std::string id = entry.value("id", std::string());
            if (plan.sharedBaselines[b]) {
                if (plan.sharedBaselines[b]->output) ctx.sharedBaselineOutputs[id] = plan.sharedBaselines[b]->output;
            } else if (opt.share && !entry.is_null() && !entry.contains("error")) {
                // Moved into the share: the check reads it there, this run and the next ones.
                std::shared_ptr<const HostArray> output;
                if (const auto it = ctx.baselineOutputs.find(id); it != ctx.baselineOutputs.end()) {
                    output = std::make_shared<const HostArray>(std::move(it->second));
                    ctx.baselineOutputs.erase(it);
                    ctx.sharedBaselineOutputs[id] = output;
                }
                opt.share->putBaseline(plan.baselineKeys[b], {entry, output});
            }
        }
        checkOutputs(tmpl.manifest().referenceName, ctx, report.correctness);
        phase("host check");
        report.phasesMs.insert(hostPhases.begin(), hostPhases.end());
        report.ok = true;
    } catch (const std::exception& e) {
        report.ok = false;
        report.error = e.what();
    }
    return report;
}

RunReport runPlantedFault(RunnerClient& runner, const std::string& kind, double timeoutSeconds) {
    if (kind != "out_of_bounds" && kind != "trap" && kind != "hang")
        throw InputError("unknown planted fault '" + kind + "' (out_of_bounds, trap or hang)");
    RunReport report;
    report.variant = kPlantedFaultPrefix + kind;
    const nlohmann::json reply = runner.request({{"cmd", "fault"}, {"kind", kind}}, timeoutSeconds);
    report.ok = reply.value("ok", false);
    report.error = report.ok ? std::string("the planted kernel did not fault") : reply.value("error", std::string("the runner failed"));
    return report;
}

}  // namespace kx::engine
