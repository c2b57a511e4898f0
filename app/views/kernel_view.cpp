#include "views/kernel_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>

namespace kx::app {

namespace {

// "sm_90   Hopper": names padded so families line up in the list (the font is monospace).
std::string archLabel(const engine::Arch& a) {
    return fmt::format("{:<8} {}", a.name, a.family);
}

}  // namespace

void KernelView::drawContent() {
    drawTemplatePicker();
    ImGui::Spacing();
    drawArchPicker();
    // The description last: on a short window the pickers stay in view and the prose scrolls.
    ImGui::Spacing();
    drawSummary();
}

void KernelView::drawSummary() {
    const Palette& pal = theme().palette();
    const engine::Template* current = model().currentTemplate();
    if (current != nullptr) {
        const auto& m = current->manifest();
        ImGui::TextColored(Theme::toVec4(pal.accentHover), "%s", m.category.c_str());
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", m.summary.c_str());
        ImGui::PopTextWrapPos();
    } else if (model().library().templates().empty()) {
        ImGui::TextColored(Theme::toVec4(pal.warn), "No templates found under %s/templates",
                           model().dataRoot().c_str());
    }
}

void KernelView::drawTemplatePicker() {
    const Palette& pal = theme().palette();
    const engine::Template* current = model().currentTemplate();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Template");
    ImGui::SetNextItemWidth(-FLT_MIN);
    const std::string preview = current ? fmt::format("{}  ({})", current->manifest().title, current->id()) : "(none)";
    if (ImGui::BeginCombo("##template", preview.c_str(), ImGuiComboFlags_HeightLarge)) {
        // One heading per category, its templates indented under it.
        bool firstGroup = true;
        for (const auto& category : model().library().byCategory()) {
            if (!firstGroup) ImGui::Separator();
            firstGroup = false;
            ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", category.name.c_str());
            ImGui::Indent();
            for (const auto& t : category.templates) {
                const bool selected = current != nullptr && current->id() == t->id();
                const std::string label = fmt::format("{}##{}", t->manifest().title, t->id());
                if (ImGui::Selectable(label.c_str(), selected)) model().selectTemplate(t->id());
                if (selected) ImGui::SetItemDefaultFocus();
                helpTooltip(t->manifest().summary);
                // The id right-aligned in the row, dimmed: what kx and sessions call it.
                const float w = ImGui::CalcTextSize(t->id().c_str()).x;
                ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - w);
                ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", t->id().c_str());
            }
            ImGui::Unindent();
        }
        ImGui::EndCombo();
    }
}

void KernelView::drawArchPicker() {
    const Palette& pal = theme().palette();
    const engine::Arch* current = model().currentArch();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Architecture");
    ImGui::SetNextItemWidth(-FLT_MIN);
    const std::string preview = current ? archLabel(*current) : "(none)";
    if (ImGui::BeginCombo("##arch", preview.c_str(), ImGuiComboFlags_HeightLarge)) {
        // Three groups: what this NVRTC compiles, NVIDIA arches we can only analyse, then AMD.
        enum Group { Compilable, AnalysisOnly, Amd };
        auto groupOf = [](const engine::Arch& a) {
            if (a.vendor == engine::Vendor::Amd) return Amd;
            return a.compilable ? Compilable : AnalysisOnly;
        };
        const char* headings[] = {"NVIDIA", "NVIDIA  (analysis only)", "AMD  (analysis only)"};
        for (int g = Compilable; g <= Amd; ++g) {
            bool first = true;
            for (const auto& a : model().archDatabase().arches()) {
                if (groupOf(a) != g) continue;
                if (first) {
                    if (g != Compilable) ImGui::Separator();
                    ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", headings[g]);
                    first = false;
                }
                const bool selected = current == &a;
                if (g != Compilable) ImGui::PushStyleColor(ImGuiCol_Text, pal.textDim);
                if (ImGui::Selectable(archLabel(a).c_str(), selected)) model().selectArch(a.name);
                if (g != Compilable) ImGui::PopStyleColor();
                if (selected) ImGui::SetItemDefaultFocus();
                if (g == AnalysisOnly) helpTooltip(model().compilerVersion() + " cannot target " + a.name +
                                                   ": validation and source only.");
                else if (g == Amd) helpTooltip("AMD: HIP source compiled with clang 19 to ISA, resources and occupancy (templates with a HIP flavour); no runs.");
            }
        }
        ImGui::EndCombo();
    }
    if (current != nullptr && current->vendor == engine::Vendor::Nvidia) {
        const auto& nv = current->nv;
        ImGui::TextColored(Theme::toVec4(pal.textFaint), "cc %d.%d \u00b7 %d KiB smem \u00b7 %d regs",
                           nv.computeMajor, nv.computeMinor, nv.smemPerBlockOptin / 1024, nv.maxRegsPerThread);
    } else if (current != nullptr) {
        const auto& amd = current->amd;
        ImGui::TextColored(Theme::toVec4(pal.textFaint), "wave%d  %d KiB LDS/workgroup", current->warpSize,
                           amd.maxLdsPerWorkgroup / 1024);
    }
}

}  // namespace kx::app
