// Arch's expression variables and LoadError's text form.
#include "arch/arch.hpp"

namespace kx::engine {

std::map<std::string, double> Arch::expressionVariables() const {
    std::map<std::string, double> vars;
    vars["warp_size"] = warpSize;
    vars["l2_bytes"] = static_cast<double>(l2Bytes);
    // The compute capability where there is one, 0 on AMD: for a manifest whose CUDA and HIP
    // flavours share an expression that depends on it ("nv_cc >= 80": cp.async exists).
    vars["nv_cc"] = vendor == Vendor::Nvidia ? nv.computeMajor * 10 + nv.computeMinor : 0;
    // The CDNA generation (family "CDNA3" -> 3), 0 elsewhere: for instructions that one
    // generation added ("cdna >= 3": gfx942's fp8 MFMAs).
    vars["cdna"] = family.size() == 5 && family.rfind("CDNA", 0) == 0 && family[4] >= '1' && family[4] <= '9' ? family[4] - '0' : 0;

    if (vendor == Vendor::Nvidia) {
        vars["cc"] = nv.computeMajor * 10 + nv.computeMinor;
        // sm_90a, sm_100a, ...: the target that may use the arch-specific instructions (wgmma,
        // setmaxnreg, tcgen05), whose code runs only on that exact compute capability.
        vars["arch_specific"] = !name.empty() && name.back() == 'a' ? 1 : 0;
        vars["max_threads_per_block"] = nv.maxThreadsPerBlock;
        vars["max_threads_per_sm"] = nv.maxThreadsPerSm;
        vars["max_blocks_per_sm"] = nv.maxBlocksPerSm;
        vars["regs_per_sm"] = nv.regsPerSm;
        vars["regs_per_block"] = nv.regsPerBlock;
        vars["max_regs_per_thread"] = nv.maxRegsPerThread;
        vars["smem_per_sm"] = nv.smemPerSm;
        vars["smem_per_block"] = nv.smemPerBlock;
        vars["smem_per_block_optin"] = nv.smemPerBlockOptin;
        return vars;
    }

    // AMD: the NVIDIA names are given their nearest CDNA meaning, so that a manifest's shared
    // constraints (threads per block, LDS bytes, registers) read the same on both vendors.
    // cc and max_blocks_per_sm are left out on purpose: there is no compute capability, and
    // the number of workgroups per CU depends on the kernel (barriers, waves per workgroup), so
    // an expression that needs them fails loudly instead of using a made-up number.
    vars["max_threads_per_block"] = amd.maxThreadsPerWorkgroup;
    vars["max_threads_per_sm"] = amd.maxWavesPerSimd * amd.simdsPerCu * warpSize;
    // LDS has no opt-in step: a workgroup may use all of it from the start.
    vars["smem_per_sm"] = amd.ldsPerCu;
    vars["smem_per_block"] = amd.maxLdsPerWorkgroup;
    vars["smem_per_block_optin"] = amd.maxLdsPerWorkgroup;
    // VGPRs are counted per lane; a CU's 32-bit registers are lanes x VGPRs x SIMDs, the same
    // unit as NVIDIA's registers per SM. A workgroup lives on one CU, so that is also its bound.
    const double regsPerCu = static_cast<double>(amd.vgprsPerSimd) * warpSize * amd.simdsPerCu;
    vars["regs_per_sm"] = regsPerCu;
    vars["regs_per_block"] = regsPerCu;
    vars["max_regs_per_thread"] = amd.maxVgprsPerWave;
    return vars;
}

std::string LoadError::toString() const {
    if (line > 0) return file + ":" + std::to_string(line) + ": " + message;
    return file + ": " + message;
}

}  // namespace kx::engine
