// Architectures and named devices, as loaded from assets/arch/ and assets/devices/.
//
// An Arch holds the per-architecture limits that validation and occupancy need. Values are
// plain numbers in the units given; every file records the documents they came from.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kx::engine {

enum class Vendor { Nvidia, Amd };

// Limits of an NVIDIA streaming multiprocessor. Units: threads, registers (32-bit), bytes.
struct NvidiaLimits {
    int computeMajor = 0, computeMinor = 0;
    // Resident threads, blocks and warps.
    int maxThreadsPerBlock = 0, maxThreadsPerSm = 0, maxBlocksPerSm = 0, maxWarpsPerSm = 0;
    // The register file, and its allocation: per warp, in units of regAllocUnit registers.
    int regsPerSm = 0, regsPerBlock = 0, maxRegsPerThread = 0, regAllocUnit = 0;
    int smemPerSm = 0;               // bytes at the largest carveout
    int smemPerBlock = 0;            // bytes without opt-in (48 KiB)
    int smemPerBlockOptin = 0;       // bytes with cudaFuncAttributeMaxDynamicSharedMemorySize
    int smemReservedPerBlock = 0;    // bytes the system reserves in each block
    int smemAllocUnit = 0;           // bytes
    std::vector<int> carveoutStepsKiB;  // shared-memory capacities the SM can be configured to
    int barriersPerBlock = 16;       // named barriers per block
};

// Limits of an AMD compute unit (CDNA). Units: waves, registers, bytes.
struct AmdLimits {
    int simdsPerCu = 0, maxWavesPerSimd = 0;
    int vgprsPerSimd = 0;            // per lane: the register file a SIMD shares among its waves
    int maxVgprsPerWave = 0;         // arch VGPRs + AGPRs a wave may address (unified on CDNA2/3)
    int vgprAllocGranule = 0;
    int sgprsPerSimd = 0, maxSgprsPerWave = 0, sgprAllocGranule = 0;
    int ldsPerCu = 0;                // bytes
    int maxLdsPerWorkgroup = 0;      // bytes
    int ldsAllocGranule = 0;         // bytes
    int maxThreadsPerWorkgroup = 0;
};

struct Arch {
    std::string name;        // as the compiler spells it: "sm_90a", "gfx942"
    std::string family;      // "Hopper", "CDNA3"
    Vendor vendor = Vendor::Nvidia;
    bool compilable = true;  // false: analysis only (NVRTC of this toolkit rejects it)
    int warpSize = 32;       // wave size on AMD
    long long l2Bytes = 0;   // typical L2 of the architecture's flagship part
    NvidiaLimits nv;
    AmdLimits amd;
    std::string source;      // documents the figures come from
    std::string file;        // where it was loaded from
    int line = 0;

    // Numbers that manifests may use in constraint and formula expressions, with
    // snake_case names: warp_size, max_threads_per_block, smem_per_block,
    // smem_per_block_optin, smem_per_sm, regs_per_sm, regs_per_block,
    // max_regs_per_thread, max_threads_per_sm, max_blocks_per_sm, cc (e.g. 90), l2_bytes.
    std::map<std::string, double> expressionVariables() const;
};

// A named product, for rooflines and for the "% of peak" figures.
struct DeviceSpec {
    std::string id;           // "h100_sxm"
    std::string name;         // "NVIDIA H100 SXM5 80GB"
    std::string arch;         // "sm_90"
    int smCount = 0;          // SMs, or CUs on AMD
    double boostClockMhz = 0;
    double memoryGiB = 0;
    double memBandwidthGBs = 0;  // GB/s (10^9 bytes) from the datasheet
    long long l2Bytes = 0;
    // Peak dense throughput in TFLOP/s (TOP/s for int8), keyed by unit:
    // fp64, fp32, fp16_tensor, bf16_tensor, tf32_tensor, fp8_tensor, int8_tensor.
    std::map<std::string, double> peakTflops;
    std::string source;
    std::string file;
    int line = 0;
};

struct LoadError {
    std::string file;
    int line = 0;             // 0 when unknown
    std::string message;
    std::string toString() const;  // "file:line: message"
};

}  // namespace kx::engine
