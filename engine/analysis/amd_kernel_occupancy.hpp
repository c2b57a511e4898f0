// The AMD occupancy of a compiled kernel: the calculator (amd_occupancy.hpp) fed from clang's
// resources (hip_compiler.hpp) and the template's launch, beside the compiler's own figure.
#pragma once

#include "analysis/amd_occupancy.hpp"
#include "compile/hip_compiler.hpp"

#include <optional>
#include <string>

namespace kx::engine {

// VGPRs, AGPRs, SGPRs and static LDS of the kernel, with the launch's workgroup size and dynamic LDS.
AmdOccupancyInput amdOccupancyInput(const AmdKernelResources& kernel, int workgroupSize, long long dynamicLdsBytes = 0);

struct AmdKernelOccupancy {
    AmdOccupancyInput input;
    AmdOccupancyResult result;
    std::string explanation;       // explainAmdOccupancy
    // The compiler's "; Occupancy" (waves per SIMD), 0 when unknown.
    int compilerWavesPerSimd = 0;
    // The compiler's figure worked out from the arch data (compilerStyleWavesPerSimd): when it
    // matches, the registers, LDS and limits this calculator uses are the ones the compiler used.
    int reproducedWavesPerSimd = 0;
    bool agreesWithCompiler = true;   // reproducedWavesPerSimd == compilerWavesPerSimd (or unknown)
    // Why the calculator's whole-workgroup figure differs from the compiler's, when it does;
    // empty when they are the same.
    std::string difference;
};

// LLVM's own occupancy formula (AMDGPU GCNSubtarget::computeOccupancy, LLVM 19) from the arch's
// limits: the least of the waves per SIMD that the unified VGPRs, the SGPRs (LLVM's GFX9 table)
// and the LDS allow, the LDS part for workgroups of the kernel's maximum size, rounded up and
// without LDS's allocation granule. What clang prints as "; Occupancy".
int compilerStyleWavesPerSimd(const Arch& arch, const AmdKernelResources& kernel);

// Throws InputError as amdOccupancy does (a launch that cannot run).
AmdKernelOccupancy amdKernelOccupancy(const Arch& arch, const AmdKernelResources& kernel, int workgroupSize,
                                      long long dynamicLdsBytes = 0);

}  // namespace kx::engine
