#include "views/about_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"

namespace kx::app {

void AboutView::placeWindow() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.4f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
}

void AboutView::drawContent() {
    const Palette& pal = theme().palette();
    ImGui::PushFont(theme().fonts().bold);
    ImGui::Text("Kernel Explorer %s", KX_APP_VERSION);
    ImGui::PopFont();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Explore GPU kernel templates: configs, validity, source, PTX.");
    ImGui::Spacing();
    if (ImGui::BeginTable("##about", 2, ImGuiTableFlags_SizingFixedFit)) {
        auto row = [&](const char* k, const std::string& v) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", k);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(v.c_str());
        };
        row("Compiler", model().compilerVersion());
        row("Dear ImGui", ImGui::GetVersion());
        row("Data root", model().dataRoot().string());
        row("Templates", std::to_string(model().library().templates().size()));
        row("Architectures", std::to_string(model().archDatabase().arches().size()));
        ImGui::EndTable();
    }
    if (!model().loadWarnings().empty()) {
        ImGui::Spacing();
        ImGui::TextColored(Theme::toVec4(pal.warn), "Load warnings");
        for (const auto& w : model().loadWarnings()) ImGui::BulletText("%s", w.c_str());
    }
    ImGui::Spacing();
    if (ImGui::Button("Close", ImVec2(120, 0))) setOpen(false);
}

}  // namespace kx::app
