// Theoretical occupancy of a kernel launch.
//
// NVIDIA: computed by the CUDA Toolkit's own calculator (cuda_occupancy.h) fed with the arch's
// limits from assets/arch, so it needs no GPU and agrees with the driver's
// cuOccupancyMaxActiveBlocksPerMultiprocessor.
#pragma once

#include "arch/arch.hpp"

#include <string>
#include <vector>

namespace kx::engine {

struct OccupancyInput {
    int registersPerThread = 0;
    int threadsPerBlock = 0;
    long long staticSmemBytes = 0;
    long long dynamicSmemBytes = 0;
    int carveoutPercent = -1;  // preferred shared-memory carveout: -1 no preference, else 0..100
    int barriers = 1;          // named barriers the kernel uses
};

enum class OccupancyLimiter { Warps, Registers, SharedMemory, Blocks, Barriers };

struct OccupancyResult {
    int blocksPerSm = 0, activeWarpsPerSm = 0, maxWarpsPerSm = 0;
    double occupancy = 0;  // active warps / max warps, 0..1
    std::vector<OccupancyLimiter> limiters;  // every resource that caps blocksPerSm
    // Blocks per SM each resource alone would allow.
    int blockLimitWarps = 0, blockLimitRegisters = 0, blockLimitSharedMemory = 0, blockLimitBlocks = 0, blockLimitBarriers = 0;
    int allocatedRegistersPerBlock = 0;
    long long allocatedSmemPerBlock = 0;  // including the per-block reservation
    long long smemPerSmConfigured = 0;    // shared memory the SM is configured to for this launch
};

const char* limiterName(OccupancyLimiter limiter);  // "registers", "shared memory", ...

// One sentence on what limits the launch, for the UI and the CLI.
std::string explainOccupancy(const OccupancyResult& result, const OccupancyInput& input);

// Throws InputError when the arch is not NVIDIA or the input cannot launch at all (block too
// large, too many registers per thread, shared memory over the opt-in limit), naming the reason.
OccupancyResult nvidiaOccupancy(const Arch& arch, const OccupancyInput& input);

}  // namespace kx::engine
