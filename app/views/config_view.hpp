// Configuration panel: one widget per template parameter, grouped as the manifest groups them,
// the compiler flags (closed unless set), the config's procedural name, the validity verdict
// right under the editor, and the arch's tuned presets beside the reset. A parameter
// named by a violated constraint is outlined; a value that would break a rule the current config
// keeps is marked (red, "x") in its dropdown or radio group, with the rule on hover.
#pragma once

#include "preset_model.hpp"
#include "views/compile_flags_panel.hpp"
#include "views/view.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kx::engine {
struct ParamSpec;
}

namespace kx::app {

class ConfigView final : public View {
public:
    explicit ConfigView(ViewContext context)
        : View("Configuration", Slot::LeftFill, context), m_flags(context.theme), m_presets(context.model) {}

protected:
    void drawContent() override;

private:
    void drawParams();
    void drawParam(const engine::ParamSpec& p);
    void drawName();
    void drawValidity();
    // The arch's tuned presets (preselected.xml), applied over the editor's config on choosing.
    void drawPresets();
    void apply(const std::string& key, const std::string& value);
    // The rules that setting `key` to `value` would break and the current config keeps (empty:
    // the value is fine); computed once per edit.
    const std::vector<std::string>& wouldBreak(const std::string& key, const std::string& value);
    // Whether a violated constraint of the current config names this parameter, or one of its
    // values would lift one: the fields to outline.
    bool implicated(const engine::ParamSpec& p);

    CompileFlagsPanel m_flags;
    PresetModel m_presets;
    std::string m_editError;
    std::uint64_t m_breaksFor = ~0ull;  // the model generation m_breaks was computed for
    std::map<std::string, std::map<std::string, std::vector<std::string>>> m_breaks;
    std::map<std::string, bool> m_implicated;
    float m_footerHeight = 120.0f;  // verdict + name + reset, measured each frame  // last rejected edit (should not happen through these widgets)
};

}  // namespace kx::app
