#include "views/resources_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kx::app {

namespace {

std::string bytes(long long b) {
    if (b < 1024) return fmt::format("{} B", b);
    if (b % 1024 == 0) return fmt::format("{} KiB", b / 1024);
    return fmt::format("{:.1f} KiB", static_cast<double>(b) / 1024.0);
}

// A two-column property table: dim label on the left, value on the right.
bool beginProps(const char* id) {
    if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return false;
    ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthStretch, 0.58f);
    ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch, 0.42f);
    return true;
}

void prop(const Theme& theme, const char* label, const std::string& value, ImU32 valueColour, bool dimmed) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(Theme::toVec4(theme.palette().textDim), "%s", label);
    ImGui::TableNextColumn();
    ImVec4 c = Theme::toVec4(valueColour);
    if (dimmed) c.w *= 0.5f;
    // Right-align numbers so their units line up.
    const float w = ImGui::CalcTextSize(value.c_str()).x;
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, ImGui::GetContentRegionAvail().x - w));
    ImGui::TextColored(c, "%s", value.c_str());
}

// A thin usage bar: fraction of an arch limit, accent-coloured, red when over.
void meter(const Theme& theme, float fraction, const std::string& caption) {
    const Palette& pal = theme.palette();
    const float w = ImGui::GetContentRegionAvail().x;
    const float h = 4.0f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), pal.headerBg, 2.0f);
    const float f = std::clamp(fraction, 0.0f, 1.0f);
    dl->AddRectFilled(p, ImVec2(p.x + w * f, p.y + h), fraction > 1.0f ? pal.error : (fraction > 0.85f ? pal.warn : pal.accent),
                      2.0f);
    ImGui::Dummy(ImVec2(w, h));
    ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", caption.c_str());
}

// Where a compile stands, for the line shown instead of a kernel's figures.
struct CompileStatus {
    CompilePhase phase;
    bool haveResult;      // a result to show, current or not
    bool failedNow;       // the current result failed
    std::size_t errors;   // its diagnostics
    bool assembling;      // PTX ready, ptxas still at work (NVIDIA only)
    bool noKernels;       // the result lists no kernel
    const char* waiting;  // "Waiting for the first compile…"
    const char* none;     // why no kernel is listed
};

// The status of a compile result (engine::CompileResult or HipCompileResult; null while none).
template <class Result>
CompileStatus statusOf(CompilePhase phase, const Result* r, bool current, const char* waiting, const char* none) {
    return {phase, r != nullptr, r != nullptr && current && !r->ok, r != nullptr ? r->diagnostics.size() : 0, false,
            r != nullptr && r->kernels.empty(), waiting, none};
}

// The line that stands where a kernel's figures would; false (nothing drawn) when there is a
// kernel to show.
bool drawCompileStatus(const Theme& theme, const std::string& skipReason, const CompileStatus& s) {
    const Palette& pal = theme.palette();
    if (s.phase == CompilePhase::Skipped) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "No resources: %s.", skipReason.c_str());
        ImGui::PopTextWrapPos();
    } else if (!s.haveResult) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", s.waiting);
    } else if (s.failedNow) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.error), "Compile failed: %zu error%s. See the Log tab.", s.errors, s.errors == 1 ? "" : "s");
        ImGui::PopTextWrapPos();
    } else if (s.assembling) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "PTX is ready; ptxas is assembling it for the report\u2026");
    } else if (s.noKernels) {
        ImGui::TextColored(Theme::toVec4(pal.warn), "%s", s.none);
    } else {
        return false;
    }
    return true;
}

// A multi-kernel result's kernel picker; index is kept in range.
template <class Kernel>
void kernelPicker(const char* id, const std::vector<Kernel>& kernels, int& index) {
    index = std::clamp(index, 0, static_cast<int>(kernels.size()) - 1);
    if (kernels.size() <= 1) return;
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::BeginCombo(id, kernels[static_cast<std::size_t>(index)].function.c_str())) {
        for (std::size_t i = 0; i < kernels.size(); ++i)
            if (ImGui::Selectable(kernels[i].function.c_str(), static_cast<int>(i) == index)) index = static_cast<int>(i);
        ImGui::EndCombo();
    }
}

}  // namespace

template <class Result>
void ResourcesView::drawCompiler(const char* id, const char* compiler, const std::string& version, bool found, const Result* r,
                                 bool current) const {
    const Palette& pal = theme().palette();
    ImGui::Spacing();
    sectionHeader("Compiler");
    if (!beginProps(id)) return;
    prop(theme(), compiler, version, found ? pal.text : pal.warn, false);
    if (r != nullptr && r->ok) {
        const std::string t = r->fromCache ? std::string("cached") : fmt::format("{:.0f} ms", r->compileMs);
        prop(theme(), "Compile time", t, r->fromCache ? pal.ok : pal.text, !current);
    }
    ImGui::EndTable();
}

void ResourcesView::drawKernelName(const std::string& function) const {
    ImGui::TextColored(Theme::toVec4(theme().palette().textFaint), "%s", function.c_str());
    helpTooltip(function);
    ImGui::Spacing();
}

void ResourcesView::drawContent() {
    if (model().compilesHip()) {
        drawHip();
        return;
    }
    const engine::CompileResult* r = model().compileResult();
    const CompilePhase phase = model().phase();

    CompileStatus status =
        statusOf(phase, r, model().resultIsCurrent(), "Waiting for the first compile\u2026", "The ptxas report listed no kernel.");
    status.assembling = r != nullptr && r->ok && !r->assembled;
    if (!drawCompileStatus(theme(), model().skipReason(), status)) {
        // A new result opens on the launch's kernel, the one that does the work (ptxas may list
        // a multi-kernel template's helper first), or, when the problem has no launch (refused
        // sizes), on the kernel named after the variant, the primary one; the picker then keeps
        // the user's choice.
        if (r != m_kernelPickedFor) {
            m_kernelPickedFor = r;
            m_kernelIndex = 0;
            if (const engine::KernelResources* k = engine::kernelNamed(r->kernels, model().primaryKernel()))
                m_kernelIndex = static_cast<int>(k - r->kernels.data());
        }
        kernelPicker("##kernel", r->kernels, m_kernelIndex);
        const engine::KernelResources& k = r->kernels[static_cast<std::size_t>(m_kernelIndex)];
        drawKernelName(k.function);
        drawKernel(k, !model().resultIsCurrent());
    }

    // Compiler facts are useful even when nothing compiled.
    drawCompiler("##compiler", "NVRTC", model().compilerVersion(), true, r, model().resultIsCurrent());
}

void ResourcesView::drawKernel(const engine::KernelResources& k, bool dimmed) {
    const Palette& pal = theme().palette();
    sectionHeader("Per thread");
    if (beginProps("##thread")) {
        prop(theme(), "Registers", std::to_string(k.registers), pal.text, dimmed);
        prop(theme(), "Stack frame", bytes(k.stackFrameBytes), k.stackFrameBytes > 0 ? pal.warn : pal.text, dimmed);
        prop(theme(), "Spill stores", bytes(k.spillStoreBytes), k.spillStoreBytes > 0 ? pal.error : pal.text, dimmed);
        prop(theme(), "Spill loads", bytes(k.spillLoadBytes), k.spillLoadBytes > 0 ? pal.error : pal.text, dimmed);
        ImGui::EndTable();
    }
    const engine::Arch* arch = model().currentArch();
    const auto& launch = model().launch();
    if (arch != nullptr && arch->nv.maxRegsPerThread > 0) {
        meter(theme(), static_cast<float>(k.registers) / static_cast<float>(arch->nv.maxRegsPerThread),
              fmt::format("{} of {} registers", k.registers, arch->nv.maxRegsPerThread));
    }
    if (k.spills()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.error), "Spills go to local memory: slow.");
        ImGui::PopTextWrapPos();
    }
    ImGui::Spacing();

    sectionHeader("Per block");
    const long long dyn = launch ? launch->dynamicSmemBytes : 0;
    if (beginProps("##block")) {
        prop(theme(), "Threads", launch ? std::to_string(launch->threadsPerBlock()) : "?", pal.text, false);
        prop(theme(), "Static smem", bytes(k.sharedBytes), pal.text, dimmed);
        prop(theme(), "Dynamic smem", launch ? bytes(dyn) : "?", pal.text, false);
        prop(theme(), "Barriers", std::to_string(k.barriers), pal.text, dimmed);
        ImGui::EndTable();
    }
    if (arch != nullptr && arch->nv.smemPerBlockOptin > 0) {
        const long long total = k.sharedBytes + dyn;
        meter(theme(), static_cast<float>(total) / static_cast<float>(arch->nv.smemPerBlockOptin),
              fmt::format("{} of {} shared", bytes(total), bytes(arch->nv.smemPerBlockOptin)));
    }
}

void ResourcesView::drawHip() {
    const Palette& pal = theme().palette();
    // First, where it cannot be missed: the code and its figures are real, a run is not possible.
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(Theme::toVec4(pal.warn), "AMD: compiled only. Running needs an AMD GPU, and Kernel Explorer has not been run "
                                                "on AMD hardware.");
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    const engine::HipCompileResult* r = model().hipResult();
    const CompilePhase phase = model().phase();
    const CompileStatus status =
        statusOf(phase, r, model().hipResultIsCurrent(), "Waiting for the first HIP compile\u2026", "The code object lists no kernel.");
    if (!drawCompileStatus(theme(), model().skipReason(), status)) {
        kernelPicker("##amdkernel", r->kernels, m_kernelIndex);
        const engine::AmdKernelResources& k = r->kernels[static_cast<std::size_t>(m_kernelIndex)];
        drawKernelName(k.function);
        drawAmdKernel(k, !model().hipResultIsCurrent());
    }
    const std::string& version = model().hipCompilerVersion();
    drawCompiler("##hipcompiler", "HIP (AMD)", version.empty() ? std::string("clang 19 not found") : version, !version.empty(), r,
                 model().hipResultIsCurrent());
}

void ResourcesView::drawAmdKernel(const engine::AmdKernelResources& k, bool dimmed) {
    const Palette& pal = theme().palette();
    const engine::Arch* arch = model().currentArch();
    const auto& launch = model().launch();
    const long long dyn = launch ? launch->dynamicSmemBytes : 0;  // LDS the launch asks for

    sectionHeader("Per lane (thread)");
    if (beginProps("##lane")) {
        prop(theme(), "VGPRs", std::to_string(k.vgprs), pal.text, dimmed);
        prop(theme(), "AGPRs", std::to_string(k.agprs), pal.text, dimmed);
        prop(theme(), "Unified VGPRs", std::to_string(k.totalVgprs), pal.text, dimmed);
        prop(theme(), "Scratch", bytes(k.scratchBytes), k.scratchBytes > 0 ? pal.error : pal.text, dimmed);
        prop(theme(), "VGPR spills", std::to_string(k.vgprSpills), k.vgprSpills > 0 ? pal.error : pal.text, dimmed);
        ImGui::EndTable();
    }
    if (arch != nullptr && arch->amd.maxVgprsPerWave > 0)
        meter(theme(), static_cast<float>(k.totalVgprs) / static_cast<float>(arch->amd.maxVgprsPerWave),
              fmt::format("{} of {} VGPRs + AGPRs", k.totalVgprs, arch->amd.maxVgprsPerWave));
    ImGui::Spacing();
    sectionHeader("Per wave");
    if (beginProps("##wave")) {
        prop(theme(), "Wave size", std::to_string(k.wavefrontSize), pal.text, dimmed);
        prop(theme(), "SGPRs", std::to_string(k.sgprs), pal.text, dimmed);
        prop(theme(), "SGPR spills", std::to_string(k.sgprSpills), k.sgprSpills > 0 ? pal.error : pal.text, dimmed);
        prop(theme(), "Compiler occupancy", fmt::format("{} waves/SIMD", k.compilerOccupancy), pal.text, dimmed);
        ImGui::EndTable();
    }
    ImGui::Spacing();
    sectionHeader("Per workgroup");
    if (beginProps("##wg")) {
        prop(theme(), "Threads", launch ? std::to_string(launch->threadsPerBlock()) : "?", pal.text, false);
        prop(theme(), "Kernel bound", std::to_string(k.maxFlatWorkgroupSize), pal.text, dimmed);
        prop(theme(), "Static LDS", bytes(k.ldsBytes), pal.text, dimmed);
        prop(theme(), "Dynamic LDS", launch ? bytes(dyn) : "?", pal.text, false);
        prop(theme(), "Code", bytes(k.codeBytes), pal.text, dimmed);
        ImGui::EndTable();
    }
    if (arch != nullptr && arch->amd.maxLdsPerWorkgroup > 0) {
        const long long total = k.ldsBytes + dyn;
        meter(theme(), static_cast<float>(total) / static_cast<float>(arch->amd.maxLdsPerWorkgroup),
              fmt::format("{} of {} LDS", bytes(total), bytes(arch->amd.maxLdsPerWorkgroup)));
    }
    if (k.spills()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.error), "Scratch in use: spills or private arrays go to memory, hundreds of cycles away.");
        ImGui::PopTextWrapPos();
    }
}

void LaunchView::drawContent() {
    const Palette& pal = theme().palette();
    const auto& launch = model().launch();
    if (!launch) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s",
                           model().launchError().empty() ? "No launch geometry." : model().launchError().c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    if (beginProps("##launch")) {
        prop(theme(), "Grid", fmt::format("{} x {} x {}", launch->grid[0], launch->grid[1], launch->grid[2]), pal.text,
             false);
        prop(theme(), "Block", fmt::format("{} x {} x {}", launch->block[0], launch->block[1], launch->block[2]),
             pal.text, false);
        prop(theme(), "Blocks", fmt::format("{}", launch->blocks()), pal.text, false);
        prop(theme(), "Dynamic smem", bytes(launch->dynamicSmemBytes), pal.text, false);
        ImGui::EndTable();
    }
    // The sizes the geometry is for: the Run panel's, or the template's defaults while those do not parse.
    std::string sizes;
    for (const auto& [k, v] : model().sizes()) sizes += fmt::format("{}{}={}", sizes.empty() ? "" : "  ", k, v);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(Theme::toVec4(pal.textFaint), "for %s", sizes.c_str());
    ImGui::PopTextWrapPos();
}

}  // namespace kx::app
