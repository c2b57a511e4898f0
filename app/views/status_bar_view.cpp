#include "views/status_bar_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace kx::app {

void spinner(const Theme& theme, ImU32 colour) {
    const float r = theme.sizes().spinnerRadius;
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 c(p.x + r + 1, p.y + h * 0.5f);
    const float t = static_cast<float>(ImGui::GetTime());
    const float start = t * 6.0f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PathClear();
    constexpr int kSegments = 24;
    for (int i = 0; i <= kSegments; ++i) {
        const float a = start + static_cast<float>(i) / kSegments * 4.2f;  // a 240-degree arc
        dl->PathLineTo(ImVec2(c.x + std::cos(a) * r, c.y + std::sin(a) * r));
    }
    dl->PathStroke(colour, 0, 2.0f);
    ImGui::Dummy(ImVec2(r * 2 + 2, h));
}

namespace {

std::string rightText(const ExplorerModel& m) {
    const RunModel& runs = m.runs();
    std::string gpu = "looking for a GPU";
    if (runs.runnerState() == RunnerState::Ready) gpu = "GPU: " + runs.deviceName();
    if (runs.runnerState() == RunnerState::Unavailable) gpu = "no GPU: running needs an NVIDIA driver";
    if (runs.running()) gpu = "running on the GPU: " + runs.stage();
    return fmt::format("data: {}   |   {}", m.dataRoot().string(), gpu);
}

float rightWidth(const ExplorerModel& m) { return ImGui::CalcTextSize(rightText(m).c_str()).x; }

}  // namespace

void StatusBarView::drawContent() {
    const Palette& pal = theme().palette();
    const ExplorerModel& m = model();
    const std::string arch = m.currentArch() ? m.currentArch()->name : "?";

    ImGui::AlignTextToFramePadding();
    switch (m.phase()) {
    case CompilePhase::Idle: ImGui::TextColored(Theme::toVec4(pal.textDim), "Ready"); break;
    case CompilePhase::Scheduled:
    case CompilePhase::Running: {
        spinner(theme(), pal.accentHover);
        ImGui::SameLine();
        const std::string& name = m.compilingName().empty() && m.variant() ? m.variant()->name : m.compilingName();
        const engine::CompileResult* partial = m.resultIsCurrent() ? m.compileResult() : nullptr;
        if (partial && partial->ok && !partial->assembled)
            ImGui::Text("PTX ready in %.0f ms; assembling %s for %s (ptxas)", partial->ptxMs, name.c_str(), arch.c_str());
        else
            ImGui::Text("Compiling %s for %s", name.c_str(), arch.c_str());
        break;
    }
    case CompilePhase::Ready: {
        const engine::CompileResult* r = m.compileResult();
        if (r != nullptr && r->ok) {
            if (r->fromCache) ImGui::TextColored(Theme::toVec4(pal.ok), "PTX ready (from cache)");
            else
                ImGui::TextColored(Theme::toVec4(pal.ok), "PTX ready in %.0f ms, ptxas report %.0f ms later", r->ptxMs,
                                   std::max(0.0, r->compileMs - r->ptxMs));
            ImGui::SameLine();
            ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s for %s", m.resultName().c_str(), arch.c_str());
        } else if (r != nullptr) {
            std::size_t errors = 0;
            for (const auto& d : r->diagnostics) errors += d.severity != "warning" ? 1 : 0;
            ImGui::TextColored(Theme::toVec4(pal.error), "Compile failed: %zu error%s", errors, errors == 1 ? "" : "s");
        }
        break;
    }
    case CompilePhase::Skipped: {
        // Nothing renders for this arch (a CUDA-only template on AMD): the Configuration panel
        // says why once; here a short neutral line.
        std::string reason = m.variant() == nullptr && !m.prepareError().empty()
                                 ? fmt::format("Nothing to compile for {}: see Configuration", arch)
                                 : m.skipReason();
        if (!reason.empty()) reason[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(reason[0])));
        // Never under the facts on the right: cut with an ellipsis, the whole line on hover.
        const float room = ImGui::GetWindowContentRegionMax().x - ImGui::GetCursorPosX() - rightWidth(m) - ImGui::GetFontSize() * 3;
        std::string shown = reason;
        while (shown.size() > 1 && ImGui::CalcTextSize(shown.c_str()).x > room) shown.resize(shown.size() > 4 ? shown.size() - 4 : 1);
        if (shown.size() < reason.size()) shown += "\u2026";
        ImGui::TextColored(Theme::toVec4(m.isValid() || m.variant() == nullptr ? pal.textDim : pal.warn), "%s", shown.c_str());
        helpTooltip(reason);
        break;
    }
    }

    // Right side: environment facts, separated by thin bars.
    const std::string right = rightText(m);
    const float w = ImGui::CalcTextSize(right.c_str()).x;
    ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 40.0f, ImGui::GetWindowContentRegionMax().x - w));
    ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", right.c_str());
}

}  // namespace kx::app
