// Judging a tutorial step's checkpoints on a plain state that the app (its live editor) and `kx
// tutorial check` (a session file) both fill. Every verdict carries a reason in words.
//
// A checkpoint that needs a GPU run (run-passed, pct-copy, pct-baseline, pct-roof, gflops, speedup) when
// no run of the current config exists is NeedsRun, never Fail, and its reason says so; when the
// tutorial ships a run recorded on a real GPU, the reason quotes it as recorded, with the device
// and date, never as measured here.
// Pure functions; thread-safe.
#pragma once

#include "arch/arch.hpp"
#include "compile/compiler.hpp"
#include "run/run_report.hpp"
#include "templates/template.hpp"
#include "tutorial/tutorial.hpp"

#include <map>
#include <utility>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

// One run, with the config it ran.
struct RunFacts {
    std::string templateId;
    std::map<std::string, std::string> config;
    std::string flags;                 // the variant's compiler flags, canonical ("" for the defaults)
    std::string device;
    bool ok = false;                   // the run happened (no fault, no missing driver)
    bool passed = false;               // its outputs passed the reference check
    std::string verdict;               // "PASS", "FAIL", "NO REFERENCE"
    double medianMs = 0;
    double gflops = 0;
    double gbps = 0;
    std::optional<double> pctCopy;     // of the calibrated copy bandwidth, else of a same-run copy
    std::optional<double> pctBaseline; // of the speed of the first baseline that ran
    std::string baselineName;
    std::optional<double> pctRoof;     // of the roofline at the run's intensity (RunReport::pctOfRoof)
    std::string roofName;
    // Every baseline that ran, by the runner's id ("attention_composed"): the percentage of its
    // speed and its name.
    std::map<std::string, std::pair<double, std::string>> pctByBaseline;
};

RunFacts runFacts(const RunReport& report, const std::string& templateId, const std::map<std::string, std::string>& config,
                  const std::string& flags = {});

struct TutorialState {
    std::string templateId;            // empty when nothing is selected
    std::string arch;
    std::map<std::string, std::string> config;
    std::string flags;                 // compiler flags, canonical ("" for the defaults)
    bool compiled = false;             // PTX and the ptxas report of this config are there
    std::string compileNote;           // why not compiled, in words ("compiling", "invalid: ...")
    std::optional<int> registers;      // the primary kernel's, per thread
    std::optional<long long> spillBytes;
    std::optional<double> occupancyPct;
    std::vector<std::string> opcodes;  // the PTX's distinct instruction opcodes
    std::vector<RunFacts> runs;        // every run known, of any config, oldest first
};

// The PTX's distinct opcodes ("ld.global.nc.v4.f32", "mma.sync.aligned.m16n8k16.row.col...").
std::vector<std::string> ptxOpcodes(std::string_view ptx);
// True when an opcode starts with `text` or has it as a dotted component: "mma" matches
// "mma.sync..." and "wgmma.mma_async..." but not "ldmatrix".
bool opcodesContain(const std::vector<std::string>& opcodes, std::string_view text);

// Fills compiled, registers, spills, occupancy and opcodes from a compile of `config`: the
// primary kernel (at the template's default sizes) in `kernels`, occupancy from the CUDA
// calculator (NVIDIA arches). Empty `kernels` leaves it not compiled.
void setCompileFacts(TutorialState& state, const Template& tmpl, const Arch& arch, const Config& config, std::string_view ptx,
                     const std::vector<KernelResources>& kernels);

enum class CheckStatus { Pass, Fail, NeedsRun };
const char* checkStatusName(CheckStatus status);  // "pass", "fail", "needs a GPU run"

struct CheckVerdict {
    CheckStatus status = CheckStatus::Fail;
    std::string reason;
};

// The latest successful run of the state's current config (template and every value); nullptr
// when none.
const RunFacts* currentRun(const TutorialState& state);

// The verdict of each checkpoint of step `stepIndex`, in order. `targets` are stepTargets() of the
// tutorial: a speed-up is measured against the latest run of the earlier step's target config.
std::vector<CheckVerdict> evaluateStep(const Tutorial& tutorial, int stepIndex, const std::vector<StepTarget>& targets,
                                       const TutorialState& state);

}  // namespace kx::engine
