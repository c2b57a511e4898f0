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

}  // namespace kx::engine
