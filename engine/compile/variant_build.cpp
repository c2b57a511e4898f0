#include "compile/variant_build.hpp"

namespace kx::engine {

PreparedVariant prepareVariant(const Template& tmpl, const Config& config, const Arch& arch) {
    PreparedVariant v;
    v.name = tmpl.configName(config);
    v.violations = tmpl.validate(config, arch);
    v.source = tmpl.render(config, arch);
    v.request.source = v.source;
    v.request.fileName = v.name + ".cu";
    v.request.arch = arch.name;
    return v;
}

const Arch* archForDevice(const ArchDatabase& arches, const std::string& deviceArch, const Template& tmpl, const Config& config) {
    const Arch* base = arches.findArch(deviceArch);
    if (!base || tmpl.validate(config, *base).empty()) return base;
    const Arch* specific = arches.findArch(deviceArch + "a");
    if (specific && tmpl.validate(config, *specific).empty()) return specific;
    return base;
}

}  // namespace kx::engine
