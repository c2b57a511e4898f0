// Running a compiled variant on a GPU through kx-runner, and judging it: seeded random inputs,
// a float64 reference check, timing statistics, and a baseline timed in the same run.
#pragma once

#include "arch/arch.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "run/calibration.hpp"
#include "run/reference_registry.hpp"
#include "run/run_report.hpp"
#include "run/runner_client.hpp"
#include "templates/template.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::engine {

class RunShare;

struct RunOptions {
    int device = 0;
    int reps = 20;
    int warmup = 5;
    // The reps are timed in this many turns with the baselines' (runner/PROTOCOL.md); 1: the
    // kernel's runs first, then each baseline's.
    int rounds = 5;
    double timeoutSeconds = 10;   // the runner is killed past this (a hung kernel)
    std::uint64_t seed = 1;
    bool baseline = true;         // time the manifest's baselines (cuBLAS, CUB, device copy) in the same run
    // GEMM: the float64 reference checks every output while M*N*K is at most this; above it,
    // kSampledOutputs random outputs are checked against float64 and all of them against cuBLAS.
    double fullCheckMacs = 1.5e8;
    // PC sampling (CUPTI) over this many extra runs after the timed ones; 0: none. period: log2
    // of the sampling interval in cycles (5..31), 0 for CUPTI's default.
    int pcSamplingRuns = 0;
    int pcSamplingPeriod = 0;
    // Count the run's DRAM, L2 and L1 bytes with the hardware counters (CUPTI) in extra runs after
    // the timed ones, each from a cold L2.
    bool memoryCounters = false;
    // The runs of a sweep share inputs and baseline results through this (see run_share.hpp);
    // null: each run generates its own and times its baselines.
    std::shared_ptr<RunShare> share;
    // The device's memory (the runner's "memory_bytes"): inputs and outputs that together do not
    // fit are refused before anything is generated. 0: not known, not checked here.
    long long deviceMemoryBytes = 0;
    // The device database: set, the report says how close the run came to its device's roof
    // (RunReport::pctOfRoof, applyRoofShare). nullptr: not said.
    const ArchDatabase* arches = nullptr;
    // Called from the running thread at each stage ("preparing inputs", "running on the GPU",
    // "checking against the reference"), for progress displays. May be empty.
    std::function<void(const std::string&)> onStage;
};

inline constexpr int kSampledOutputs = 4096;

// [SECTION] The parts of a run, each testable without a GPU

// Fills report's device, timing, throughput and baselines from the runner's reply to "run"
// (report.flops and report.bytes must be set first: baselines are quoted in the kernel's work).
// Throws nlohmann::json::exception on a reply missing timing or device.
void applyRunReply(const nlohmann::json& reply, RunReport& report);

// Percentages of the measured copy bandwidth and of the measured peak of `unit` (the template's
// roofline unit), where the calibration has them.
void applyCalibration(const Calibration& calibration, const std::string& unit, RunReport& report);

// The run's share of the roof of the datasheet device its GPU is (deviceForGpuName: "NVIDIA H200"
// is the H200 SXM) at its own intensity, measured ceilings first (roofShare); unit is the
// template's roofline unit. Leaves the report as it is when the GPU matches no datasheet device
// of the arch's compute capability or the run has no rate.
void applyRoofShare(const ArchDatabase& arches, const Arch& arch, const std::string& unit,
                    const std::optional<Calibration>& calibration, RunReport& report);

// A context with the config's variables, choices, sizes and options; no arrays yet.
CheckContext checkContextFor(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes,
                             const RunOptions& options);

// Runs the reference registered as referenceName over ctx; without one, the report says
// NO REFERENCE (hasReference = false), never FAIL.
void checkOutputs(const std::string& referenceName, const CheckContext& ctx, CorrectnessReport& report);

// [SECTION] Running

// Compiles nothing: generates the inputs from the manifest's fill rules and the seed, runs the
// launch sequence and its baselines in kx-runner, and checks the outputs with the template's
// reference. `compiled` must hold a CUBIN (or PTX) for the GPU's arch. Never throws for
// GPU trouble (faults, hangs, no driver): ok=false with the reason in plain words.
RunReport runVariant(RunnerClient& runner, const Template& tmpl, const Config& config, const Arch& arch,
                     const SizeMap& sizes, const CompileResult& compiled, const RunOptions& options);

// Launches one of the runner's planted faulty kernels ("out_of_bounds", "trap", "hang"; see
// runner/PROTOCOL.md) with a deadline of `timeoutSeconds`: a report with ok=false whose error
// says in plain words what happened (the runner is replaced). variant is kPlantedFaultPrefix + KIND.
// Throws InputError on another kind.
inline constexpr const char* kPlantedFaultPrefix = "planted fault: ";
RunReport runPlantedFault(RunnerClient& runner, const std::string& kind, double timeoutSeconds);

// The runner's device list ({"ok":..,"devices":[...]}), or the reason there is none.
nlohmann::json listDevices(RunnerClient& runner);

}  // namespace kx::engine
