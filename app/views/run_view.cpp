#include "views/run_view.hpp"

#include "analysis/tile_layout.hpp"
#include "explorer_model.hpp"
#include "theme.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

namespace kx::app {

namespace {

void dimText(const Theme& theme, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(theme.palette().textDim));
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

void row(const Theme& theme, const char* label, const std::string& value, ImU32 colour) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(Theme::toVec4(theme.palette().textDim), "%s", label);
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(colour));
    ImGui::TextWrapped("%s", value.c_str());
    ImGui::PopStyleColor();
}

std::string sizesText(const engine::SizeMap& sizes) {
    std::string text;
    for (const auto& [k, v] : sizes) text += (text.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return text;
}

// The manifest's quantities for the sizes typed so far (a convolution's output size and its
// implicit GEMM's M, N and K), one dim line; nothing while a size does not parse.
void drawQuantities(const Theme& theme, const engine::Template& tmpl, const engine::Config& config, const engine::Arch* arch,
                    const std::map<std::string, std::string>& sizeText) {
    if (tmpl.manifest().quantities.empty() || !arch) return;
    std::string text;
    try {
        for (const auto& [name, value] : tmpl.quantities(config, *arch, tmpl.withSizes(sizeText)))
            text += (text.empty() ? "" : "   ") + name + " " + fmt::format("{:.0f}", value);
    } catch (const engine::InputError&) {
        return;
    }
    dimText(theme, text);
    if (ImGui::IsItemHovered()) {
        std::string help;
        for (const engine::QuantitySpec& q : tmpl.manifest().quantities) help += q.name + ": " + q.help + " (" + q.expr + ")\n";
        ImGui::SetTooltip("%s", help.c_str());
    }
}

}  // namespace

void RunView::start() {
    m_startError.clear();
    try {
        model().runCurrent();
    } catch (const engine::InputError& e) {
        m_startError = e.what();
    }
}

void RunView::drawContent() {
    drawRunnerStatus();
    drawControls();
    // A fault test from the Run menu reports here until the next run.
    const auto& all = model().runs().history();
    if (!all.empty() && all.back().report.variant.starts_with(engine::kPlantedFaultPrefix)) drawFaultTest(all.back());
    const engine::PreparedVariant* v = model().variant();
    if (!v) return;
    const bool landed = m_runsSeen >= 0 && static_cast<long>(all.size()) > m_runsSeen;
    m_runsSeen = static_cast<long>(all.size());
    if (const RunRecord* latest = model().runs().latestFor(v->name)) {
        const float top = ImGui::GetCursorPosY();
        drawResult(*latest);
        // The whole result where it fits under the fold, else from its heading down.
        const float bottom = ImGui::GetCursorPosY();
        const float visible = ImGui::GetWindowHeight() - 2 * ImGui::GetStyle().WindowPadding.y;
        if (landed && bottom > ImGui::GetScrollY() + visible) ImGui::SetScrollY(std::min(top, bottom - visible));
        drawHistory(v->name);
    }
}

void RunView::drawRunnerStatus() {
    const Palette& pal = theme().palette();
    const RunModel& runs = model().runs();
    switch (runs.runnerState()) {
    case RunnerState::Probing: dimText(theme(), "Looking for a GPU..."); break;
    case RunnerState::Ready:
        ImGui::TextColored(Theme::toVec4(pal.ok), "GPU");
        ImGui::SameLine();
        ImGui::TextWrapped("%s (%s)", runs.deviceName().c_str(), runs.deviceArch().c_str());
        break;
    case RunnerState::Unavailable:
        ImGui::TextColored(Theme::toVec4(pal.warn), "No GPU");
        ImGui::SameLine();
        dimText(theme(), "Running needs an NVIDIA GPU and its driver; everything else works without one.");
        helpTooltip(runs.unavailableReason());
        break;
    }
}

void RunView::drawControls() {
    const Palette& pal = theme().palette();
    RunModel& runs = model().runs();
    const engine::Template* tmpl = model().currentTemplate();
    if (!tmpl) return;
    if (runs.sizesTemplate() != tmpl->id()) runs.resetSizes(*tmpl);

    sectionHeader("Problem size");
    if (const std::string preset = runs.presetSizes(); !preset.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(pal.textDim));
        ImGui::TextWrapped("The problem preset %s was tuned for", preset.c_str());
        ImGui::PopStyleColor();
        helpTooltip("Choosing a preset that names its problem (size=\"...\" in the template's preselected.xml) sets these sizes; "
                    "kx run --preset " + preset + " runs there too. Edit any of them to run another problem.");
    }
    const bool busy = runs.running();
    ImGui::BeginDisabled(busy);
    // The inputs line up after the longest size name ("M", or a convolution's "stride_d").
    float labelWidth = ImGui::GetFontSize() * 1.5f;
    for (const engine::SizeSpec& s : tmpl->manifest().sizes) labelWidth = std::max(labelWidth, ImGui::CalcTextSize(s.name.c_str()).x);
    for (const engine::SizeSpec& s : tmpl->manifest().sizes) {
        ImGui::PushID(s.name.c_str());
        ImGui::AlignTextToFramePadding();
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", s.name.c_str());
        helpTooltip(s.help);
        ImGui::SameLine(labelWidth + ImGui::GetFontSize());
        ImGui::SetNextItemWidth(-1);
        ImGui::InputText("##size", &runs.sizeText()[s.name], ImGuiInputTextFlags_CharsDecimal);
        helpTooltip(s.help + " (default " + std::to_string(s.defaultValue) + ")");
        ImGui::PopID();
    }
    drawQuantities(theme(), *tmpl, model().config(), model().currentArch(), runs.sizeText());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::InputInt("reps", &runs.reps, 5, 20);
    runs.reps = std::clamp(runs.reps, 1, 10000);
    helpTooltip("Timed launches after 5 warm-up launches; the median is reported.");
    ImGui::Checkbox("Count memory traffic", &runs.memoryCounters);
    helpTooltip("After the timed runs, count the DRAM, L2 and L1 bytes of one run with the GPU's hardware counters "
                "(CUPTI, each pass from a cold L2). The roofline then places the run at its measured intensity, at DRAM "
                "and at L2, instead of at the template's byte formula.");
    ImGui::EndDisabled();

    const bool canRun = runs.runnerState() == RunnerState::Ready && model().isValid() && model().resultIsCurrent() &&
                        model().compileResult() && model().compileResult()->ok && model().compileResult()->assembled;
    if (busy) {
        // A spinner-like progress line: stage and elapsed seconds; Cancel kills the runner.
        ImGui::TextColored(Theme::toVec4(pal.accent), "%s", fmt::format("Running: {} ({:.1f} s)", runs.stage(), runs.runningSeconds()).c_str());
        if (ImGui::Button("Cancel", ImVec2(-1, 0))) runs.cancel();
        helpTooltip("Stops the GPU runner process; the next run starts a fresh one.");
    } else {
        ImGui::BeginDisabled(!canRun);
        if (ImGui::Button("Run on GPU", ImVec2(-1, 0))) start();
        helpTooltip("Ctrl+R");
        ImGui::EndDisabled();
        if (!canRun && runs.runnerState() == RunnerState::Ready)
            dimText(theme(), model().isValid() ? "Waiting for the compile to finish." : "Fix the violated constraints to run.");
    }
    if (!m_startError.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(pal.error));
        ImGui::TextWrapped("%s", m_startError.c_str());
        ImGui::PopStyleColor();
    }
}

void RunView::drawFaultTest(const RunRecord& record) {
    const Palette& pal = theme().palette();
    const engine::RunReport& r = record.report;
    const std::string kind = r.variant.substr(std::string_view(engine::kPlantedFaultPrefix).size());
    sectionHeader("Fault test");
    dimText(theme(), fmt::format("{}: a planted {} kernel ran in the GPU runner.", record.when, kind));
    ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(r.ok ? pal.warn : pal.error));
    ImGui::TextWrapped("%s", r.error.c_str());
    ImGui::PopStyleColor();
    if (!r.ok) dimText(theme(), "Only the runner process was lost: the app and your session are unaffected, and the next run starts a fresh runner.");
    if (!r.ok) drawSharedGpuNote();
}

void RunView::drawSharedGpuNote() {
    if (!model().runs().windowDrawnByRunGpu()) return;
    ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(theme().palette().warn));
    ImGui::TextWrapped("This window is drawn by the same GPU (%s). NVIDIA's driver may not recover the window's drawing "
                       "from a kernel's fault, and then every later run fails: if they do, restart the app, or draw it with "
                       "Mesa (__GLX_VENDOR_LIBRARY_NAME=mesa) or on another GPU (README, \"Reliability\").",
                       model().runs().windowRenderer.c_str());
    ImGui::PopStyleColor();
}

void RunView::drawResult(const RunRecord& record) {
    const Palette& pal = theme().palette();
    const engine::RunReport& r = record.report;
    sectionHeader("Latest run");
    if (!r.ok) {
        ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(pal.error));
        ImGui::TextWrapped("The run failed: %s", r.error.c_str());
        ImGui::PopStyleColor();
        dimText(theme(), "The app is unaffected; the next run starts a fresh GPU runner.");
        drawSharedGpuNote();
        return;
    }
    const engine::CorrectnessReport& c = r.correctness;
    if (!ImGui::BeginTable("result", 2, ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthStretch, 0.34f);
    ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch, 0.66f);
    const engine::Verdict verdict = c.verdict();
    row(theme(), "verdict", fmt::format("{}  max rel err {:.2g} (tol {:.2g})", engine::verdictText(verdict), c.maxRelError, c.tolerance),
        verdict == engine::Verdict::Pass ? pal.ok : verdict == engine::Verdict::Fail ? pal.error : pal.textDim);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", (c.method + (c.firstBadIndex >= 0 ? "\nfirst mismatch: " + c.firstBadText : std::string())).c_str());
    const std::string sets = r.rotationSets > 1 ? fmt::format(", {} input sets", r.rotationSets) : std::string();
    row(theme(), "time", fmt::format("{:.4f} ms  ({:.4f}..{:.4f}, {} reps{})", r.medianMs, r.minMs, r.maxMs, r.reps, sets), pal.text);
    if (r.rotationSets > 1 && ImGui::IsItemHovered())
        ImGui::SetTooltip("The problem fits in L2: each timed run takes the next of %d copies of the inputs, so it reads them from DRAM.",
                          r.rotationSets);
    row(theme(), "rate", fmt::format("{:.2f} TFLOP/s  {:.0f} GB/s", r.tflops, r.gbps), pal.text);
    if (r.pctOfRoof) {
        // "FP16 tensor roof, NVIDIA H200 SXM 141GB datasheet": the roof in the row, whose in the tooltip.
        const auto comma = r.roofName.find(", ");
        row(theme(), "of roof", fmt::format("{:.1f}% of the {}", *r.pctOfRoof, r.roofName.substr(0, comma)), pal.text);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s\nHow close the run came to the roofline at its own intensity: the larger of its FLOP rate over the\n"
                              "peak of the units it runs on and its bytes over the DRAM bandwidth (the template's least bytes).",
                              comma == std::string::npos ? "" : r.roofName.substr(comma + 2).c_str());
    }
    if (r.pctOfComputeCeiling) row(theme(), "of peak", fmt::format("{:.1f}% of {}", *r.pctOfComputeCeiling, r.computeCeilingName), pal.text);
    if (const std::optional<engine::WaveModel> w = engine::runWaves(r)) {
        row(theme(), "waves", engine::wavesSentence(*w, true), w->busyShare() < 0.8 ? pal.warn : pal.text);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s\n\nThe launch as it ran: the GPU's SMs times the blocks the driver fits on one, and how many waves\n"
                              "(or, persistent, rounds of work) the grid took. The last wave costs a whole block's time however\n"
                              "few blocks it holds.",
                              engine::wavesSentence(*w).c_str());
    }
    if (r.pctOfCopyBandwidth) row(theme(), "of copy", fmt::format("{:.1f}% of calibrated copy GB/s", *r.pctOfCopyBandwidth), pal.text);
    for (const engine::BaselineReport& b : r.baselines) {
        if (!b.ok()) {
            row(theme(), "baseline", fmt::format("{}: not run ({})", b.name, b.error), pal.textDim);
            continue;
        }
        row(theme(), "baseline", fmt::format("{} {:.4f} ms: kernel at {:.1f}% of its speed", b.name, b.medianMs, 100.0 * b.speedup), pal.textDim);
        if (b.rotationSets > 1 && ImGui::IsItemHovered())
            ImGui::SetTooltip("Timed on the kernel's %d copies of the inputs in turn, read from DRAM as the kernel's are.", b.rotationSets);
    }
    if (const std::string traffic = engine::memoryTrafficText(r); !traffic.empty())
        row(theme(), "traffic", traffic, r.memoryCounters->ok() ? pal.text : pal.textDim);
    row(theme(), "device", r.deviceName, pal.textDim);
    ImGui::EndTable();
}

void RunView::drawHistory(const std::string& variant) {
    const Palette& pal = theme().palette();
    const auto history = model().runs().historyFor(variant);
    sectionHeader("History of this variant");
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("history", 4, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("when");
    ImGui::TableSetupColumn("sizes");
    ImGui::TableSetupColumn("ms");
    ImGui::TableSetupColumn("ok");
    ImGui::TableHeadersRow();
    for (const RunRecord* rec : history) {
        const engine::RunReport& r = rec->report;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", rec->when.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(sizesText(r.sizes).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.ok ? fmt::format("{:.3f}", r.medianMs).c_str() : "-");
        ImGui::TableNextColumn();
        const bool pass = r.ok && r.correctness.passed;
        ImGui::TextColored(Theme::toVec4(pass ? pal.ok : pal.error), "%s", r.ok ? (pass ? "PASS" : "FAIL") : "error");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.ok ? r.correctness.method.c_str() : r.error.c_str());
    }
    ImGui::EndTable();
}

}  // namespace kx::app
