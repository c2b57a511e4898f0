#include "views/user_template_view.hpp"

#include "explorer_model.hpp"
#include "run/run_limits.hpp"
#include "theme.hpp"
#include "user_template_model.hpp"
#include "util/error.hpp"

#include <imgui_stdlib.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::app {

UserTemplateView::UserTemplateView(ViewContext context, UserTemplateModel& templates)
    : View("Your kernel", Slot::Floating, context), m_templates(templates), m_flags(context.theme) {
    setOpen(false);
}

void UserTemplateView::placeWindow() {
    // Over the left column and the code's left part: the Resources, Occupancy and Run panels on
    // the right stay in view, so an edit's registers and occupancy show beside the text.
    // Below the menu bar even on the first frame, before the viewport's work area knows of it.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float top = std::max(vp->WorkPos.y, vp->Pos.y + ImGui::GetFrameHeight());
    const float height = vp->Pos.y + vp->Size.y - top - ImGui::GetFrameHeightWithSpacing();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, top), ImGuiCond_Appearing);
    ImGui::SetNextWindowSize(ImVec2(std::floor(vp->WorkSize.x * 0.6f), height), ImGuiCond_Appearing);
}

void UserTemplateView::showMessage(std::string text, bool failed) {
    m_message = std::move(text);
    m_messageFailed = failed;
}

void UserTemplateView::act(const char* what, const std::function<std::string()>& action) {
    try {
        showMessage(action(), false);
    } catch (const std::exception& e) {
        showMessage(fmt::format("{}: {}", what, e.what()), true);
    }
}

void UserTemplateView::drawContent() {
    m_templates.followEditor();
    drawToolbar();
    if (!m_message.empty()) {
        const Palette& pal = theme().palette();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(m_messageFailed ? pal.error : pal.ok), "%s", m_message.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::Separator();
    if (m_templates.isOpen()) drawEditor();
    else drawIntro();
}

void UserTemplateView::drawToolbar() {
    if (ImGui::Button("New kernel from clipboard")) {
        act("cannot make a template of the clipboard", [&] {
            const char* clip = ImGui::GetClipboardText();
            m_templates.createFromKernel(clip ? clip : "");
            return fmt::format("made the template {} from the clipboard's kernel", m_templates.id());
        });
    }
    helpTooltip("Copy one __global__ kernel (from your editor, a paper, a forum), then press this: it becomes a user "
                "template with a 1-D launch, compiled at once.");
    ImGui::SameLine();
    if (ImGui::Button("Copy current template")) {
        act("cannot copy the template", [&] {
            m_templates.duplicateCurrent();
            return fmt::format("copied into {}: change it freely", m_templates.folder().string());
        });
    }
    helpTooltip("A copy of the template in the editor (a shipped one too) as your own, to change its source and manifest.");
    ImGui::SameLine();
    if (ImGui::Button("Copy share string")) {
        act("cannot share", [&] {
            const std::string text = m_templates.shareString();
            ImGui::SetClipboardText(text.c_str());
            return fmt::format("share string copied ({} characters): Edit > Open share string, or kx open, shows this variant", text.size());
        });
    }
    helpTooltip("The variant in the editor (template, arch, values, flags, sizes; your template's files with it) as one line of text.");
    ImGui::SameLine();
    if (ImGui::Button("Open share string")) {
        act("cannot open the share string", [&] {
            const char* clip = ImGui::GetClipboardText();
            return m_templates.openShareString(clip ? clip : "");
        });
    }
    helpTooltip("Open the share string on the clipboard.");
}

void UserTemplateView::drawIntro() {
    const Palette& pal = theme().palette();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted("Your own kernels");
    ImGui::TextColored(Theme::toVec4(pal.textDim),
                       "Copy a __global__ kernel and press New kernel from clipboard. Kernel Explorer keeps it as a template in %s "
                       "(a manifest for a 1-D launch of BLOCK threads, and your source with its name replaced by ${KERNEL_NAME}), "
                       "compiles it as you edit it, and shows its PTX, SASS, registers and occupancy. To run it, describe the "
                       "kernel's arguments in the manifest's <args> (templates/README.md).",
                       model().userTemplatesDir().string().c_str());
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    sectionHeader("Your templates");
    bool any = false;
    for (const auto& t : model().library().templates()) {
        if (!model().library().isUser(t->id())) continue;
        any = true;
        if (ImGui::Selectable(fmt::format("{}  \u00b7  {}", t->id(), t->manifest().title).c_str())) {
            model().selectTemplate(t->id());
            act("cannot open it", [&] {
                m_templates.open(t->manifest().folder);
                return std::string();
            });
        }
        helpTooltip(t->manifest().folder);
    }
    if (!any) ImGui::TextColored(Theme::toVec4(pal.textDim), "none yet");
    // User templates that did not load at start: open them to fix them.
    const std::string root = model().userTemplatesDir().string();
    for (const engine::LoadError& e : model().library().errors()) {
        if (e.file.rfind(root, 0) != 0) continue;
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.error), "%s", e.toString().c_str());
        ImGui::PopTextWrapPos();
        if (ImGui::SmallButton(fmt::format("Open to fix##{}", e.file).c_str()))
            act("cannot open it", [&] {
                m_templates.open(std::filesystem::path(e.file).parent_path());
                return std::string();
            });
    }
}

void UserTemplateView::drawEditor() {
    const Palette& pal = theme().palette();
    ImGui::TextUnformatted(m_templates.id().c_str());
    ImGui::SameLine();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", m_templates.folder().string().c_str());
    const engine::Template* current = model().currentTemplate();
    if (current == nullptr || current->id() != m_templates.id()) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Show in editor")) model().selectTemplate(m_templates.id());
        helpTooltip("The editor shows another template: select this one to compile it.");
    }
    const float editorH = std::max(ImGui::GetFrameHeight() * 4, ImGui::GetContentRegionAvail().y - m_footerHeight);
    if (ImGui::BeginTabBar("##files")) {
        for (const std::string& name : m_templates.fileNames()) {
            const ImGuiTabItemFlags flags = m_requestedFile == name ? ImGuiTabItemFlags_SetSelected : 0;
            if (!ImGui::BeginTabItem(name.c_str(), nullptr, flags)) continue;
            std::string* text = m_templates.text(name);
            if (text != nullptr &&
                ImGui::InputTextMultiline(("##" + name).c_str(), text, ImVec2(-FLT_MIN, editorH - ImGui::GetFrameHeightWithSpacing()),
                                          ImGuiInputTextFlags_AllowTabInput))
                m_templates.edited(name);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    m_requestedFile.clear();
    const float footerTop = ImGui::GetCursorPosY();
    drawStatus();
    sectionHeader("Compiler flags");
    m_flags.draw(model(), ImGui::GetContentRegionAvail().x * theme().sizes().propertyLabelFraction);
    m_footerHeight = ImGui::GetCursorPosY() - footerTop + ImGui::GetStyle().ItemSpacing.y;
}

void UserTemplateView::drawStatus() {
    const Palette& pal = theme().palette();
    ImGui::PushTextWrapPos(0.0f);
    if (!m_templates.error().empty()) {
        ImGui::TextColored(Theme::toVec4(pal.error), "%s", m_templates.error().c_str());
    } else if (!m_templates.settled()) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "editing\u2026");
    } else {
        const engine::PreparedVariant* v = model().variant();
        const bool shown = model().currentTemplate() != nullptr && model().currentTemplate()->id() == m_templates.id();
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s%s", m_templates.status().c_str(),
                           shown && v ? fmt::format("; the editor compiles it as {}", v->name).c_str() : "");
    }
    if (const engine::Template* t = model().library().find(m_templates.id()).get(); t != nullptr)
        if (const std::string why = engine::notRunnableReason(*t); !why.empty())
            ImGui::TextColored(Theme::toVec4(pal.textDim), "Running: the manifest lists no <args> yet; compiling, PTX, SASS, resources and "
                                                           "occupancy work without them.");
    ImGui::PopTextWrapPos();
}

}  // namespace kx::app
