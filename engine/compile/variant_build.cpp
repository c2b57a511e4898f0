#include "compile/variant_build.hpp"

#include <fmt/format.h>

namespace kx::engine {

PreparedVariant prepareVariant(const Template& tmpl, const Config& config, const Arch& arch) {
    PreparedVariant v;
    v.name = tmpl.configName(config);
    v.violations = tmpl.validate(config, arch);
    v.language = tmpl.languageFor(arch);
    v.source = tmpl.render(config, arch, v.language);
    v.request.source = v.source;
    v.request.fileName = v.name + (v.language == "hip" ? ".hip" : ".cu");
    v.request.arch = arch.name;
    // NVRTC's options; a HIP compile takes none (Template::validate refuses flags on AMD arches).
    if (v.language == "cuda") v.request.options = config.flags.nvrtcOptions();
    return v;
}

const Arch* archForDevice(const ArchDatabase& arches, const std::string& deviceArch, const Template& tmpl, const Config& config) {
    const Arch* base = arches.findArch(deviceArch);
    if (!base || tmpl.validate(config, *base).empty()) return base;
    const Arch* specific = arches.findArch(deviceArch + "a");
    if (!specific) return base;
    // Invalid on both: the target that breaks fewer rules, so that a config needing sm_90a is not
    // also told to choose sm_90a.
    return tmpl.validate(config, *specific).size() < tmpl.validate(config, *base).size() ? specific : base;
}

std::string deviceArchMismatch(const Arch& variantArch, const std::string& deviceArch) {
    if (variantArch.name == deviceArch || variantArch.name == deviceArch + "a") return {};
    const bool archSpecific = variantArch.vendor == Vendor::Nvidia && variantArch.name.ends_with('a');
    const std::string onlyOn =
        archSpecific ? fmt::format(", whose code runs only on compute capability {}.{}", variantArch.nv.computeMajor, variantArch.nv.computeMinor)
                     : "";
    return fmt::format("the GPU is {} but this variant is compiled for {}{}: select {} to run it", deviceArch, variantArch.name, onlyOn,
                       deviceArch);
}

}  // namespace kx::engine
