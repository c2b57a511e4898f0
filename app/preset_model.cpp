#include "preset_model.hpp"

#include "explorer_model.hpp"
#include "util/error.hpp"

namespace kx::app {

void PresetModel::refresh() {
    const engine::Template* t = m_model.currentTemplate();
    const engine::Arch* arch = m_model.currentArch();
    // A user template replaced under the same id is a new object: its file is read again.
    bool stale = false;
    if (t != m_templateSeen) {
        m_templateSeen = t;
        m_sets.clear();
        m_error.clear();
        stale = true;
        if (t) {
            try {
                for (engine::PreselectedSet& s : engine::loadPreselected(*t))
                    if (s.configs.size() == 1) m_sets.push_back(std::move(s));
            } catch (const engine::InputError& e) {
                m_error = e.what();
            }
        }
    }
    const std::string archName = arch ? arch->name : std::string();
    if (stale || archName != m_arch) {
        m_arch = archName;
        m_presets.clear();
        for (const engine::PreselectedSet& s : m_sets)
            if (!m_arch.empty() && s.coversArch(m_arch)) m_presets.push_back({s.name, s.help, engine::preselectedSizesText(s)});
    }
}

const std::vector<Preset>& PresetModel::presets() {
    refresh();
    return m_presets;
}

const std::string& PresetModel::error() {
    refresh();
    return m_error;
}

void PresetModel::apply(const std::string& name) {
    refresh();
    const engine::Template* t = m_model.currentTemplate();
    if (!t || m_arch.empty()) throw engine::InputError("choose a template and an arch first");
    if (!m_error.empty()) throw engine::InputError(m_error);
    const engine::PreselectedSet& set = engine::findPreselected(m_sets, *t, name, m_arch);
    m_model.setConfig(engine::preselectedConfigs(set, m_model.config()).front());
    m_model.runs().usePresetSizes(*t, set);
}

std::string PresetModel::current() {
    refresh();
    const engine::Template* t = m_model.currentTemplate();
    if (!t) return {};
    for (const engine::PreselectedSet& s : m_sets)
        if (s.coversArch(m_arch) && engine::preselectedConfigs(s, m_model.config()).front() == m_model.config()) return s.name;
    return {};
}

}  // namespace kx::app
