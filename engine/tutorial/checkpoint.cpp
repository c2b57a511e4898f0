#include "tutorial/checkpoint.hpp"

#include "analysis/occupancy.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kx::engine {

RunFacts runFacts(const RunReport& report, const std::string& templateId, const std::map<std::string, std::string>& config,
                  const std::string& flags) {
    RunFacts f;
    f.templateId = templateId;
    f.config = config;
    f.flags = flags;
    f.device = report.deviceName;
    f.ok = report.ok;
    f.passed = report.ok && report.correctness.verdict() == Verdict::Pass;
    f.verdict = verdictText(report.correctness.verdict());
    f.medianMs = report.medianMs;
    f.gflops = report.tflops * 1000;
    f.gbps = report.gbps;
    f.pctCopy = report.pctOfCopyBandwidth;
    f.pctRoof = report.pctOfRoof;
    f.roofName = report.roofName;
    for (const BaselineReport& b : report.baselines) {
        if (!f.pctCopy && b.id == "copy" && b.ok() && b.speedup > 0) f.pctCopy = 100 * b.speedup;
        if (b.ok() && b.speedup > 0) f.pctByBaseline.emplace(b.id, std::make_pair(100 * b.speedup, b.name));
    }
    if (const BaselineReport* b = report.primaryBaseline(); b && b->speedup > 0) {
        f.pctBaseline = 100 * b->speedup;
        f.baselineName = b->name;
    }
    return f;
}

std::vector<std::string> ptxOpcodes(std::string_view ptx) {
    std::set<std::string> found;
    for (std::string_view line : splitLines(ptx)) {
        if (const auto comment = line.find("//"); comment != std::string_view::npos) line = line.substr(0, comment);
        const auto first = line.find_first_not_of(" \t{");
        if (first == std::string_view::npos) continue;
        line = line.substr(first);
        // Directives (.reg, .entry), labels ("$L__BB0_2:") and braces are not instructions.
        if (line[0] == '.' || line[0] == '}' || line[0] == '$' || line[0] == ')' || line[0] == '(') continue;
        if (line[0] == '@') {  // a predicate: "@%p1 bra ..." or "@!%p1 ..."
            const auto space = line.find_first_of(" \t");
            if (space == std::string_view::npos) continue;
            line = line.substr(line.find_first_not_of(" \t", space));
        }
        const auto stop = line.find_first_of(" \t;");
        std::string_view opcode = line.substr(0, stop);
        if (opcode.empty() || opcode.back() == ':' || opcode.back() == ',') continue;
        if (!std::islower(static_cast<unsigned char>(opcode[0]))) continue;
        found.emplace(opcode);
    }
    return {found.begin(), found.end()};
}

bool opcodesContain(const std::vector<std::string>& opcodes, std::string_view text) {
    const std::string dotted = "." + std::string(text);
    return std::any_of(opcodes.begin(), opcodes.end(),
                       [&](const std::string& op) { return op.rfind(text, 0) == 0 || op.find(dotted) != std::string::npos; });
}

void setCompileFacts(TutorialState& state, const Template& tmpl, const Arch& arch, const Config& config, std::string_view ptx,
                     const std::vector<KernelResources>& kernels) {
    state.opcodes = ptxOpcodes(ptx);
    if (kernels.empty() || ptx.empty()) {
        state.compiled = false;
        if (state.compileNote.empty()) state.compileNote = "no ptxas report yet";
        return;
    }
    state.compiled = true;
    state.compileNote.clear();
    LaunchGeometry launch;
    bool haveLaunch = false;
    try {
        launch = tmpl.launch(config, arch, tmpl.defaultSizes());
        haveLaunch = true;
    } catch (const InputError&) {
        // A launch formula that cannot be evaluated leaves the occupancy unknown.
    }
    const KernelResources* k = kernelNamed(kernels, haveLaunch ? launch.kernel : std::string());
    if (!k) return;
    state.registers = k->registers;
    state.spillBytes = k->spillStoreBytes + k->spillLoadBytes;
    if (!haveLaunch || arch.vendor != Vendor::Nvidia) return;
    OccupancyInput in;
    in.registersPerThread = k->registers;
    in.threadsPerBlock = static_cast<int>(launch.threadsPerBlock());
    in.staticSmemBytes = k->sharedBytes;
    in.dynamicSmemBytes = launch.dynamicSmemBytes;
    in.barriers = std::max(1, k->barriers);
    try {
        state.occupancyPct = 100 * nvidiaOccupancy(arch, in).occupancy;
    } catch (const InputError&) {
        state.occupancyPct = 0;  // the launch cannot run at all
    }
}

const char* checkStatusName(CheckStatus status) { return enumName(status, {"pass", "fail", "needs a GPU run"}); }

namespace {

// The same kernel: template, parameters and compiler flags (a register cap makes another kernel).
bool sameConfig(const RunFacts& run, const std::string& templateId, const std::map<std::string, std::string>& config,
                const std::string& flags) {
    return run.templateId == templateId && run.config == config && run.flags == flags;
}

// The newest successful run of this config; nullptr when none.
const RunFacts* latestRun(const std::vector<RunFacts>& runs, const std::string& templateId, const std::map<std::string, std::string>& config,
                          const std::string& flags) {
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)
        if (it->ok && sameConfig(*it, templateId, config, flags)) return &*it;
    return nullptr;
}

std::string num(double v) { return fmt::format("{:.3g}", v); }

// "no run of this config here (running needs an NVIDIA GPU). Recorded on DEVICE, DATE: ..."
CheckVerdict needsRun(const std::string& what, const TutorialStep& step, const std::string& recordedFigure) {
    std::string reason = what;
    if (step.recorded) {
        reason += fmt::format(". Recorded on {} ({}), not run here: {}", step.recorded->device, step.recorded->date,
                              recordedFigure.empty() ? step.recorded->summary() : recordedFigure);
    }
    return {CheckStatus::NeedsRun, reason};
}

double throughput(const RunFacts& r) { return r.gflops > 0 ? r.gflops : r.gbps; }

// The figure of the step's recorded run that a run checkpoint is about ("90% of the DRAM roof,
// ..."); empty when the recording has none (the whole summary is quoted then).
std::string recordedFigure(const Tutorial& tutorial, const TutorialStep& step, const Checkpoint& c) {
    if (!step.recorded) return {};
    const RecordedRun& rec = *step.recorded;
    switch (c.metric) {
    case Metric::PctCopy: return rec.pctCopy ? fmt::format("{:.0f}% of copy bandwidth", *rec.pctCopy) : "";
    case Metric::PctBaseline: return rec.pctBaseline ? fmt::format("{:.0f}% of {}", *rec.pctBaseline, rec.baseline) : "";
    case Metric::PctRoof: return rec.pctRoof ? fmt::format("{:.0f}% of the {}", *rec.pctRoof, rec.roof) : "";
    case Metric::Gflops: return rec.gflops ? fmt::format("{:.0f} GFLOP/s", *rec.gflops) : "";
    case Metric::RunPassed: return rec.passed ? "PASS" : "FAIL";
    case Metric::Speedup: {
        const auto& other = tutorial.steps[static_cast<std::size_t>(tutorial.stepIndex(c.over))].recorded;
        if (other && other->gflops && rec.gflops) return fmt::format("{:.2f}x the GFLOP/s of step '{}'", *rec.gflops / *other->gflops, c.over);
        if (other && other->gbps && rec.gbps) return fmt::format("{:.2f}x the GB/s of step '{}'", *rec.gbps / *other->gbps, c.over);
        return "";
    }
    default: return "";
    }
}

CheckVerdict judge(const Tutorial& tutorial, const TutorialStep& step, const Checkpoint& c, const std::vector<StepTarget>& targets,
                   const TutorialState& s) {
    auto verdict = [](bool ok, std::string reason) { return CheckVerdict{ok ? CheckStatus::Pass : CheckStatus::Fail, std::move(reason)}; };
    auto notCompiled = [&]() {
        return verdict(false, s.templateId.empty() ? "no kernel is selected"
                                                   : "not compiled" + (s.compileNote.empty() ? std::string() : ": " + s.compileNote));
    };
    switch (c.metric) {
    case Metric::Template:
        return verdict(s.templateId == c.equals, s.templateId.empty() ? "no template is selected" : "the template is " + s.templateId);
    case Metric::Arch: return verdict(s.arch == c.equals, "the architecture is " + (s.arch.empty() ? "not chosen" : s.arch));
    case Metric::Config: {
        const auto it = s.config.find(c.param);
        if (it == s.config.end())
            return verdict(false, s.templateId.empty() ? "no template is selected" : s.templateId + " has no parameter " + c.param);
        return verdict(it->second == c.equals, c.param + " is " + it->second);
    }
    case Metric::Compiled:
        if (!s.compiled) return notCompiled();
        return verdict(true, "compiled: PTX and the ptxas report are there");
    case Metric::Registers:
        if (!s.compiled || !s.registers) return notCompiled();
        return verdict(*s.registers <= *c.max, fmt::format("{} registers per thread (at most {})", *s.registers, num(*c.max)));
    case Metric::Spills:
        if (!s.compiled || !s.spillBytes) return notCompiled();
        return verdict(static_cast<double>(*s.spillBytes) <= *c.max,
                       *s.spillBytes == 0 ? "no spills" : fmt::format("{} bytes of spill stores and loads", *s.spillBytes));
    case Metric::Occupancy:
        if (!s.compiled) return notCompiled();
        if (!s.occupancyPct) return verdict(false, "no occupancy for this architecture");
        return verdict(*s.occupancyPct >= *c.min - 1e-9, fmt::format("occupancy {:.0f}% (at least {})", *s.occupancyPct, num(*c.min)));
    case Metric::MixContains:
    case Metric::MixLacks: {
        if (!s.compiled && s.opcodes.empty()) return notCompiled();
        const bool has = opcodesContain(s.opcodes, c.text);
        const bool want = c.metric == Metric::MixContains;
        return verdict(has == want, has ? "the PTX has " + c.text + " instructions" : "the PTX has no " + c.text + " instruction");
    }
    case Metric::RunPassed:
    case Metric::PctCopy:
    case Metric::PctBaseline:
    case Metric::PctRoof:
    case Metric::Gflops:
    case Metric::Speedup: break;
    }

    // Run metrics: the latest run of the config now in the editor.
    const RunFacts* run = currentRun(s);
    if (!run) {
        return needsRun(s.templateId.empty() ? "needs a run on a GPU: no kernel is selected"
                                             : "needs a run on a GPU: this config has not run here (running needs an NVIDIA GPU)",
                        step, recordedFigure(tutorial, step, c));
    }
    switch (c.metric) {
    case Metric::RunPassed: return verdict(run->passed, "the latest run's check: " + run->verdict);
    case Metric::PctCopy:
        if (!run->pctCopy) return verdict(false, "the run has no copy-bandwidth figure (calibrate with kx calibrate)");
        return verdict(*run->pctCopy >= *c.min, fmt::format("{:.1f}% of the copy bandwidth (at least {})", *run->pctCopy, num(*c.min)));
    case Metric::PctBaseline: {
        if (!c.baseline.empty()) {  // a named baseline, not the run's first
            const auto named = run->pctByBaseline.find(c.baseline);
            if (named == run->pctByBaseline.end()) return verdict(false, "the run timed no " + c.baseline + " baseline");
            const auto& [pct, name] = named->second;
            return verdict(pct >= *c.min, fmt::format("{:.1f}% of {} in the same run (at least {})", pct, name, num(*c.min)));
        }
        if (!run->pctBaseline) return verdict(false, "the run timed no baseline");
        return verdict(*run->pctBaseline >= *c.min,
                       fmt::format("{:.1f}% of {} in the same run (at least {})", *run->pctBaseline, run->baselineName, num(*c.min)));
    }
    case Metric::PctRoof:
        if (!run->pctRoof) return verdict(false, "the run has no share of the roof (its GPU matches no datasheet of the arch)");
        return verdict(*run->pctRoof >= *c.min, fmt::format("{:.1f}% of the {} (at least {})", *run->pctRoof, run->roofName, num(*c.min)));
    case Metric::Gflops:
        return verdict(run->gflops >= *c.min, fmt::format("{:.0f} GFLOP/s (at least {})", run->gflops, num(*c.min)));
    case Metric::Speedup: {
        const int earlier = tutorial.stepIndex(c.over);
        const StepTarget& target = targets.at(static_cast<std::size_t>(earlier));
        const RunFacts* before = latestRun(s.runs, target.templateId, target.config, target.flags);
        if (!before) {
            return {CheckStatus::NeedsRun,
                    fmt::format("needs a run of step '{}''s kernel to compare with: go back to it and run it", c.over)};
        }
        if (throughput(*before) <= 0) return verdict(false, fmt::format("step '{}''s run has no throughput to compare", c.over));
        const double ratio = throughput(*run) / throughput(*before);
        return verdict(ratio >= *c.min, fmt::format("{:.2f}x the {} of step '{}' (at least {})", ratio, run->gflops > 0 ? "GFLOP/s" : "GB/s",
                                                    c.over, num(*c.min)));
    }
    default: break;
    }
    return verdict(false, "unknown metric");
}

}  // namespace

const RunFacts* currentRun(const TutorialState& state) {
    if (state.templateId.empty()) return nullptr;
    return latestRun(state.runs, state.templateId, state.config, state.flags);
}

std::vector<CheckVerdict> evaluateStep(const Tutorial& tutorial, int stepIndex, const std::vector<StepTarget>& targets,
                                       const TutorialState& state) {
    const TutorialStep& step = tutorial.steps.at(static_cast<std::size_t>(stepIndex));
    std::vector<CheckVerdict> out;
    for (const Checkpoint& c : step.checkpoints) out.push_back(judge(tutorial, step, c, targets, state));
    return out;
}

}  // namespace kx::engine
