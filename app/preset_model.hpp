// The editor's tuned presets: a template's preselected sets of one config (preselected.xml), the
// same `kx run --preset NAME` starts from, for the editor's arch. Applying one lays its config
// over the editor's (what the preset leaves out keeps the editor's value) as one edit, and a
// preset that names the problem it was tuned for sets the Run panel's sizes to it.
// Not thread-safe: call from the UI thread.
#pragma once

#include "sweep/preselected.hpp"

#include <string>
#include <vector>

namespace kx::app {

class ExplorerModel;

struct Preset {
    std::string name;
    std::string help;
    std::string sizes;  // "C=128, Hi=28, ..." the problem it was tuned for; empty for none
};

class PresetModel {
public:
    explicit PresetModel(ExplorerModel& model) : m_model(model) {}

    // The presets for the editor's template and arch, in file order; empty when there are none.
    const std::vector<Preset>& presets();
    // Why the template's preselected.xml could not be read ("file:line: reason"), or empty.
    const std::string& error();
    // Lays preset `name` over the editor's config; a preset with sizes resets the Run panel's
    // sizes to the template's defaults with the preset's over them. Throws engine::InputError naming the presets
    // there are when the arch has no such preset.
    void apply(const std::string& name);
    // The preset the editor's config already is (applying it would change nothing), or empty.
    std::string current();

private:
    void refresh();

    ExplorerModel& m_model;
    const engine::Template* m_templateSeen = nullptr;  // what m_sets are for
    std::string m_arch;                                // what m_presets are for
    std::vector<engine::PreselectedSet> m_sets;  // the template's sets of one config, every arch
    std::vector<Preset> m_presets;               // those for m_arch
    std::string m_error;
};

}  // namespace kx::app
