// Theoretical occupancy of a kernel launch on an AMD CDNA compute unit (gfx90a, gfx942), wave64.
//
// No vendor calculator is packaged for AMD, so the rules are ours, each taken from a document
// and cited next to its code in amd_occupancy.cpp. The numbers come from the arch's AmdLimits
// (assets/arch/gfx*.xml). Like the CUDA calculator, and unlike the compiler's own per-SIMD
// "Occupancy" remark, the result counts whole workgroups: a workgroup is resident with all of its
// waves or not at all, so 15-wave workgroups on a CU with 20 free wave slots fit once, not 1.33
// times.
#pragma once

#include "arch/arch.hpp"

#include <climits>
#include <string>
#include <vector>

namespace kx::engine {

struct AmdOccupancyInput {
    // Architectural VGPRs per thread (lane), as the compiler reports them ("VGPRs: N",
    // .vgpr_count). With agprs == 0 this may also be the unified total (up to maxVgprsPerWave).
    int vgprsPerThread = 0;
    // Accumulation VGPRs (AGPRs). On CDNA2/3 they share one file with the arch VGPRs: the wave is
    // given alignTo(vgprs, 4) + agprs, rounded up to the allocation granule.
    int agprsPerThread = 0;
    // SGPRs per wave as the compiler counts them ("SGPRs: N", .sgpr_count): VCC, FLAT_SCRATCH
    // and XNACK_MASK included. 0 = not known, then SGPRs limit nothing.
    int sgprsPerWave = 0;
    int workgroupSize = 0;            // threads
    long long ldsBytesPerWorkgroup = 0;  // static + dynamic LDS
};

enum class AmdOccupancyLimiter { Vgprs, Sgprs, Lds, Waves, Workgroup };

// A per-resource limit that does not apply (no LDS used, single-wave workgroups and barriers).
constexpr int kAmdNoLimit = INT_MAX;

struct AmdOccupancyResult {
    int workgroupsPerCu = 0;
    int wavesPerWorkgroup = 0;
    int wavesPerCu = 0;            // workgroupsPerCu * wavesPerWorkgroup
    double wavesPerSimd = 0;       // wavesPerCu spread evenly over the CU's SIMDs (may be fractional)
    int maxWavesPerSimd = 0;       // the hardware's wave slots per SIMD (8 on CDNA2/3)
    double occupancy = 0;          // wavesPerSimd / maxWavesPerSimd, 0..1
    std::vector<AmdOccupancyLimiter> limiters;  // every resource whose limit equals workgroupsPerCu

    // What each resource alone allows. Registers limit waves per SIMD (their natural unit); every
    // resource is also given in whole workgroups per CU (kAmdNoLimit where it does not apply:
    // no LDS, SGPRs not given, single-wave workgroups and barrier slots).
    int vgprWavesPerSimd = 0, sgprWavesPerSimd = 0;
    int workgroupLimitVgprs = 0, workgroupLimitSgprs = 0, workgroupLimitLds = 0, workgroupLimitWaves = 0;
    int workgroupLimitSlots = 0;   // workgroup (barrier) slots of the CU

    int allocatedVgprs = 0;        // per lane, after the AGPR offset and the granule
    int allocatedSgprs = 0;        // per wave, after the granule (0 when not given)
    long long allocatedLds = 0;    // per workgroup, after the granule
};

const char* amdLimiterName(AmdOccupancyLimiter limiter);  // "VGPRs", "SGPRs", "LDS", "wave slots", "workgroup slots"

// One sentence on what limits the launch, for the UI and the CLI.
std::string explainAmdOccupancy(const AmdOccupancyResult& result, const AmdOccupancyInput& input, const Arch& arch);

// Throws InputError, naming the reason, when the arch is not AMD or the launch cannot run at all:
// a workgroup outside 1..maxThreadsPerWorkgroup, VGPRs/AGPRs negative or more than a wave may
// address, SGPRs more than a kernel can use, LDS negative or over the per-workgroup limit.
AmdOccupancyResult amdOccupancy(const Arch& arch, const AmdOccupancyInput& input);

}  // namespace kx::engine
