#include "widgets/tooltip.hpp"

#include "theme.hpp"

#include <imgui.h>

namespace kx::app {

void wrappedTooltip(const std::string& text, float widthInFonts) {
    if (text.empty() || !ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * widthInFonts);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void occupancyHeadline(const Theme& theme, double occupancy, const std::string& meaning, const std::string& detail,
                       const std::string& limiters, const std::string& limits) {
    const Palette& pal = theme.palette();
    const ImU32 colour = occupancy >= 0.5 ? pal.ok : (occupancy >= 0.25 ? pal.warn : pal.error);
    ImGui::PushFont(theme.fonts().bold);
    ImGui::TextColored(Theme::toVec4(colour), "%.0f%%", occupancy * 100.0);
    ImGui::PopFont();
    wrappedTooltip(meaning);
    ImGui::SameLine();
    ImGui::TextUnformatted(detail.c_str());
    ImGui::SameLine();
    ImGui::TextColored(Theme::toVec4(pal.textDim), " limit:");
    ImGui::SameLine();
    ImGui::TextColored(Theme::toVec4(pal.warn), "%s", limiters.c_str());
    wrappedTooltip(limits);
}

}  // namespace kx::app
