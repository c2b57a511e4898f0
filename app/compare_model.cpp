#include "compare_model.hpp"

#include "explorer_model.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cctype>

namespace kx::app {

std::string CompareModel::cannotKeepReason(const ExplorerModel& model) {
    if (model.currentTemplate() == nullptr || model.currentArch() == nullptr || model.variant() == nullptr)
        return "nothing to keep: pick a template and an arch";
    if (!model.isValid()) return "this config is not valid: fix the violated constraints first";
    const engine::CompileResult* r = model.compileResult();
    if (!model.resultIsCurrent() || r == nullptr || model.phase() != CompilePhase::Ready)
        return "this config has not finished compiling";
    if (!r->ok) return "this config did not compile";
    if (!r->assembled || r->kernels.empty()) return "ptxas has not assembled this config";
    if (!model.session().isOpen()) return "no session is open";
    if (model.session().readOnly()) return "the session is read-only: File > Save As makes a copy you can change";
    return {};
}

void CompareModel::keep(const ExplorerModel& model) {
    if (std::string why = cannotKeepReason(model); !why.empty()) throw engine::InputError(why);
    const engine::PreparedVariant& v = *model.variant();
    m_session.keep(v.name, model.currentArch()->name, model.config(), v.source,
                   std::make_shared<const engine::CompileResult>(*model.compileResult()));
}

const std::vector<SnapshotPtr>& CompareModel::pins() const {
    if (m_pinsRevision != m_session.revision()) {
        m_pins.clear();
        if (const SessionDataPtr& data = m_session.data())
            for (const SessionEntry& e : data->entries) m_pins.push_back(e.snapshot);
        m_pinsRevision = m_session.revision();
    }
    return m_pins;
}

int CompareModel::find(const std::string& nameOrSuffix) const {
    const auto& all = pins();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i]->name == nameOrSuffix) return static_cast<int>(i);
    }
    // A procedural name's distinctive part: "gemm_f16_rcr_128x128x32_w64x64_s3" is found by
    // "128x128x32_w64x64_s3" or by "s3" only when no other variant also ends so.
    int found = -1;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string& n = all[i]->name;
        if (n.size() > nameOrSuffix.size() && n.ends_with(nameOrSuffix) && n[n.size() - nameOrSuffix.size() - 1] == '_') {
            if (found >= 0) return -1;
            found = static_cast<int>(i);
        }
    }
    if (found >= 0) return found;
    // Or by its 1-based position ("compare-select 1 3").
    if (!nameOrSuffix.empty() && std::all_of(nameOrSuffix.begin(), nameOrSuffix.end(), [](unsigned char c) { return std::isdigit(c); })) {
        const std::size_t k = std::stoul(nameOrSuffix);
        if (k >= 1 && k <= all.size()) return static_cast<int>(k - 1);
    }
    return -1;
}

}  // namespace kx::app
