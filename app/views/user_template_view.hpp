// Your kernel: the editor of the user's own templates (Edit > Your kernel, Ctrl+Shift+K). Paste a
// kernel of your own or copy a template, edit its source and manifest with every edit saved and
// compiled as you type (UserTemplateModel), set its compiler flags, and copy or open share strings.
// The manifest's errors show with their file and line; the PTX, SASS, resources and occupancy of
// the result are in the usual panels, which this floating window leaves in view on the right.
#pragma once

#include "user_template_model.hpp"
#include "views/compile_flags_panel.hpp"
#include "views/view.hpp"

#include <functional>
#include <string>

namespace kx::app {

class UserTemplateView final : public View {
public:
    UserTemplateView(ViewContext context, UserTemplateModel& templates);

    // A message under the toolbar (what a menu action did, or why it failed).
    void showMessage(std::string text, bool failed);
    bool inViewMenu() const override { return true; }
    // The file whose tab is shown; scripts pick it.
    void selectFile(const std::string& file) { m_requestedFile = file; }

protected:
    void drawContent() override;
    void placeWindow() override;
    ImGuiWindowFlags windowFlags() const override { return ImGuiWindowFlags_NoCollapse; }

private:
    void drawToolbar();
    void drawIntro();
    void drawEditor();
    void drawStatus();
    void act(const char* what, const std::function<std::string()>& action);

    UserTemplateModel& m_templates;
    CompileFlagsPanel m_flags;
    std::string m_message;
    bool m_messageFailed = false;
    std::string m_requestedFile;
    float m_footerHeight = 160.0f;  // status and flags, measured each frame
};

}  // namespace kx::app
