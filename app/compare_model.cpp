#include "compare_model.hpp"

#include "clock_text.hpp"
#include "explorer_model.hpp"
#include "run_model.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kx::app {


CompareModel::CompareModel() = default;
CompareModel::~CompareModel() = default;

std::string CompareModel::cannotPinReason(const ExplorerModel& model) {
    if (model.currentTemplate() == nullptr || model.currentArch() == nullptr || model.variant() == nullptr)
        return "nothing to pin: pick a template and an arch";
    if (!model.isValid()) return "this config is not valid: fix the violated constraints first";
    const engine::CompileResult* r = model.compileResult();
    if (!model.resultIsCurrent() || r == nullptr || model.phase() != CompilePhase::Ready)
        return "this config has not finished compiling";
    if (!r->ok) return "this config did not compile";
    if (!r->assembled || r->kernels.empty()) return "ptxas has not assembled this config";
    return {};
}

SnapshotPtr CompareModel::pin(const ExplorerModel& model) {
    if (std::string why = cannotPinReason(model); !why.empty()) throw engine::InputError(why);
    const engine::Template& tmpl = *model.currentTemplate();
    const engine::Arch& arch = *model.currentArch();
    const engine::CompileResult& r = *model.compileResult();
    const engine::PreparedVariant& v = *model.variant();

    auto same = std::find_if(m_pins.begin(), m_pins.end(),
                             [&](const SnapshotPtr& p) { return p->name == v.name && p->arch == arch.name; });
    if (same == m_pins.end() && m_pins.size() >= kMaxPins)
        throw engine::InputError(fmt::format("{} variants are pinned already: unpin one first", kMaxPins));

    auto s = std::make_shared<VariantSnapshot>();
    s->name = v.name;
    s->templateId = tmpl.id();
    s->arch = arch.name;
    s->config = model.config();
    s->source = v.source;
    s->ptx = r.ptx;
    s->resources = r.kernels.front();
    s->launch = model.launch();
    s->pinnedAt = clockText();
    if (s->launch && arch.vendor == engine::Vendor::Nvidia) {
        engine::OccupancyInput in;
        in.registersPerThread = s->resources.registers;
        in.threadsPerBlock = static_cast<int>(s->launch->threadsPerBlock());
        in.staticSmemBytes = s->resources.sharedBytes;
        in.dynamicSmemBytes = s->launch->dynamicSmemBytes;
        in.barriers = s->resources.barriers;
        try {
            s->occupancy = engine::nvidiaOccupancy(arch, in);
        } catch (const std::exception& e) {
            s->occupancyNote = e.what();
        }
    } else {
        s->occupancyNote = s->launch ? "no NVIDIA occupancy for this arch" : model.launchError();
    }
    s->mix = engine::analyzePtx(r.ptx);
    try {
        const engine::SizeMap sizes = model.sizes().empty() ? tmpl.defaultSizes() : model.sizes();
        s->flops = tmpl.flops(s->config, arch, sizes);
        s->minBytes = tmpl.minBytes(s->config, arch, sizes);
        if (s->flops > 0 && s->minBytes > 0) s->predictedAi = s->flops / s->minBytes;
    } catch (const std::exception&) {
        // A template without formulas has no predicted point; the table shows a dash.
    }
    for (const RunRecord* rec : model.runs().historyFor(v.name)) {
        if (rec->arch == arch.name && rec->report.ok) {
            s->run = rec->report;
            break;  // newest first
        }
    }
    if (r.cubin.empty()) s->sassNote = "this compile made no CUBIN to disassemble";

    SnapshotPtr snapshot = s;
    if (same != m_pins.end()) *same = snapshot;
    else m_pins.push_back(snapshot);
    ++m_revision;
    if (!r.cubin.empty()) startSass(snapshot, r.cubin);
    return snapshot;
}

void CompareModel::startSass(const SnapshotPtr& snapshot, const std::string& cubin) {
    engine::Mailbox* mailbox = &m_mailbox;
    std::weak_ptr<const VariantSnapshot> weak = snapshot;
    m_jobs.submit("disassemble " + snapshot->name, [this, cubin, weak, mailbox](engine::Job& job) {
        std::string error;
        std::optional<std::string> listing = engine::disassembleCubin(cubin, &error);
        if (job.cancelled()) return;
        // Runs on the UI thread in update(); `this` outlives the queue that runs this job.
        mailbox->post([this, weak, listing = std::move(listing), error] {
            const SnapshotPtr old = weak.lock();
            if (!old) return;  // unpinned or replaced meanwhile
            auto it = std::find(m_pins.begin(), m_pins.end(), old);
            if (it == m_pins.end()) return;
            auto next = std::make_shared<VariantSnapshot>(*old);
            if (listing) next->sass = *listing;
            next->sassNote = listing ? std::string() : (error.empty() ? "no disassembler found" : error);
            *it = std::move(next);
            ++m_revision;
        });
    });
}

void CompareModel::unpin(std::size_t index) {
    if (index >= m_pins.size()) return;
    m_pins.erase(m_pins.begin() + static_cast<std::ptrdiff_t>(index));
    ++m_revision;
}

void CompareModel::clear() {
    if (m_pins.empty()) return;
    m_pins.clear();
    ++m_revision;
}

int CompareModel::find(const std::string& nameOrSuffix) const {
    int found = -1;
    for (std::size_t i = 0; i < m_pins.size(); ++i) {
        if (m_pins[i]->name == nameOrSuffix) return static_cast<int>(i);
    }
    // A procedural name's distinctive part: "gemm_f16_rcr_128x128x32_w64x64_s3" is found by
    // "128x128x32_w64x64_s3" or by "s3" only when no other pin also ends so.
    for (std::size_t i = 0; i < m_pins.size(); ++i) {
        const std::string& n = m_pins[i]->name;
        if (n.size() > nameOrSuffix.size() && n.ends_with(nameOrSuffix) && n[n.size() - nameOrSuffix.size() - 1] == '_') {
            if (found >= 0) return -1;
            found = static_cast<int>(i);
        }
    }
    if (found >= 0) return found;
    // Or by its 1-based position in the pin list ("compare-select 1 3").
    if (!nameOrSuffix.empty() && std::all_of(nameOrSuffix.begin(), nameOrSuffix.end(), ::isdigit)) {
        const std::size_t k = std::stoul(nameOrSuffix);
        if (k >= 1 && k <= m_pins.size()) return static_cast<int>(k - 1);
    }
    return -1;
}

const engine::RunReport* CompareModel::latestRun(const VariantSnapshot& s, const RunModel& runs) {
    for (const RunRecord* rec : runs.historyFor(s.name)) {
        if (rec->arch == s.arch && rec->report.ok) return &rec->report;
    }
    return s.run ? &*s.run : nullptr;
}

void CompareModel::update() { m_mailbox.drain(); }

}  // namespace kx::app
