// Running a compiled variant on a GPU through kx-runner, and judging it: seeded random inputs,
// a float64 reference check, timing statistics, and a baseline timed in the same run.
#pragma once

#include "arch/arch.hpp"
#include "compile/compiler.hpp"
#include "run/calibration.hpp"
#include "run/runner_client.hpp"
#include "templates/template.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kx::engine {

struct RunOptions {
    int device = 0;
    int reps = 20;
    int warmup = 5;
    double timeoutSeconds = 10;   // the runner is killed past this (a hung kernel)
    std::uint64_t seed = 1;
    bool baseline = true;         // cuBLAS for GEMM, device copy for memory-bound templates
    // GEMM: the float64 reference checks every output while M*N*K is at most this; above it,
    // kSampledOutputs random outputs are checked against float64 and all of them against cuBLAS.
    double fullCheckMacs = 1.5e8;
    // Called from the running thread at each stage ("preparing inputs", "running on the GPU",
    // "checking against float64"), for progress displays. May be empty.
    std::function<void(const std::string&)> onStage;
};

inline constexpr int kSampledOutputs = 4096;

struct CorrectnessReport {
    bool passed = false;
    std::string method;          // how the outputs were checked, in words
    long long checked = 0;       // outputs compared with the float64 reference
    long long total = 0;         // outputs the kernel produced
    double maxAbsError = 0;
    double maxRelError = 0;      // |got - ref| / scale (see reference.hpp's tolerance())
    double tolerance = 0;
    long long firstBadIndex = -1;
    std::string firstBadText;    // "C[12,40] = 3.1 (expected 2.9)"
    // Full comparison with the baseline's own output (cuBLAS), when there is one.
    bool baselineCompared = false;
    bool baselineAgrees = false;
    double baselineMaxRelDiff = 0;
};

struct BaselineReport {
    std::string name;            // "cuBLAS f16 (B transposed)", "device copy"
    double medianMs = 0;
    double tflops = 0;           // for GEMM
    double gbps = 0;             // for copy
    double speedup = 0;          // baseline time / kernel time (> 1: the kernel is faster)
};

struct RunReport {
    bool ok = false;             // false: the run could not be made (error says why)
    std::string error;
    std::string variant;
    std::string deviceName;
    std::string deviceArch;      // "sm_90"
    SizeMap sizes;
    double medianMs = 0, minMs = 0, maxMs = 0;
    int reps = 0;
    int rotationSets = 0;
    double flops = 0, bytes = 0;
    double tflops = 0, gbps = 0;
    // Percentages of the device's measured ceilings (calibration), when calibrated.
    std::optional<double> pctOfCopyBandwidth;
    std::optional<double> pctOfCublasPeak;
    CorrectnessReport correctness;
    std::optional<BaselineReport> baseline;
    // A library's implementation of the same operation timed in the same run (CUB DeviceReduce
    // for the reduction), when the runner has it; libraryBaselineError says why not otherwise.
    std::optional<BaselineReport> libraryBaseline;
    std::string libraryBaselineError;
    int registers = 0;
    int driverBlocksPerSm = 0;
};

// The dtype name ("f32", "f16", "bf16", "i32", "u32") and element size of a C type of a kernel
// argument. Throws InputError on a type the runner cannot fill.
std::pair<std::string, int> dtypeOfCType(const std::string& ctype);

// Compiles nothing: `compiled` must hold a CUBIN (or PTX) for the GPU's arch. Never throws for
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
