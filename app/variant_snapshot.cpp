#include "variant_snapshot.hpp"

namespace kx::app {

SnapshotPtr makeSnapshot(const StoredVariant& stored, const engine::TemplateLibrary& library, const engine::ArchDatabase& arches) {
    auto s = std::make_shared<VariantSnapshot>();
    const engine::SessionVariant& v = stored.variant;
    s->variantId = v.id;
    s->name = v.name;
    s->templateId = v.config.templateId;
    s->arch = v.arch;
    s->config = v.config;
    s->notes = v.notes;
    s->source = stored.source;
    s->ptx = stored.ptx;
    s->sass = stored.sass;
    s->updatedAt = v.updatedAt;
    s->runCount = static_cast<int>(stored.runs.size());
    if (!stored.kernels.empty()) {
        s->resources = stored.kernels.front();
        s->hasResources = true;
    }
    if (s->sass.empty()) s->sassNote = "the session holds no SASS for this variant (no disassembler was found when it was kept)";
    for (auto it = stored.runs.rbegin(); it != stored.runs.rend(); ++it) {
        if (it->report.ok) {
            s->run = it->report;
            break;
        }
    }
    if (!s->ptx.empty()) s->mix = engine::analyzePtx(s->ptx);

    const auto tmpl = library.find(s->templateId);
    const engine::Arch* arch = arches.findArch(s->arch);
    if (!tmpl || arch == nullptr) {
        s->occupancyNote = !tmpl ? "unknown template " + s->templateId : "unknown arch " + s->arch;
        return s;
    }
    try {
        const engine::SizeMap sizes = tmpl->defaultSizes();
        s->launch = tmpl->launch(s->config, *arch, sizes);
        // The launch's kernel, not the report's first line: a multi-kernel template's
        // occupancy is that of the kernel that does the work.
        if (const engine::KernelResources* k = engine::kernelNamed(stored.kernels, s->launch->kernel)) s->resources = *k;
        s->rooflineUnit = tmpl->rooflineUnit(s->config, *arch);
        s->flops = tmpl->flops(s->config, *arch, sizes);
        s->minBytes = tmpl->minBytes(s->config, *arch, sizes);
        if (s->flops > 0 && s->minBytes > 0) s->predictedAi = s->flops / s->minBytes;
    } catch (const std::exception& e) {
        // A template without formulas has no predicted point; the table shows a dash.
        if (!s->launch) s->occupancyNote = e.what();
    }
    if (!s->hasResources) {
        if (s->occupancyNote.empty()) s->occupancyNote = "no ptxas report was stored";
    } else if (s->launch && arch->vendor == engine::Vendor::Nvidia) {
        engine::OccupancyInput in;
        in.registersPerThread = s->resources.registers;
        in.threadsPerBlock = static_cast<int>(s->launch->threadsPerBlock());
        in.staticSmemBytes = s->resources.sharedBytes;
        in.dynamicSmemBytes = s->launch->dynamicSmemBytes;
        in.barriers = s->resources.barriers;
        try {
            s->occupancy = engine::nvidiaOccupancy(*arch, in);
        } catch (const std::exception& e) {
            s->occupancyNote = e.what();
        }
    } else if (s->occupancyNote.empty()) {
        s->occupancyNote = "no NVIDIA occupancy for this arch";
    }
    return s;
}

}  // namespace kx::app
