#include "views/view.hpp"

#include "theme.hpp"
#include "widgets/opaque_fill.hpp"
#include "widgets/tooltip.hpp"

namespace kx::app {

View::View(std::string title, Slot slot, ViewContext context)
    : m_title(std::move(title)), m_slot(slot), m_context(context) {}

void View::placeWindow() {
    ImGui::SetNextWindowPos(m_pos);
    ImGui::SetNextWindowSize(m_size);
}

void View::centreNextWindow(const ImVec2& size) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + (vp->WorkSize.x - size.x) * 0.5f, vp->WorkPos.y + (vp->WorkSize.y - size.y) * 0.5f),
                            ImGuiCond_Appearing);
    ImGui::SetNextWindowSize(size, ImGuiCond_Appearing);
}

void View::draw() {
    if (!m_open || m_hidden) {
        m_focused = m_hovered = false;
        return;
    }
    placeWindow();
    // Panels are tiled by the layout: the user resizes them with the splitters between them and
    // toggles them from the View menu, not by dragging the windows.
    ImGuiWindowFlags flags = windowFlags();
    if (m_slot != Slot::Floating) {
        flags |= ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings;
    }
    const bool closable = m_slot == Slot::Floating;
    if (beginOpaqueWindow(m_title.c_str(), closable ? &m_open : nullptr, flags, theme().palette().panelBg)) {
        m_focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
        m_hovered = ImGui::IsWindowHovered(ImGuiHoveredFlags_RootAndChildWindows);
        if (tiled() && (flags & ImGuiWindowFlags_NoTitleBar) == 0 && ImGui::IsWindowHovered() && ImGui::IsMouseDoubleClicked(0)) {
            const ImVec2 min = ImGui::GetWindowPos();
            const float titleH = ImGui::GetFontSize() + ImGui::GetStyle().FramePadding.y * 2;
            const ImVec2 mouse = ImGui::GetIO().MousePos;
            if (mouse.y >= min.y && mouse.y < min.y + titleH) m_titleDoubleClicked = true;
        }
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

void View::helpTooltip(const std::string& text) const { wrappedTooltip(text); }

}  // namespace kx::app
