// The compiler flags of the editor's variant as a small form (max registers, fast math, ptxas -O,
// extra vectorisation) with the NVRTC options they give, drawn inside the Configuration view and
// the Your kernel view. Edits go to ExplorerModel::setFlags, which recompiles the variant under
// its new name ("..._r64").
#pragma once

#include <string>

namespace kx::app {

class ExplorerModel;
class Theme;

class CompileFlagsPanel {
public:
    explicit CompileFlagsPanel(const Theme& theme) : m_theme(theme) {}

    // Draws the form at the cursor, as wide as the region; labelWidth is the label column's.
    void draw(ExplorerModel& model, float labelWidth);

private:
    void tooltip(const std::string& text) const;

    const Theme& m_theme;
    std::string m_hint;  // why the last typed register cap was not taken
};

}  // namespace kx::app
