// The rules, each with the document it comes from. Abbreviations used below:
//   [BaseInfo]  LLVM llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp, namespace IsaInfo
//   [Subtarget] LLVM llvm/lib/Target/AMDGPU/AMDGPUSubtarget.cpp
//   [Usage]     LLVM docs, AMDGPUUsage ("Processors"; COMPUTE_PGM_RSRC1/2; "accum_offset")
//   [ISA]       AMD Instinct MI200 (CDNA2) / MI300 (CDNA3) Instruction Set Architecture guides
// The per-arch numbers (512 VGPRs, granule 8, 800 SGPRs, granule 16, 64 KiB LDS, granule 512 B,
// 8 waves per SIMD, 4 SIMDs, 1024 threads) live in assets/arch/gfx90a.xml and gfx942.xml, whose
// <source> cites the same functions.
#include "analysis/amd_occupancy.hpp"

#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace kx::engine {

namespace {

// Workgroups of more than one wave hold one of the CU's 16 barriers while resident; single-wave
// workgroups need none. [BaseInfo] getMaxWorkGroupsPerCU: MaxBarriers = 16 (32 only on gfx10+
// in WGP mode), "Single-wave workgroups don't consume barrier resources".
constexpr int kBarrierWorkgroupsPerCu = 16;

// SGPRs a kernel may use beyond the addressable ones: VCC (2), FLAT_SCRATCH and XNACK_MASK; on
// GFX8/GFX9 (CDNA included) the compiler reserves at most 6. [BaseInfo] getNumExtraSGPRs.
constexpr int kMaxExtraSgprs = 6;

// On CDNA2/3 the AGPRs follow the arch VGPRs in the unified file at an offset aligned to 4.
// [Usage] accum_offset ("granularity 4"); [BaseInfo] getTotalNumVGPRs(has90AInsts, NumAGPR,
// NumVGPR) = alignTo(NumVGPR, 4) + NumAGPR when AGPRs are used.
constexpr int kAgprOffsetAlign = 4;

// Arch VGPRs and AGPRs are each addressed v0..v255 / a0..a255. [BaseInfo]
// getAddressableNumArchVGPRs = 256; [ISA] "Vector registers", "Accumulation VGPRs".
constexpr int kMaxRegsPerKind = 256;

int roundUp(int value, int granule) { return granule > 0 ? (value + granule - 1) / granule * granule : value; }
long long roundUp(long long value, long long granule) {
    return granule > 0 ? (value + granule - 1) / granule * granule : value;
}

// Waves per SIMD that `regs` registers per wave (or lane) allow out of a file of `total`.
// [BaseInfo] getNumWavesPerEUWithNumVGPRs: fewer than a granule -> the hardware maximum; else
// min(max(total / alignTo(regs, granule), 1), max waves). The same division with the SGPR file
// (getTotalNumSGPRs = 800, getSGPRAllocGranule = 16 on GFX8/GFX9) is the inverse of
// [BaseInfo] getMaxNumSGPRs (alignDown(800 / waves, 16)): 96 SGPRs keep 8 waves, 97 give 7.
// (LLVM's older table getOccupancyWithNumSGPRs still says 8 up to 100 SGPRs; with 16-SGPR
// granules 97..100 allocate 112, and 8 x 112 > 800, so we follow the allocation.)
int wavesWithRegisters(int regs, int granule, int total, int maxWaves) {
    if (regs <= 0 || regs < granule) return maxWaves;
    return std::min(std::max(total / roundUp(regs, granule), 1), maxWaves);
}

}  // namespace

const char* amdLimiterName(AmdOccupancyLimiter limiter) {
    return enumName(limiter, {"VGPRs", "SGPRs", "LDS", "wave slots", "workgroup slots"});
}

AmdOccupancyResult amdOccupancy(const Arch& arch, const AmdOccupancyInput& in) {
    if (arch.vendor != Vendor::Amd) throw InputError(arch.name + " is not an AMD arch");
    const AmdLimits& amd = arch.amd;
    const int waveSize = arch.warpSize > 0 ? arch.warpSize : 64;

    // [BaseInfo] getMaxFlatWorkGroupSize = 1024; [ISA] a workgroup is at most 16 wave64s.
    if (in.workgroupSize < 1 || in.workgroupSize > amd.maxThreadsPerWorkgroup)
        throw InputError("workgroup size " + std::to_string(in.workgroupSize) + " is outside 1.." +
                         std::to_string(amd.maxThreadsPerWorkgroup) + " threads on " + arch.name);
    if (in.vgprsPerThread < 0 || in.agprsPerThread < 0) throw InputError("VGPR and AGPR counts cannot be negative");
    if (in.agprsPerThread > 0 && in.vgprsPerThread > kMaxRegsPerKind)
        throw InputError(std::to_string(in.vgprsPerThread) + " arch VGPRs per thread exceed the " +
                         std::to_string(kMaxRegsPerKind) + " a wave can address next to AGPRs on " + arch.name);
    if (in.agprsPerThread > kMaxRegsPerKind)
        throw InputError(std::to_string(in.agprsPerThread) + " AGPRs per thread exceed the " +
                         std::to_string(kMaxRegsPerKind) + " a wave can address on " + arch.name);
    const int unified =
        in.agprsPerThread > 0 ? roundUp(in.vgprsPerThread, kAgprOffsetAlign) + in.agprsPerThread : in.vgprsPerThread;
    // [BaseInfo] getAddressableNumVGPRs = 512 with GFX90A instructions (arch VGPRs + AGPRs).
    if (unified > amd.maxVgprsPerWave)
        throw InputError(std::to_string(unified) + " VGPRs per thread (arch + AGPRs) exceed the " +
                         std::to_string(amd.maxVgprsPerWave) + " a wave may use on " + arch.name);
    if (in.sgprsPerWave < 0) throw InputError("SGPR count cannot be negative");
    // [BaseInfo] getAddressableNumSGPRs = 102 on GFX8/GFX9, plus the reserved extras.
    if (in.sgprsPerWave > amd.maxSgprsPerWave + kMaxExtraSgprs)
        throw InputError(std::to_string(in.sgprsPerWave) + " SGPRs per wave exceed the " +
                         std::to_string(amd.maxSgprsPerWave) + " addressable (+" + std::to_string(kMaxExtraSgprs) +
                         " for VCC, FLAT_SCRATCH, XNACK_MASK) on " + arch.name);
    if (in.ldsBytesPerWorkgroup < 0) throw InputError("LDS cannot be negative");
    // [Usage] "Processors": 64 KiB of LDS per workgroup on gfx90a/gfx942.
    if (in.ldsBytesPerWorkgroup > amd.maxLdsPerWorkgroup)
        throw InputError(std::to_string(in.ldsBytesPerWorkgroup) + " bytes of LDS exceed the " +
                         std::to_string(amd.maxLdsPerWorkgroup) + "-byte per-workgroup limit of " + arch.name);

    AmdOccupancyResult r;
    r.maxWavesPerSimd = amd.maxWavesPerSimd;
    // [BaseInfo] getWavesPerWorkGroup = divideCeil(workgroup size, wave size).
    r.wavesPerWorkgroup = (in.workgroupSize + waveSize - 1) / waveSize;
    const int waveSlotsPerCu = amd.maxWavesPerSimd * amd.simdsPerCu;

    // A workgroup's waves may be placed on any of the CU's SIMDs ([Subtarget]
    // getOccupancyWithWorkGroupSizes: "all wavefronts are spread across all EUs"), so a
    // per-SIMD limit of L waves gives the CU L x SIMDs slots for whole workgroups.
    auto workgroupsFromWavesPerSimd = [&](int wavesPerSimd) { return wavesPerSimd * amd.simdsPerCu / r.wavesPerWorkgroup; };

    // VGPRs: the SIMD's 512 per lane shared among its waves, allocated in granules of 8.
    r.allocatedVgprs = unified > 0 ? roundUp(unified, amd.vgprAllocGranule) : 0;
    r.vgprWavesPerSimd = wavesWithRegisters(unified, amd.vgprAllocGranule, amd.vgprsPerSimd, amd.maxWavesPerSimd);
    r.workgroupLimitVgprs = workgroupsFromWavesPerSimd(r.vgprWavesPerSimd);

    // SGPRs: 800 per SIMD, allocated in granules of 16 ([Usage] COMPUTE_PGM_RSRC1
    // GRANULATED_WAVEFRONT_SGPR_COUNT, GFX9: units of 16).
    r.allocatedSgprs = in.sgprsPerWave > 0 ? roundUp(in.sgprsPerWave, amd.sgprAllocGranule) : 0;
    r.sgprWavesPerSimd = wavesWithRegisters(in.sgprsPerWave, amd.sgprAllocGranule, amd.sgprsPerSimd, amd.maxWavesPerSimd);
    r.workgroupLimitSgprs = in.sgprsPerWave > 0 ? workgroupsFromWavesPerSimd(r.sgprWavesPerSimd) : kAmdNoLimit;

    // LDS: the CU's 64 KiB shared by its workgroups, allocated in 128-dword (512-byte) blocks
    // ([Usage] COMPUTE_PGM_RSRC2 GRANULATED_LDS_SIZE, GFX7+: 128 dwords). [Subtarget]
    // getOccupancyWithWorkGroupSizes: workgroups per CU = LDS per CU / LDS per workgroup (it
    // leaves the granule out, a FIXME there; the hardware allocates whole blocks).
    r.allocatedLds = roundUp(in.ldsBytesPerWorkgroup, static_cast<long long>(amd.ldsAllocGranule));
    r.workgroupLimitLds = r.allocatedLds > 0 ? static_cast<int>(amd.ldsPerCu / r.allocatedLds) : kAmdNoLimit;

    // Wave slots: 8 per SIMD ([BaseInfo] getMaxWavesPerEU = 8 for GFX90A-class targets, gfx942
    // included), 32 per CU, filled by whole workgroups ([BaseInfo] getMaxWorkGroupsPerCU:
    // MaxWaves / waves per workgroup).
    r.workgroupLimitWaves = waveSlotsPerCu / r.wavesPerWorkgroup;
    r.workgroupLimitSlots = r.wavesPerWorkgroup > 1 ? kBarrierWorkgroupsPerCu : kAmdNoLimit;

    r.workgroupsPerCu = std::min({r.workgroupLimitVgprs, r.workgroupLimitSgprs, r.workgroupLimitLds,
                                  r.workgroupLimitWaves, r.workgroupLimitSlots});
    // Registers can leave too few slots for even one workgroup (512 VGPRs, 1024 threads): the
    // compiler refuses such a kernel ([BaseInfo] getMaxNumVGPRs for getWavesPerEUForWorkGroup),
    // and the hardware could never start it.
    if (r.workgroupsPerCu == 0) {
        const bool vgprs = r.workgroupLimitVgprs == 0;
        throw InputError(fmt::format("a {}-thread workgroup needs {} waves per SIMD, but {} allow only {} on {}",
                                     in.workgroupSize, (r.wavesPerWorkgroup + amd.simdsPerCu - 1) / amd.simdsPerCu,
                                     vgprs ? std::to_string(unified) + " VGPRs per thread"
                                           : std::to_string(in.sgprsPerWave) + " SGPRs per wave",
                                     vgprs ? r.vgprWavesPerSimd : r.sgprWavesPerSimd, arch.name));
    }
    r.wavesPerCu = r.workgroupsPerCu * r.wavesPerWorkgroup;
    r.wavesPerSimd = static_cast<double>(r.wavesPerCu) / amd.simdsPerCu;
    r.occupancy = amd.maxWavesPerSimd ? r.wavesPerSimd / amd.maxWavesPerSimd : 0;

    // A register file is named only when it holds waves below the hardware's 8 per SIMD: at the
    // maximum, the wave slots are what binds, however few registers are used.
    const int wg = r.workgroupsPerCu;
    if (r.workgroupLimitVgprs == wg && r.vgprWavesPerSimd < amd.maxWavesPerSimd) r.limiters.push_back(AmdOccupancyLimiter::Vgprs);
    if (r.workgroupLimitSgprs == wg && r.sgprWavesPerSimd < amd.maxWavesPerSimd) r.limiters.push_back(AmdOccupancyLimiter::Sgprs);
    if (r.workgroupLimitLds == wg) r.limiters.push_back(AmdOccupancyLimiter::Lds);
    if (r.workgroupLimitWaves == wg) r.limiters.push_back(AmdOccupancyLimiter::Waves);
    if (r.workgroupLimitSlots == wg) r.limiters.push_back(AmdOccupancyLimiter::Workgroup);
    return r;
}

std::string explainAmdOccupancy(const AmdOccupancyResult& r, const AmdOccupancyInput& in, const Arch& arch) {
    const AmdLimits& amd = arch.amd;
    std::string text;
    for (AmdOccupancyLimiter l : r.limiters) {
        if (!text.empty()) text += " and ";
        switch (l) {
        case AmdOccupancyLimiter::Vgprs:
            text += "VGPRs: " + std::to_string(r.allocatedVgprs) + " per lane (allocated in " +
                    std::to_string(amd.vgprAllocGranule) + "s" + (in.agprsPerThread > 0 ? ", AGPRs included" : "") +
                    ") fit " + std::to_string(r.vgprWavesPerSimd) + " waves in a SIMD's " +
                    std::to_string(amd.vgprsPerSimd);
            break;
        case AmdOccupancyLimiter::Sgprs:
            text += "SGPRs: " + std::to_string(r.allocatedSgprs) + " per wave (allocated in " +
                    std::to_string(amd.sgprAllocGranule) + "s) fit " + std::to_string(r.sgprWavesPerSimd) +
                    " waves in a SIMD's " + std::to_string(amd.sgprsPerSimd);
            break;
        case AmdOccupancyLimiter::Lds:
            text += "LDS: " + std::to_string(r.allocatedLds) + " bytes per workgroup fit " +
                    std::to_string(r.workgroupLimitLds) + " workgroups in the CU's " + std::to_string(amd.ldsPerCu);
            break;
        case AmdOccupancyLimiter::Waves:
            text += "wave slots: " + std::to_string(r.wavesPerWorkgroup) + "-wave workgroups fill the CU's " +
                    std::to_string(amd.maxWavesPerSimd * amd.simdsPerCu) + " slots after " +
                    std::to_string(r.workgroupLimitWaves);
            break;
        case AmdOccupancyLimiter::Workgroup:
            text += "workgroup slots: a CU holds at most " + std::to_string(r.workgroupLimitSlots) +
                    " multi-wave workgroups (one barrier each)";
            break;
        }
    }
    if (text.empty()) return "Nothing limits this launch below the CU's maximum.";
    return "Limited by " + text + ": " + std::to_string(r.workgroupsPerCu) +
           (r.workgroupsPerCu == 1 ? " workgroup of " : " workgroups of ") + std::to_string(r.wavesPerWorkgroup) +
           (r.wavesPerWorkgroup == 1 ? " wave" : " waves") + " per CU.";
}

}  // namespace kx::engine
