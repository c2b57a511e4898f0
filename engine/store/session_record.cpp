#include "store/session_record.hpp"

#include "run/calibration.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

namespace kx::engine {

namespace {

// Calls visit(key, field) for every field of a kernel's stored resource record: one list of keys
// serves writing and reading.
template <class Resources, class Visit>
void visitResourceFields(Resources& k, Visit&& visit) {
    visit("function", k.function), visit("registers", k.registers), visit("barriers", k.barriers);
    visit("shared_bytes", k.sharedBytes), visit("constant_bytes", k.constantBytes), visit("stack_frame_bytes", k.stackFrameBytes);
    visit("spill_store_bytes", k.spillStoreBytes), visit("spill_load_bytes", k.spillLoadBytes);
}

}  // namespace

std::string resourcesJson(const std::vector<KernelResources>& kernels) {
    nlohmann::json list = nlohmann::json::array();
    for (const KernelResources& k : kernels) {
        nlohmann::json record = nlohmann::json::object();
        visitResourceFields(k, [&record](const char* key, const auto& field) { record[key] = field; });
        list.push_back(std::move(record));
    }
    return list.dump(2);
}

// A key missing from an older session keeps the field's default.
std::vector<KernelResources> parseResourcesJson(const std::string& json) {
    const nlohmann::json list = nlohmann::json::parse(json, nullptr, false);
    if (!list.is_array()) throw InputError("the stored resource report is not a JSON list");
    std::vector<KernelResources> kernels;
    try {
        for (const auto& k : list) {
            KernelResources r;
            visitResourceFields(r, [&k](const char* key, auto& field) { field = k.value(key, field); });
            kernels.push_back(std::move(r));
        }
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("the stored resource report is malformed: ") + e.what());
    }
    return kernels;
}

std::string calibrationJsonFor(const std::string& device) {
    const auto c = loadCalibration(device);
    if (!c) return "";
    return calibrationToJson(*c).dump();
}

std::int64_t findOrAddVariant(SessionStore& store, const std::string& name, const std::string& arch, const Config& config) {
    const auto sameName = store.findVariant(name);
    if (!sameName) return store.addVariant(name, arch, config);
    if (sameName->config == config && sameName->arch == arch) return sameName->id;
    // The name is taken. For the same config on another arch, "NAME@ARCH" says what differs;
    // otherwise number it.
    std::vector<std::string> candidates;
    if (sameName->arch != arch) candidates.push_back(name + "@" + arch);
    for (int n = 2;; ++n) {
        candidates.push_back(name + "-" + std::to_string(n));
        for (const std::string& candidate : candidates) {
            const auto existing = store.findVariant(candidate);
            if (!existing) return store.addVariant(candidate, arch, config);
            if (existing->config == config && existing->arch == arch) return existing->id;
        }
        candidates.clear();
    }
}

VariantArtifacts artifactsOf(const std::string& source, const CompileResult& compiled, const std::string& sass) {
    VariantArtifacts a;
    a.source = source;
    a.ptx = compiled.ptx;
    a.sass = sass;
    if (compiled.assembled) a.kernels = compiled.kernels;
    return a;
}

std::int64_t recordVariant(SessionStore& store, const std::string& name, const std::string& arch, const Config& config,
                           const VariantArtifacts& artifacts) {
    std::int64_t id = 0;
    store.transaction([&] {
        id = findOrAddVariant(store, name, arch, config);
        if (!artifacts.source.empty()) store.storeArtifact(id, ArtifactKind::Source, artifacts.source);
        if (!artifacts.ptx.empty()) store.storeArtifact(id, ArtifactKind::Ptx, artifacts.ptx);
        if (!artifacts.sass.empty()) store.storeArtifact(id, ArtifactKind::Sass, artifacts.sass);
        if (!artifacts.kernels.empty()) store.storeArtifact(id, ArtifactKind::Resources, resourcesJson(artifacts.kernels));
    });
    return id;
}

}  // namespace kx::engine
