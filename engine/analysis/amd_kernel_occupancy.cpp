#include "analysis/amd_kernel_occupancy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::engine {

AmdOccupancyInput amdOccupancyInput(const AmdKernelResources& kernel, int workgroupSize, long long dynamicLdsBytes) {
    AmdOccupancyInput in;
    in.vgprsPerThread = kernel.vgprs;
    in.agprsPerThread = kernel.agprs;
    in.sgprsPerWave = kernel.sgprs;
    in.workgroupSize = workgroupSize;
    in.ldsBytesPerWorkgroup = kernel.ldsBytes + dynamicLdsBytes;
    return in;
}

int compilerStyleWavesPerSimd(const Arch& arch, const AmdKernelResources& kernel) {
    const AmdLimits& amd = arch.amd;
    const int waveSize = arch.warpSize > 0 ? arch.warpSize : 64;
    const int maxWaves = amd.maxWavesPerSimd;
    int waves = maxWaves;
    // getOccupancyWithLocalMemSize: workgroups = min(getMaxWorkGroupsPerCU, LDS per CU / bytes),
    // then divideCeil(workgroups x waves per workgroup, SIMDs), clamped to [1, max waves].
    const int workgroupSize = kernel.maxFlatWorkgroupSize > 0 ? kernel.maxFlatWorkgroupSize : amd.maxThreadsPerWorkgroup;
    const int wavesPerWorkgroup = (workgroupSize + waveSize - 1) / waveSize;
    const int slots = maxWaves * amd.simdsPerCu;
    // getMaxWorkGroupsPerCU: single-wave workgroups need no barrier; otherwise at most 16.
    const int maxWorkgroups = wavesPerWorkgroup == 1 ? slots : std::min(slots / wavesPerWorkgroup, 16);
    const long long groupsByLds = amd.ldsPerCu / std::max<long long>(kernel.ldsBytes, 1);
    const long long groups = std::min<long long>(maxWorkgroups, groupsByLds);
    const long long ldsWaves = (groups * wavesPerWorkgroup + amd.simdsPerCu - 1) / amd.simdsPerCu;
    waves = static_cast<int>(std::clamp<long long>(ldsWaves, 1, maxWaves));
    // getOccupancyWithNumSGPRs, GFX9 (gfx90a and gfx942 included): 80, 88, 100 SGPRs per wave
    // keep 10, 9, 8 waves; more keep 7.
    if (kernel.sgprs > 0) waves = std::min(waves, kernel.sgprs <= 80 ? 10 : kernel.sgprs <= 88 ? 9 : kernel.sgprs <= 100 ? 8 : 7);
    // getOccupancyWithNumVGPRs: the unified count in granules, over the SIMD's file.
    const int vgprs = kernel.totalVgprs > 0 ? kernel.totalVgprs : kernel.vgprs;
    if (vgprs >= amd.vgprAllocGranule) {
        const int allocated = (vgprs + amd.vgprAllocGranule - 1) / amd.vgprAllocGranule * amd.vgprAllocGranule;
        waves = std::min(waves, std::max(amd.vgprsPerSimd / allocated, 1));
    }
    return std::min(waves, maxWaves);
}

AmdKernelOccupancy amdKernelOccupancy(const Arch& arch, const AmdKernelResources& kernel, int workgroupSize, long long dynamicLdsBytes) {
    AmdKernelOccupancy o;
    o.input = amdOccupancyInput(kernel, workgroupSize, dynamicLdsBytes);
    o.result = amdOccupancy(arch, o.input);
    o.explanation = explainAmdOccupancy(o.result, o.input, arch);
    o.compilerWavesPerSimd = kernel.compilerOccupancy;
    o.reproducedWavesPerSimd = compilerStyleWavesPerSimd(arch, kernel);
    if (o.compilerWavesPerSimd <= 0) return o;
    o.agreesWithCompiler = o.reproducedWavesPerSimd == o.compilerWavesPerSimd;
    const int ours = static_cast<int>(std::floor(o.result.wavesPerSimd));
    if (ours == o.compilerWavesPerSimd) return o;
    // The same data, counted two ways: say which way makes the difference.
    if (workgroupSize != kernel.maxFlatWorkgroupSize)
        o.difference = fmt::format("the compiler assumed {}-thread workgroups (the kernel's bound); this launch has {}",
                                   kernel.maxFlatWorkgroupSize, workgroupSize);
    else if (dynamicLdsBytes > 0)
        o.difference = fmt::format("the compiler does not know the launch's {} bytes of dynamic LDS", dynamicLdsBytes);
    else
        o.difference = fmt::format("{:g} waves per SIMD counting whole {}-wave workgroups and LDS in {}-byte blocks; the compiler "
                                   "rounds waves up and leaves the LDS granule out, giving {}",
                                   o.result.wavesPerSimd, o.result.wavesPerWorkgroup, arch.amd.ldsAllocGranule, o.compilerWavesPerSimd);
    return o;
}

}  // namespace kx::engine
