#include "views/view.hpp"

#include "theme.hpp"

namespace kx::app {

View::View(std::string title, Slot slot, ViewContext context)
    : m_title(std::move(title)), m_slot(slot), m_context(context) {}

void View::placeWindow() {
    ImGui::SetNextWindowPos(m_pos);
    ImGui::SetNextWindowSize(m_size);
}

void View::draw() {
    if (!m_open) return;
    placeWindow();
    // Panels are tiled by the layout: the user toggles them from the View menu, not by dragging.
    ImGuiWindowFlags flags = windowFlags();
    if (m_slot != Slot::Floating) {
        flags |= ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings;
    }
    const bool closable = m_slot == Slot::Floating;
    if (ImGui::Begin(m_title.c_str(), closable ? &m_open : nullptr, flags)) {
        drawContent();
        m_desiredHeight = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y - ImGui::GetStyle().ItemSpacing.y;
    }
    ImGui::End();
}

void View::sectionHeader(const char* text) const {
    ImGui::PushFont(theme().fonts().bold);
    ImGui::TextColored(Theme::toVec4(theme().palette().textDim), "%s", text);
    ImGui::PopFont();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y - 2), ImVec2(p.x + w, p.y - 2), theme().palette().border);
    ImGui::Dummy(ImVec2(0, 2));
}

void View::helpTooltip(const std::string& text) const {
    if (text.empty() || !ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

}  // namespace kx::app
