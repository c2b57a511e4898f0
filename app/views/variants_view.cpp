#include "views/variants_view.hpp"

#include "clock_text.hpp"
#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>
#include <imgui_stdlib.h>

#include <algorithm>

namespace kx::app {

namespace {

// The table shows this many rows before it scrolls; the notes and runs below need the rest.
constexpr int kVisibleRows = 6;
constexpr int kVisibleRuns = 4;

// The part of the names every variant shares, up to an underscore ("gemm_f16_rcr_"): the table
// leaves it out so the distinctive tails fit the column.
std::size_t sharedPrefix(const std::vector<SessionEntry>& entries) {
    if (entries.size() < 2) return 0;
    std::string prefix = entries.front().variant.name;
    for (const SessionEntry& e : entries) {
        const std::string& n = e.variant.name;
        std::size_t i = 0;
        while (i < prefix.size() && i < n.size() && prefix[i] == n[i]) ++i;
        prefix.resize(i);
    }
    const std::size_t cut = prefix.rfind('_');
    return cut == std::string::npos ? 0 : cut + 1;
}

// Short labels: per template, the parameters whose values differ between its kept variants
// ("BM=64 BN=128 S=2"), which is where procedural names differ and get cut; the name's
// distinctive tail when nothing differs (a duplicate) or the template has one variant.
std::vector<std::string> shortLabels(const std::vector<SessionEntry>& entries, std::size_t hiddenPrefix) {
    std::vector<std::string> out;
    for (const SessionEntry& e : entries) {
        const engine::Config& mine = e.variant.config;
        std::string label;
        for (const auto& entry : mine.values) {
            const std::string& key = entry.first;
            const std::string& value = entry.second;
            const bool differs = std::any_of(entries.begin(), entries.end(), [&](const SessionEntry& o) {
                if (o.variant.config.templateId != mine.templateId) return false;
                const auto it = o.variant.config.values.find(key);
                return it == o.variant.config.values.end() || it->second != value;
            });
            if (differs) label += (label.empty() ? "" : " ") + key + "=" + value;
        }
        const std::string& name = e.variant.name;
        if (label.empty()) label = hiddenPrefix > 0 && hiddenPrefix < name.size() ? "\u2026" + name.substr(hiddenPrefix) : name;
        out.push_back(label);
    }
    return out;
}

std::string bestText(const SessionEntry& e) {
    double best = 0;
    for (const engine::StoredRun& r : e.runs)
        if (r.report.ok && r.report.correctness.passed && (best == 0 || r.report.medianMs < best)) best = r.report.medianMs;
    return best > 0 ? fmt::format("{:.3f} ms", best) : "-";
}

}  // namespace

bool VariantsView::select(std::int64_t variantId) {
    const SessionDataPtr& data = model().session().data();
    if (!data || data->find(variantId) == nullptr) return false;
    m_selected = variantId;
    return true;
}

void VariantsView::drawContent() {
    drawHeader();
    const SessionDataPtr& data = model().session().data();
    if (!data) return;
    if (data->entries.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(theme().palette().textDim),
                           "No variants kept yet. Keep in session (Ctrl+P) keeps the compiled variant; running one keeps it too.");
        ImGui::PopTextWrapPos();
        return;
    }
    // A variant that was just kept (the newest id) becomes the selected one.
    const std::int64_t newest = data->entries.back().variant.id;
    if (data->find(m_selected) == nullptr || (m_newestSeen != 0 && newest > m_newestSeen)) m_selected = newest;
    m_newestSeen = newest;
    // The detail follows the editor: when the editor moves to a kept variant (an edit, a load,
    // a sweep's best), its notes and runs show below, not those of one scrolled out of view.
    const std::string editorKey =
        (model().currentArch() ? model().currentArch()->name : std::string()) + "|" + model().config().canonical();
    if (editorKey != m_editorKey) {
        m_editorKey = editorKey;
        for (const SessionEntry& e : data->entries)
            if (model().currentArch() && e.variant.arch == model().currentArch()->name && e.variant.config == model().config())
                m_selected = e.variant.id;
    }
    drawTable();
    drawSelected();
}

void VariantsView::drawHeader() {
    const Palette& pal = theme().palette();
    SessionModel& session = model().session();
    const SessionDataPtr& data = session.data();
    if (!data) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), session.busy() ? "opening the session\u2026" : "no session open");
    } else {
        const std::string name = data->temporary ? "scratch session" : data->path.filename().string();
        ImGui::TextColored(Theme::toVec4(theme().syntax(SyntaxClass::Builtin)), "%s", name.c_str());
        helpTooltip(fmt::format("{}\n{} variant{}. Every change is written to this file at once.", data->path.string(),
                                data->entries.size(), data->entries.size() == 1 ? "" : "s"));
        ImGui::SameLine();
        if (data->readOnly) ImGui::TextColored(Theme::toVec4(pal.warn), "read-only");
        else ImGui::TextColored(Theme::toVec4(pal.textFaint), session.busy() ? "saving\u2026" : "saved");
    }
    if (!session.error().empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(pal.error));
        ImGui::TextWrapped("%s", session.error().c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("Dismiss")) session.clearError();
    }
}

void VariantsView::drawTable() {
    const Palette& pal = theme().palette();
    const SessionDataPtr data = model().session().data();
    const engine::PreparedVariant* current = model().variant();
    const std::string currentArch = model().currentArch() ? model().currentArch()->name : "";
    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                  ImGuiTableFlags_ScrollY;
    const int rows = std::min(static_cast<int>(data->entries.size()), kVisibleRows) + 1;
    const float height = static_cast<float>(rows) * (ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2) + 2;
    if (!ImGui::BeginTable("##variants", 4, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("arch");
    ImGui::TableSetupColumn("runs");
    ImGui::TableSetupColumn("best");
    ImGui::TableHeadersRow();
    std::int64_t load = 0;
    const std::size_t hidden = sharedPrefix(data->entries);
    const std::vector<std::string> labels = shortLabels(data->entries, hidden);
    for (std::size_t row = 0; row < data->entries.size(); ++row) {
        const SessionEntry& e = data->entries[row];
        const engine::SessionVariant& v = e.variant;
        ImGui::PushID(static_cast<int>(v.id));
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        // The variant in the editor now, so the user sees where they are.
        const bool inEditor = current != nullptr && v.arch == currentArch && v.config == model().config();
        if (inEditor) {
            ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(theme().syntax(SyntaxClass::Builtin)));
            ImGui::PushFont(theme().fonts().bold);
        }
        const std::string label = labels[row] + "##" + std::to_string(v.id);
        if (ImGui::Selectable(label.c_str(), m_selected == v.id, ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
            m_selected = v.id;
            if (ImGui::IsMouseDoubleClicked(0)) load = v.id;
        }
        if (inEditor) {
            ImGui::PopFont();
            ImGui::PopStyleColor();
        }
        helpTooltip(fmt::format("{}\n{}\n{}{}\nDouble-click to load it into the editor.", v.name, v.config.canonical(),
                                inEditor ? "in the editor now\n" : "", v.notes.empty() ? "" : "\n" + v.notes + "\n"));
        ImGui::TableNextColumn();
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", v.arch.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%zu", e.runs.size());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(bestText(e).c_str());
        ImGui::PopID();
    }
    ImGui::EndTable();
    if (load != 0) model().loadVariant(load);
}

void VariantsView::drawSelected() {
    const Palette& pal = theme().palette();
    SessionModel& session = model().session();
    const SessionDataPtr data = session.data();
    const SessionEntry* e = data->find(m_selected);
    if (e == nullptr) return;
    const engine::SessionVariant& v = e->variant;
    const bool writable = !data->readOnly;

    if (ImGui::Button("Load")) model().loadVariant(v.id);
    helpTooltip("Put this variant's template, arch and config in the editor.");
    ImGui::SameLine();
    ImGui::BeginDisabled(!writable);
    if (ImGui::Button("Rename")) {
        m_renaming = v.id;
        m_nameEdit = v.name;
    }
    ImGui::SameLine();
    if (ImGui::Button("Duplicate")) session.duplicate(v.id);
    helpTooltip("A copy with the same config, notes and artifacts (not its runs), to annotate separately.");
    ImGui::SameLine();
    if (m_confirmDelete == v.id) {
        ImGui::PushStyleColor(ImGuiCol_Button, Theme::toVec4(pal.error));
        if (ImGui::Button(fmt::format("Delete with {} run{}?", e->runs.size(), e->runs.size() == 1 ? "" : "s").c_str())) {
            session.remove(v.id);
            m_confirmDelete = 0;
        }
        ImGui::PopStyleColor();
    } else if (ImGui::Button("Delete")) {
        m_confirmDelete = v.id;
    }
    ImGui::EndDisabled();
    if (m_confirmDelete != 0 && m_confirmDelete != v.id) m_confirmDelete = 0;

    if (m_renaming == v.id) {
        ImGui::SetNextItemWidth(-FLT_MIN);
        ImGui::SetKeyboardFocusHere();
        if (ImGui::InputText("##rename", &m_nameEdit, ImGuiInputTextFlags_EnterReturnsTrue)) {
            if (!m_nameEdit.empty() && m_nameEdit != v.name) session.rename(v.id, m_nameEdit);
            m_renaming = 0;
        } else if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            m_renaming = 0;
        }
    }

    // Notes: loaded when the selection changes, written when the field is left after an edit.
    if (m_notesFor != v.id) {
        m_notesFor = v.id;
        m_notes = v.notes;
    }
    ImGui::BeginDisabled(!writable);
    ImGui::InputTextMultiline("##notes", &m_notes, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 3.4f));
    if (ImGui::IsItemDeactivatedAfterEdit() && m_notes != v.notes) session.setNotes(v.id, m_notes);
    ImGui::EndDisabled();
    if (m_notes.empty() && !ImGui::IsItemActive()) {
        const ImVec2 min = ImGui::GetItemRectMin();
        ImGui::GetWindowDrawList()->AddText(ImVec2(min.x + 6, min.y + 4), pal.textFaint, "notes: why this variant, what to try next\u2026");
    }
    drawRuns(v.id);
}

void VariantsView::drawRuns(std::int64_t variantId) {
    const Palette& pal = theme().palette();
    const SessionEntry* e = model().session().data()->find(variantId);
    if (e->runs.empty()) {
        ImGui::TextColored(Theme::toVec4(pal.textFaint), "not run yet");
        return;
    }
    int shown = 0;
    for (auto it = e->runs.rbegin(); it != e->runs.rend() && shown < kVisibleRuns; ++it, ++shown) {
        const engine::RunReport& r = it->report;
        const std::string when = localTimeText(it->createdAt);
        if (!r.ok) {
            ImGui::TextColored(Theme::toVec4(pal.error), "%s  failed", when.c_str());
            helpTooltip(r.error);
            continue;
        }
        const bool pass = r.correctness.passed;
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", when.c_str());
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(pass ? pal.ok : pal.error), pass ? "PASS" : "FAIL");
        ImGui::SameLine();
        std::string line = fmt::format("{:.3f} ms", r.medianMs);
        if (r.tflops > 0.01) line += fmt::format("  {:.1f} TFLOP/s", r.tflops);
        else line += fmt::format("  {:.0f} GB/s", r.gbps);
        if (const auto* b = r.primaryBaseline(); b && b->speedup > 0) line += fmt::format("  {:.2f}x {}", b->speedup, b->name);
        ImGui::TextUnformatted(line.c_str());
        std::string sizes;
        for (const auto& [k, value] : r.sizes) sizes += (sizes.empty() ? "" : " ") + k + "=" + std::to_string(value);
        helpTooltip(fmt::format("{}\n{}\n{}", it->device, sizes, it->calibrationJson.empty() ? "device not calibrated" : "calibrated device"));
    }
    if (e->runs.size() > static_cast<std::size_t>(kVisibleRuns))
        ImGui::TextColored(Theme::toVec4(pal.textFaint), "%zu earlier runs: kx session show FILE", e->runs.size() - kVisibleRuns);
}

}  // namespace kx::app
