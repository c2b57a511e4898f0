// Configuration panel: one widget per template parameter, grouped as the manifest groups them,
// the config's procedural name, and the validity verdict right under the editor.
#pragma once

#include "views/view.hpp"

#include <string>

namespace kx::engine {
struct ParamSpec;
}

namespace kx::app {

class ConfigView final : public View {
public:
    explicit ConfigView(ViewContext context) : View("Configuration", Slot::LeftFill, context) {}

protected:
    void drawContent() override;

private:
    void drawParams();
    void drawParam(const engine::ParamSpec& p);
    void drawName();
    void drawValidity();
    void apply(const std::string& key, const std::string& value);

    std::string m_editError;
    float m_footerHeight = 120.0f;  // verdict + name + reset, measured each frame  // last rejected edit (should not happen through these widgets)
};

}  // namespace kx::app
