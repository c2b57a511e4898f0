#include "views/compile_flags_panel.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"
#include "util/error.hpp"
#include "widgets/tooltip.hpp"

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>

namespace kx::app {

namespace {

const engine::CompileFlagKey& keyInfo(const char* key) {
    for (const engine::CompileFlagKey& k : engine::compileFlagKeys())
        if (std::string(k.key) == key) return k;
    return engine::compileFlagKeys().front();
}

}  // namespace

void CompileFlagsPanel::tooltip(const std::string& text) const { wrappedTooltip(text, 32.0f); }

void CompileFlagsPanel::draw(ExplorerModel& model, float labelWidth) {
    const Palette& pal = m_theme.palette();
    engine::CompileFlags flags = model.flags();
    bool changed = false;
    if (!ImGui::BeginTable("##flags", 2, ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, labelWidth);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    auto label = [&](const char* key) {
        const engine::CompileFlagKey& k = keyInfo(key);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(k.label);
        tooltip(fmt::format("{}  ({})\n{}", k.label, k.key, k.help));
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(-FLT_MIN);
    };

    label("maxrregcount");
    int regs = flags.maxRegisters;
    if (ImGui::InputInt("##maxrregcount", &regs, 8, 32)) {
        try {
            flags = engine::withFlag(flags, "maxrregcount", std::to_string(std::max(0, regs)));
            changed = true;
            m_hint.clear();
        } catch (const engine::InputError& e) {
            m_hint = e.what();  // a number being typed ("6" on the way to "64")
        }
    }
    tooltip(keyInfo("maxrregcount").help + std::string("\n0: no cap."));
    label("fast_math");
    changed |= ImGui::Checkbox("##fast_math", &flags.fastMath);
    tooltip(keyInfo("fast_math").help);
    label("ptxas_opt");
    for (int level = 0; level <= 3; ++level) {
        if (level > 0) ImGui::SameLine();
        if (ImGui::RadioButton(fmt::format("O{}##ptxas", level).c_str(), flags.ptxasOptLevel == level)) {
            flags.ptxasOptLevel = level;
            changed = true;
        }
        tooltip(keyInfo("ptxas_opt").help);
    }
    label("extra_vectorization");
    changed |= ImGui::Checkbox("##extra_vectorization", &flags.extraVectorization);
    tooltip(keyInfo("extra_vectorization").help);
    ImGui::EndTable();

    if (!m_hint.empty()) ImGui::TextColored(Theme::toVec4(pal.warn), "%s", m_hint.c_str());
    if (changed) model.setFlags(flags);
    const engine::CompileFlags& now = model.flags();
    if (now.isDefault()) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "NVRTC's defaults");
        return;
    }
    // What ptxas made of a register cap: kernels with __launch_bounds__ keep their own limit.
    const engine::CompileResult* r = model.resultIsCurrent() ? model.compileResult() : nullptr;
    const engine::PreparedVariant* v = model.variant();
    const engine::KernelResources* k = r != nullptr && v != nullptr ? engine::kernelNamed(r->kernels, v->name) : nullptr;
    if (k != nullptr && now.maxRegisters > 0 && r->ok && r->assembled) {
        ImGui::PushTextWrapPos(0.0f);
        switch (engine::registerCapOutcome(r->log, v->name, k->registers, now.maxRegisters)) {
        case engine::RegisterCapOutcome::Applied:
            ImGui::TextColored(Theme::toVec4(pal.ok), "ptxas capped the kernel at %d registers", now.maxRegisters);
            break;
        case engine::RegisterCapOutcome::Within:
            ImGui::TextColored(Theme::toVec4(pal.ok), "the kernel keeps within the cap: %d registers (it has __launch_bounds__)", k->registers);
            break;
        case engine::RegisterCapOutcome::Ignored:
            ImGui::TextColored(Theme::toVec4(pal.warn), "ptxas ignored the cap: the kernel's __launch_bounds__ take precedence (%d registers)",
                               k->registers);
            break;
        }
        ImGui::PopTextWrapPos();
    }
    std::string options;
    for (const std::string& o : now.nvrtcOptions()) options += (options.empty() ? "" : " ") + o;
    ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", options.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Defaults##flags")) model.setFlags({});
    tooltip("Back to NVRTC's defaults (the variant's name loses its flags suffix).");
}

}  // namespace kx::app
