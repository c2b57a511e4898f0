#include "analysis/occupancy.hpp"

#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <cuda_occupancy.h>

#include <climits>
#include <string>
#include <utility>

namespace kx::engine {

// The calculator's limiting-factor bits and our names for them, in the order limiters lists them.
constexpr std::pair<unsigned, OccupancyLimiter> kLimiterFlags[] = {
    {OCC_LIMIT_WARPS, OccupancyLimiter::Warps},          {OCC_LIMIT_REGISTERS, OccupancyLimiter::Registers},
    {OCC_LIMIT_SHARED_MEMORY, OccupancyLimiter::SharedMemory}, {OCC_LIMIT_BLOCKS, OccupancyLimiter::Blocks},
    {OCC_LIMIT_BARRIERS, OccupancyLimiter::Barriers},
};

const char* limiterName(OccupancyLimiter limiter) {
    return enumName(limiter, {"warps", "registers", "shared memory", "blocks", "barriers"});
}

OccupancyResult nvidiaOccupancy(const Arch& arch, const OccupancyInput& in) {
    if (arch.vendor != Vendor::Nvidia) throw InputError(arch.name + " is not an NVIDIA arch");
    const NvidiaLimits& nv = arch.nv;
    if (in.threadsPerBlock < 1 || in.threadsPerBlock > nv.maxThreadsPerBlock)
        throw InputError("block size " + std::to_string(in.threadsPerBlock) + " is outside 1.." +
                         std::to_string(nv.maxThreadsPerBlock) + " on " + arch.name);
    if (in.registersPerThread < 0 || in.registersPerThread > nv.maxRegsPerThread)
        throw InputError(std::to_string(in.registersPerThread) + " registers per thread is outside 0.." +
                         std::to_string(nv.maxRegsPerThread) + " on " + arch.name);
    if (in.staticSmemBytes < 0 || in.dynamicSmemBytes < 0) throw InputError("shared memory cannot be negative");
    // Both may be up to LLONG_MAX (a CSV row): their sum must not overflow (found by fuzz_occupancy_csv).
    long long smemBytes = 0;
    const bool sumOverflows = __builtin_add_overflow(in.staticSmemBytes, in.dynamicSmemBytes, &smemBytes);
    if (sumOverflows || smemBytes > nv.smemPerBlockOptin)
        throw InputError((sumOverflows ? std::to_string(in.staticSmemBytes) + " + " + std::to_string(in.dynamicSmemBytes)
                                       : std::to_string(smemBytes)) +
                         " bytes of shared memory exceed the " + std::to_string(nv.smemPerBlockOptin) + "-byte per-block limit of " + arch.name);
    if (in.carveoutPercent < -1 || in.carveoutPercent > 100)
        throw InputError("carveout must be -1 (no preference) or a percentage 0..100");

    cudaOccDeviceProp prop;
    prop.computeMajor = nv.computeMajor;
    prop.computeMinor = nv.computeMinor;
    prop.maxThreadsPerBlock = nv.maxThreadsPerBlock;
    prop.maxThreadsPerMultiprocessor = nv.maxThreadsPerSm;
    prop.regsPerBlock = nv.regsPerBlock;
    prop.regsPerMultiprocessor = nv.regsPerSm;
    prop.warpSize = arch.warpSize;
    prop.sharedMemPerBlock = static_cast<size_t>(nv.smemPerBlock);
    prop.sharedMemPerMultiprocessor = static_cast<size_t>(nv.smemPerSm);
    prop.numSms = 1;
    prop.sharedMemPerBlockOptin = static_cast<size_t>(nv.smemPerBlockOptin);
    prop.reservedSharedMemPerBlock = static_cast<size_t>(nv.smemReservedPerBlock);

    cudaOccFuncAttributes attr;
    attr.maxThreadsPerBlock = INT_MAX;
    attr.numRegs = in.registersPerThread;
    attr.sharedSizeBytes = static_cast<size_t>(in.staticSmemBytes);
    // A launch with more than 48 KiB has raised cudaFuncAttributeMaxDynamicSharedMemorySize to
    // its size: that is the only way it can launch, so model exactly that.
    attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    attr.maxDynamicSharedSizeBytes = static_cast<size_t>(in.dynamicSmemBytes);
    attr.numBlockBarriers = in.barriers;

    cudaOccDeviceState state;
    state.carveoutConfig = in.carveoutPercent;

    cudaOccResult r;
    const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
        &r, &prop, &attr, &state, in.threadsPerBlock, static_cast<size_t>(in.dynamicSmemBytes));
    if (status != CUDA_OCC_SUCCESS)
        throw InputError("the occupancy calculator rejected this input for " + arch.name + " (error " + std::to_string(status) + ")");

    size_t smemConfigured = 0;
    cudaOccSMemPerMultiprocessor(&smemConfigured, &prop, &state);

    const int warpsPerBlock = (in.threadsPerBlock + arch.warpSize - 1) / arch.warpSize;
    const int activeWarpsPerSm = r.activeBlocksPerMultiprocessor * warpsPerBlock;
    const int maxWarpsPerSm = nv.maxThreadsPerSm / arch.warpSize;
    OccupancyResult out{.blocksPerSm = r.activeBlocksPerMultiprocessor,
                        .activeWarpsPerSm = activeWarpsPerSm,
                        .maxWarpsPerSm = maxWarpsPerSm,
                        .occupancy = maxWarpsPerSm ? static_cast<double>(activeWarpsPerSm) / maxWarpsPerSm : 0,
                        .limiters = {},
                        .blockLimitWarps = r.blockLimitWarps,
                        .blockLimitRegisters = r.blockLimitRegs,
                        .blockLimitSharedMemory = r.blockLimitSharedMem,
                        .blockLimitBlocks = r.blockLimitBlocks,
                        .blockLimitBarriers = r.blockLimitBarriers,
                        .allocatedRegistersPerBlock = r.allocatedRegistersPerBlock,
                        .allocatedSmemPerBlock = static_cast<long long>(r.allocatedSharedMemPerBlock),
                        .smemPerSmConfigured = static_cast<long long>(smemConfigured)};
    for (const auto& [flag, limiter] : kLimiterFlags)
        if (r.limitingFactors & flag) out.limiters.push_back(limiter);
    return out;
}

std::string explainOccupancy(const OccupancyResult& r, const OccupancyInput& in) {
    if (r.limiters.empty()) return "Nothing limits this launch below the SM's maximum.";
    std::string text;
    for (OccupancyLimiter l : r.limiters) {
        text += text.empty() ? "" : " and ";
        switch (l) {
        case OccupancyLimiter::Warps:
            text += "warps: " + std::to_string(in.threadsPerBlock) + "-thread blocks fill the SM's " +
                    std::to_string(r.maxWarpsPerSm) + " warp slots after " + std::to_string(r.blockLimitWarps) + " blocks";
            break;
        case OccupancyLimiter::Registers:
            text += "registers: " + std::to_string(r.allocatedRegistersPerBlock) + " per block (" +
                    std::to_string(in.registersPerThread) + " per thread, allocated per warp) fit " +
                    std::to_string(r.blockLimitRegisters) + " blocks";
            break;
        case OccupancyLimiter::SharedMemory:
            text += "shared memory: " + std::to_string(r.allocatedSmemPerBlock) + " bytes per block (reserve included) fit " +
                    std::to_string(r.blockLimitSharedMemory) + " blocks in " + std::to_string(r.smemPerSmConfigured) + " bytes";
            break;
        case OccupancyLimiter::Blocks:
            text += "blocks: the SM holds at most " + std::to_string(r.blockLimitBlocks) + " blocks";
            break;
        case OccupancyLimiter::Barriers:
            text += "barriers: the SM's barrier slots allow " + std::to_string(r.blockLimitBarriers) + " blocks";
            break;
        }
    }
    return "Limited by " + text + ".";
}

}  // namespace kx::engine
