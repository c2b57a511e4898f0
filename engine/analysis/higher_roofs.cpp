#include "analysis/higher_roofs.hpp"

#include "compile/variant_build.hpp"
#include "util/error.hpp"

#include <algorithm>

namespace kx::engine {
namespace {

double roofOf(const RooflineModel& model, const std::string& unit) {
    const RooflineCeiling* c = unitRoof(model, unit);
    return c == nullptr ? 0 : c->value;
}

// The device an arch-specific target runs on: sm_90 for sm_90a.
std::string deviceArchOf(const ArchDatabase& arches, const Arch& arch) {
    const std::string& name = arch.name;
    if (!name.empty() && name.back() == 'a' && arches.findArch(name.substr(0, name.size() - 1)) != nullptr)
        return name.substr(0, name.size() - 1);
    return name;
}

}  // namespace

std::vector<HigherRoof> higherRoofs(const TemplateLibrary& library, const ArchDatabase& arches, const Template& current,
                                    const Config& config, const Arch& arch, const RooflineModel& model) {
    std::vector<HigherRoof> out;
    const std::string& reference = current.manifest().referenceName;
    if (reference.empty()) return out;
    const double own = roofOf(model, current.rooflineUnit(config, arch));
    if (own <= 0) return out;
    const std::string language = arch.vendor == Vendor::Amd ? "hip" : "cuda";
    const std::string deviceArch = deviceArchOf(arches, arch);
    for (const auto& t : library.templates()) {
        if (t->id() == current.id() || t->manifest().referenceName != reference) continue;
        const auto& langs = t->manifest().languages;
        if (std::find(langs.begin(), langs.end(), language) == langs.end()) continue;
        // The current choices it shares (dtype, layout, mask...: its enums and flags; the numbers
        // are tile shapes, its own). One it does not take (an f32 GEMM on templates of 16-bit and
        // narrower types) makes it another problem: it is not offered.
        Config candidate = t->defaultConfig();
        std::map<std::string, std::string> shared;
        bool sameProblem = true;
        for (const ParamSpec& p : t->manifest().params) {
            if (p.type == ParamType::Int) continue;
            const auto it = config.values.find(p.name);
            if (it == config.values.end()) continue;
            try {
                candidate = t->withValues(candidate, {{p.name, it->second}});
                shared[p.name] = it->second;
            } catch (const InputError&) {
                sameProblem = false;
            }
        }
        // Nor is it the same problem when its precision is a choice and the current one's is not
        // (the matmul ladder is fp32 throughout): the data type would be a guess.
        if (t->manifest().findParam("dtype") != nullptr && config.values.count("dtype") == 0) sameProblem = false;
        if (!sameProblem) continue;
        const Arch* target = archForDevice(arches, deviceArch, *t, candidate);
        if (target == nullptr || !t->validate(candidate, *target).empty()) continue;
        const std::string unit = t->rooflineUnit(candidate, *target);
        const double peak = roofOf(model, unit);
        if (peak < 1.5 * own) continue;
        out.push_back({t->id(), t->manifest().title, target->name, shared, unit, peak});
    }
    std::sort(out.begin(), out.end(), [](const HigherRoof& a, const HigherRoof& b) {
        return a.peakFlops != b.peakFlops ? a.peakFlops > b.peakFlops : a.templateId < b.templateId;
    });
    return out;
}

}  // namespace kx::engine
