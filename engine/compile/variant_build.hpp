// The path from (template, arch, config) to a compile request: validate, name, render.
#pragma once

#include "arch/arch.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "templates/template.hpp"

#include <string>
#include <vector>

namespace kx::engine {

struct PreparedVariant {
    std::string name;                  // procedural config name
    std::vector<Violation> violations; // empty when valid
    std::string source;                // rendered source (rendered even when invalid, for reading)
    std::string language;              // "cuda" or "hip" (Template::languageFor the arch)
    // Ready for Compiler::compile when valid and compilable (CUDA); for HIP the same fields feed
    // HipCompiler (hipRequest in compile/hip_compiler.hpp).
    CompileRequest request;
};

// Throws InputError on a config that does not belong to the template or a broken placeholder.
PreparedVariant prepareVariant(const Template& tmpl, const Config& config, const Arch& arch);

// The arch to build for when the user asks for the device's own ("native"): the device's arch
// (sm_90) when the config is valid there, else its arch-specific target (sm_90a) when that exists
// and the config breaks fewer rules there (wgmma, setmaxnreg: code that runs on this device only;
// an invalid config is then reported without the arch's own rule), else the device's arch.
// nullptr for an unknown arch.
const Arch* archForDevice(const ArchDatabase& arches, const std::string& deviceArch, const Template& tmpl, const Config& config);

// Why code compiled for `variantArch` cannot run on a device whose arch is `deviceArch` (as the
// runner reports it: "sm_90"); empty when it can. It runs on the device's own arch and on the
// device's arch-specific target (sm_90a on an sm_90 device), whose code runs on that exact
// compute capability and nowhere else.
std::string deviceArchMismatch(const Arch& variantArch, const std::string& deviceArch);

}  // namespace kx::engine
