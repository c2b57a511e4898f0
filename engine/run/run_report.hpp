// What a run of a variant found: correctness against the CPU reference, timing, and the
// baselines timed in the same process. The same value for every template.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kx::engine {

using SizeMap = std::map<std::string, long long>;

enum class Verdict { Pass, Fail, NoReference };

struct CorrectnessReport {
    // false (with passed=false) when the template's manifest names no CPU reference, or names
    // one this build does not have: the outputs were not checked, which is not a failure.
    bool hasReference = true;
    bool passed = false;
    std::string method;          // how the outputs were checked, in words
    long long checked = 0;       // outputs compared with the reference
    long long total = 0;         // outputs the kernel produced
    double maxAbsError = 0;
    double maxRelError = 0;      // |got - ref| / scale (see reference.hpp's tolerance())
    double tolerance = 0;
    long long firstBadIndex = -1;
    std::string firstBadText;    // "C[12,40] = 3.1 (expected 2.9)"
    // Full comparison with a baseline's own output (cuBLAS, CUB), when the reference made one.
    bool baselineCompared = false;
    bool baselineAgrees = false;
    double baselineMaxRelDiff = 0;

    Verdict verdict() const { return !hasReference ? Verdict::NoReference : passed ? Verdict::Pass : Verdict::Fail; }
};

// "PASS", "FAIL", "NO REFERENCE".
const char* verdictText(Verdict verdict);

// One baseline timed in the same run: a library doing the same work (cuBLAS, CUB) or the device
// copying the same number of bytes. Its throughput is the kernel's own work (the template's FLOP
// and byte formulas) over the baseline's time, so kernel and baseline read on one scale.
struct BaselineReport {
    std::string id;              // the runner's baseline name: "cublas_gemm", "copy", "cub_scan"
    std::string name;            // "cuBLAS f16 (B transposed)", "device copy", "CUB DeviceScan"
    std::string error;           // non-empty: it could not run (a runner without CUB); no figures
    double medianMs = 0;
    double tflops = 0;           // the kernel's FLOPs in the baseline's time (0 when FLOPs are 0)
    double gbps = 0;             // the kernel's bytes in the baseline's time
    double speedup = 0;          // baseline time / kernel time (> 1: the kernel is faster)
    int rotationSets = 0;        // copies of the inputs its timed runs took in turn (the kernel's)
    bool ok() const { return error.empty() && medianMs > 0; }
};

// One instruction's program-counter samples (CUPTI's PC sampling): how often a warp was found
// at it, and the reasons it was not issuing (stall reason -> samples).
struct PcSample {
    std::string function;
    long long offset = 0;        // bytes from the function's start, as nvdisasm prints /*0080*/
    long long samples = 0;
    std::map<std::string, long long> stalls;
};

struct PcSamplingReport {
    std::string error;           // non-empty: sampling could not be done (no CUPTI, no permission)
    int period = 0;              // log2 of the interval in cycles (0: CUPTI's default)
    int runs = 0;                // runs of the launch sequence sampled
    long long totalSamples = 0;
    long long droppedSamples = 0;
    std::vector<PcSample> pcs;
};

// The memory traffic of one run counted by the GPU's hardware counters (CUPTI's Range Profiler,
// each pass from a cold L2): what the kernel really moved, beside the template's byte formula.
struct MemoryCountersReport {
    std::string error;           // non-empty: not counted (no CUPTI, no permission to profile)
    double dramReadBytes = 0;
    double dramWriteBytes = 0;
    double l2Bytes = 0;          // every request L2 served (lts__t_bytes)
    double l1Bytes = 0;          // every request L1/TEX served, shared memory included (l1tex__t_bytes)
    int passes = 0;              // runs the counters needed
    double dramBytes() const { return dramReadBytes + dramWriteBytes; }
    bool ok() const { return error.empty() && passes > 0; }
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
    // The runner timed the kernel and its baselines in this many turns (each a share of the reps),
    // so that a drift of the clocks touches them alike; 0 in reports made before.
    int rounds = 0;
    double flops = 0, bytes = 0;
    double tflops = 0, gbps = 0;
    // Percentages of the device's measured ceilings (kx calibrate), when calibrated: the copy
    // bandwidth, and the measured peak of the compute unit the template's roofline names.
    std::optional<double> pctOfCopyBandwidth;
    std::optional<double> pctOfComputeCeiling;
    std::string computeCeilingName;  // "cuBLAS f16 (measured)": what pctOfComputeCeiling is of
    // The run's share of its device's roof at its own intensity (roofShare in
    // analysis/roofline.hpp): the measured ceilings where calibrated, else the datasheet's, so
    // an uncalibrated GPU has a figure too. roofName says which ceiling binds, and whose.
    std::optional<double> pctOfRoof;
    std::string roofName;            // "FP16 tensor roof, NVIDIA H200 SXM 141GB datasheet"
    CorrectnessReport correctness;
    // In the manifest's order; the first that ran is the one ratios are quoted against.
    std::vector<BaselineReport> baselines;
    int registers = 0;
    int driverBlocksPerSm = 0;
    long long persistentBlocks = 0;  // a persistent launch: the blocks the runner launched (0: not persistent)
    int smCount = 0;                 // the GPU's SMs, as the runner reported them
    long long gridBlocks = 0;        // the primary launch's blocks at the run's sizes (before a persistent launch's cap)
    std::optional<PcSamplingReport> pcSampling;  // when the run asked for PC sampling
    std::optional<MemoryCountersReport> memoryCounters;  // when the run asked for hardware counters
    // Wall time of the run's phases in ms: the runner's ("upload", "timing", "baselines"...) and
    // the host's ("inputs", "runner", "check"), to see where the time of a run goes.
    std::map<std::string, double> phasesMs;

    // The first baseline that ran, or nullptr.
    const BaselineReport* primaryBaseline() const;
};

// The counted traffic in one line: "DRAM 33.6 MB read + 16.8 MB written (1.02x the template's
// 49.2 MB), L2 120 MB, L1 402 MB in 2 passes"; the error sentence when it was not counted; empty
// when the run did not ask.
std::string memoryTrafficText(const RunReport& report);

}  // namespace kx::engine
