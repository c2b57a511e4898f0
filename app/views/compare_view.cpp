#include "views/compare_view.hpp"

#include "compare_flags.hpp"

#include "export_file.hpp"
#include "analysis/roofline_scene.hpp"
#include "explorer_model.hpp"
#include "run/variant_run.hpp"
#include "theme.hpp"
#include "util/error.hpp"
#include "widgets/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace kx::app {

namespace {

// Share of the window under the toolbar and pins that the table and roofline take; the diffs
// get the rest (they scroll, and need height more than the table does).
constexpr float kTopFraction = 0.5f;
// The roofline's share of the top row's width.
constexpr float kRooflineFraction = 0.34f;
// The compute roof of a variant whose units the device does not list: the CUDA cores' FP32 FMA.
constexpr const char* kSimtUnit = "fp32";

// The device the comparison is drawn for: the one the first measured column ran on, else this
// machine's GPU, where either has the first column's compute capability; else the arch's usual
// device (the H100 SXM for sm_90).
const engine::DeviceSpec* deviceFor(const engine::ArchDatabase& db, const std::string& archName,
                                    const std::vector<const engine::RunReport*>& runs, const std::string& thisGpu) {
    const engine::Arch* arch = db.findArch(archName);
    if (arch == nullptr) return db.findDevice("h100_sxm");
    for (const engine::RunReport* r : runs)
        if (r != nullptr && !r->deviceName.empty())
            if (const engine::DeviceSpec* d = engine::deviceForGpuName(db, *arch, r->deviceName)) return d;
    if (!thisGpu.empty())
        if (const engine::DeviceSpec* d = engine::deviceForGpuName(db, *arch, thisGpu)) return d;
    return engine::rooflineDeviceForArch(db, *arch);
}

}  // namespace

CompareView::CompareView(ViewContext context) : View("Compare", Slot::Floating, context) { setOpen(false); }

void CompareView::placeWindow() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    centreNextWindow(ImVec2(std::floor(vp->WorkSize.x * 0.94f), std::floor(vp->WorkSize.y * 0.92f)));
}

ImU32 CompareView::columnColour(int column) const {
    // The chart's series hues, skipping the error red (index 5) which means "bad" in the table.
    static constexpr int kOrder[] = {0, 1, 2, 3, 4, 6, 7};
    return chartColours(theme()).series[kOrder[static_cast<std::size_t>(column) % std::size(kOrder)]];
}

void CompareView::syncSelection() {
    const auto& pins = model().compare().pins();
    std::vector<bool> ticked(pins.size(), false);
    std::vector<std::int64_t> tickedFor(pins.size(), 0);
    for (std::size_t i = 0; i < pins.size(); ++i) {
        tickedFor[i] = pins[i]->variantId;
        bool found = false;
        for (std::size_t j = 0; j < m_tickedFor.size() && !found; ++j) {
            if (m_tickedFor[j] == pins[i]->variantId) {
                ticked[i] = m_ticked[j];
                found = true;
            }
        }
        // New variants start ticked while there is room: keeping three variants shows three columns.
        if (!found) ticked[i] = static_cast<std::size_t>(std::count(ticked.begin(), ticked.end(), true)) < CompareModel::kMaxSelected;
    }
    m_ticked = std::move(ticked);
    m_tickedFor = std::move(tickedFor);
    const int n = static_cast<int>(pins.size());
    m_pairA = std::clamp(m_pairA, 0, std::max(0, n - 1));
    m_pairB = std::clamp(m_pairB, 0, std::max(0, n - 1));
    if (n >= 2 && m_pairA == m_pairB) m_pairB = m_pairA == 0 ? 1 : 0;
}

bool CompareView::selectPair(int a, int b) {
    syncSelection();
    const int n = static_cast<int>(model().compare().pins().size());
    if (a < 0 || b < 0 || a >= n || b >= n) return false;
    m_pairA = a;
    m_pairB = b;
    m_ticked[static_cast<std::size_t>(a)] = true;
    m_ticked[static_cast<std::size_t>(b)] = true;
    // Keep within the limit: untick others, last first, until it fits.
    for (int i = n - 1; i >= 0 && std::count(m_ticked.begin(), m_ticked.end(), true) > static_cast<long>(CompareModel::kMaxSelected); --i) {
        if (i != a && i != b) m_ticked[static_cast<std::size_t>(i)] = false;
    }
    return true;
}

bool CompareView::tickOnly(const std::vector<int>& pins) {
    syncSelection();
    const int n = static_cast<int>(m_ticked.size());
    if (pins.size() > CompareModel::kMaxSelected) return false;
    for (int i : pins) {
        if (i < 0 || i >= n) return false;
    }
    std::fill(m_ticked.begin(), m_ticked.end(), false);
    for (int i : pins) m_ticked[static_cast<std::size_t>(i)] = true;
    return true;
}

std::vector<SnapshotPtr> CompareView::selected() const {
    std::vector<SnapshotPtr> out;
    const auto& pins = model().compare().pins();
    for (std::size_t i = 0; i < pins.size() && i < m_ticked.size(); ++i)
        if (m_ticked[i]) out.push_back(pins[i]);
    return out;
}

void CompareView::rebuild() {
    const auto& pins = model().compare().pins();
    Key key;
    key.revision = model().compare().revision();
    for (const auto& s : selected()) key.selected.push_back(s.get());
    if (m_builtFor && *m_builtFor == key) return;
    m_builtFor = key;

    const std::vector<SnapshotPtr> sel = selected();
    std::vector<const engine::RunReport*> runs;
    for (const auto& s : sel) runs.push_back(CompareModel::latestRun(*s));
    // A run stored before runs said their share of the roof gets it here, from the same datasheet
    // and calibration a new run would use.
    m_filledRuns.clear();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const engine::Arch* arch = model().archDatabase().findArch(sel[i]->arch);
        if (runs[i] == nullptr || runs[i]->pctOfRoof || arch == nullptr) continue;
        auto filled = std::make_unique<engine::RunReport>(*runs[i]);
        engine::applyRoofShare(model().archDatabase(), *arch, sel[i]->rooflineUnit, engine::loadCalibration(filled->deviceName), *filled);
        runs[i] = filled.get();
        m_filledRuns.push_back(std::move(filled));
    }
    m_table = buildMetricTable(sel, runs);
    addFlagRows(m_table, sel);
    m_columnPin.clear();
    for (std::size_t i = 0; i < pins.size() && i < m_ticked.size(); ++i)
        if (m_ticked[i]) m_columnPin.push_back(static_cast<int>(i));

    // The roofline of the device the columns ran on: DRAM, the roof of each column's units (the
    // CUDA cores' FP32, a dtype's tensor cores), and each column's points.
    m_roof = Roof{};
    if (sel.empty()) return;
    const std::string thisGpu = model().runs().runnerState() == RunnerState::Ready ? model().runs().deviceName() : std::string();
    const engine::DeviceSpec* device = deviceFor(model().archDatabase(), sel.front()->arch, runs, thisGpu);
    if (device == nullptr) return;
    const engine::RooflineModel roof(*device);
    const engine::RooflineCeiling* dram = roof.memory("dram");
    if (dram == nullptr || roof.compute(kSimtUnit) == nullptr) return;
    for (const auto& s : sel) {
        const engine::RooflineCeiling* c = engine::unitRoof(roof, s->rooflineUnit);
        const std::string label = fmt::format("{}  {:g} TFLOP/s", c->label, c->value / 1e12);
        if (std::none_of(m_roof.roofs.begin(), m_roof.roofs.end(), [&](const auto& r) { return r.second == label; }))
            m_roof.roofs.emplace_back(c->value, label);
    }
    std::sort(m_roof.roofs.begin(), m_roof.roofs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    m_roof.valid = true;
    m_roof.device = device->name;
    m_roof.dramBw = dram->value;
    const double top = m_roof.roofs.front().first;
    double xLo = 0.5, xHi = top / dram->value * 4, yHi = top * 1.5, yLo = dram->value * 0.5;
    const std::size_t n = sel.size();
    m_roof.predX.assign(n, {});
    m_roof.predY.assign(n, {});
    m_roof.measX.assign(n, {});
    m_roof.measY.assign(n, {});
    for (std::size_t c = 0; c < n; ++c) {
        const VariantSnapshot& s = *sel[c];
        if (s.predictedAi > 0) {
            m_roof.predX[c].push_back(s.predictedAi);
            // On the roof of the units this variant computes on, where the device lists it.
            const char* unit = roof.compute(s.rooflineUnit) != nullptr ? s.rooflineUnit.c_str() : kSimtUnit;
            m_roof.predY[c].push_back(roof.attainable(s.predictedAi, unit));
            xLo = std::min(xLo, s.predictedAi / 3);
            xHi = std::max(xHi, s.predictedAi * 3);
        }
        if (const engine::RunReport* r = runs[c]; r && r->bytes > 0 && r->medianMs > 0) {
            const double ai = r->flops / r->bytes;
            const double f = r->flops / (r->medianMs * 1e-3);
            m_roof.measX[c].push_back(ai);
            m_roof.measY[c].push_back(f);
            m_roof.anyMeasured = true;
            xLo = std::min(xLo, ai / 3);
            xHi = std::max(xHi, ai * 3);
            yLo = std::min(yLo, f / 3);
        }
    }
    m_roof.x = chart::decadeScale(xLo, xHi);
    m_roof.y = chart::decadeScale(std::max(yLo, dram->value * m_roof.x.min * 0.5), yHi);
}

void CompareView::drawContent() {
    syncSelection();
    rebuild();
    drawToolbar();
    drawPins();
    const auto& pins = model().compare().pins();
    if (pins.size() < 2) {
        ImGui::Spacing();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(theme().palette().textDim),
                           "Keep at least two compiled variants in the session to compare them: set a config, wait for it "
                           "to compile, then Session > Keep current variant (Ctrl+P) or the Keep button under the "
                           "configuration. Running a variant keeps it too.");
        ImGui::PopTextWrapPos();
        return;
    }
    const float topH = std::floor(ImGui::GetContentRegionAvail().y * kTopFraction);
    ImGui::BeginGroup();
    drawTable(topH);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    drawRoofline(topH);
    ImGui::EndGroup();
    drawDiffs();
}

void CompareView::drawToolbar() {
    const Palette& pal = theme().palette();
    CompareModel& cmp = model().compare();
    const std::string why = CompareModel::cannotKeepReason(model());
    ImGui::BeginDisabled(!why.empty());
    if (ImGui::Button("Keep current")) {
        try {
            cmp.keep(model());
        } catch (const engine::InputError& e) {
            m_exportMessage = e.what();
            m_exportFailed = true;
        }
    }
    ImGui::EndDisabled();
    helpTooltip(why.empty() ? "Keep the current variant in the session (Ctrl+P): its source, PTX, SASS, resources and runs." : why);
    ImGui::SameLine();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "%zu in the session, %zu compared", cmp.pins().size(), selected().size());
    ImGui::SameLine();
    const bool canExport = !selected().empty();
    ImGui::BeginDisabled(!canExport);
    if (ImGui::Button("Export CSV")) exportTable(std::filesystem::current_path() / "kx_compare.csv");
    helpTooltip("Write the metrics table as CSV into the current folder (kx_compare.csv).");
    ImGui::SameLine();
    if (ImGui::Button("Export Markdown")) exportTable(std::filesystem::current_path() / "kx_compare.md");
    helpTooltip("Write the metrics table as a Markdown table into the current folder (kx_compare.md).");
    ImGui::EndDisabled();
    if (!m_exportMessage.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(m_exportFailed ? pal.error : pal.textFaint), "%s", m_exportMessage.c_str());
    }
}

void CompareView::drawPins() {
    const Palette& pal = theme().palette();
    CompareModel& cmp = model().compare();
    const auto& pins = cmp.pins();
    if (pins.empty()) return;
    const auto nTicked = static_cast<std::size_t>(std::count(m_ticked.begin(), m_ticked.end(), true));
    const ImGuiTableFlags flags =
        ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_ScrollY;
    // A long session scrolls here rather than pushing the table off the window.
    constexpr std::size_t kVisibleRows = 6;
    const float height = static_cast<float>(std::min(pins.size(), kVisibleRows)) * ImGui::GetFrameHeightWithSpacing() +
                         ImGui::GetStyle().CellPadding.y * 2;
    if (ImGui::BeginTable("##pins", 6, flags, ImVec2(0, height))) {
        for (const char* column : {"##tick", "#", "variant (column)", "arch", "latest run"}) ImGui::TableSetupColumn(column);
        ImGui::TableSetupColumn("notes", ImGuiTableColumnFlags_WidthStretch);
        for (std::size_t i = 0; i < pins.size(); ++i) {
            const VariantSnapshot& s = *pins[i];
            ImGui::PushID(static_cast<int>(i));
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            bool tick = m_ticked[i];
            ImGui::BeginDisabled(!tick && nTicked >= CompareModel::kMaxSelected);
            if (ImGui::Checkbox("##tick", &tick)) m_ticked[i] = tick;
            ImGui::EndDisabled();
            helpTooltip(fmt::format("Compare up to {} at once.", CompareModel::kMaxSelected));
            ImGui::TableNextColumn();
            // The column colour, so a pin is found in the table and on the roofline.
            const auto col = std::find(m_columnPin.begin(), m_columnPin.end(), static_cast<int>(i));
            const ImU32 colour = col != m_columnPin.end() ? columnColour(static_cast<int>(col - m_columnPin.begin())) : pal.textFaint;
            ImGui::AlignTextToFramePadding();
            ImGui::TextColored(Theme::toVec4(colour), "%zu", i + 1);
            ImGui::TableNextColumn();
            ImGui::TextColored(Theme::toVec4(theme().syntax(SyntaxClass::Builtin)), "%s", s.name.c_str());
            if (col != m_columnPin.end()) {
                // Which table column and roofline colour it is, by its letter.
                ImGui::SameLine();
                ImGui::TextColored(Theme::toVec4(colour), "(%s)", columnLetter(static_cast<std::size_t>(col - m_columnPin.begin())).c_str());
            }
            helpTooltip(fmt::format("{}\nupdated {}\n{}{}", s.config.canonical(), s.updatedAt,
                                    s.sass.empty() ? "no SASS: " + s.sassNote : std::string("SASS available"),
                                    s.notes.empty() ? std::string() : "\n\n" + s.notes));
            ImGui::TableNextColumn();
            ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", s.arch.c_str());
            ImGui::TableNextColumn();
            if (const engine::RunReport* r = CompareModel::latestRun(s)) {
                ImGui::Text("%.3f ms", r->medianMs);
            } else {
                ImGui::TextColored(Theme::toVec4(pal.textFaint), "not run");
            }
            ImGui::TableNextColumn();
            if (!s.notes.empty()) {
                // Wrapped in the column, not cut: notes are read, not hovered.
                ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(pal.textDim));
                ImGui::TextWrapped("%s", s.notes.c_str());
                ImGui::PopStyleColor();
            }
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
}

void CompareView::drawTable(float height) {
    const Palette& pal = theme().palette();
    const float width = std::floor(ImGui::GetContentRegionAvail().x * (1.0f - kRooflineFraction)) - ImGui::GetStyle().ItemSpacing.x;
    const int n = static_cast<int>(m_table.columns.size());
    if (n == 0) {
        ImGui::BeginChild("##nometrics", ImVec2(width, height));
        ImGui::TextColored(Theme::toVec4(pal.textDim), "Tick pins above to compare them.");
        ImGui::EndChild();
        return;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_BordersOuter | ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("##metrics", n + 1, flags, ImVec2(width, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("metric", ImGuiTableColumnFlags_WidthStretch, 1.1f);
    for (int c = 0; c < n; ++c) ImGui::TableSetupColumn(m_table.columns[static_cast<std::size_t>(c)].c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    // Header row drawn by hand: each variant's name in its colour, the full name on hover.
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    ImGui::TableNextColumn();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "metric");
    for (int c = 0; c < n; ++c) {
        ImGui::TableNextColumn();
        // The letter and the parameters that differ, wrapped rather than cut: the difference
        // between the variants is the part a reader needs.
        ImGui::PushFont(theme().fonts().bold);
        ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(columnColour(c)));
        ImGui::TextWrapped("%s", m_table.columns[static_cast<std::size_t>(c)].c_str());
        ImGui::PopStyleColor();
        ImGui::PopFont();
        helpTooltip(m_table.names[static_cast<std::size_t>(c)] + " (" + m_table.arches[static_cast<std::size_t>(c)] + ")");
    }
    for (const MetricRow& r : m_table.rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (!r.section.empty()) {
            ImGui::PushFont(theme().fonts().bold);
            ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", r.section.c_str());
            ImGui::PopFont();
            continue;
        }
        // Rows where every variant agrees say nothing about the difference: dimmed.
        const ImU32 labelColour = r.allEqual ? pal.textFaint : pal.textDim;
        // The unit beside the label, unless the cells carry it already (KiB, the x of a ratio).
        const bool unitInCells = r.unit.empty() || r.unit == "x" || r.unit == "bytes";
        const std::string label = unitInCells ? r.label : r.label + " (" + r.unit + ")";
        ImGui::TextColored(Theme::toVec4(labelColour), "%s", label.c_str());
        helpTooltip(r.help + (r.better == Better::Lower ? "\nLower is better." : r.better == Better::Higher ? "\nHigher is better." : ""));
        for (int c = 0; c < n; ++c) {
            const auto i = static_cast<std::size_t>(c);
            ImGui::TableNextColumn();
            if (r.prose) {
                ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(pal.text));
                ImGui::TextWrapped("%s", r.texts[i].c_str());
                ImGui::PopStyleColor();
                continue;
            }
            if (r.best[i]) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, pal.bestCellBg);
            const ImU32 colour = r.bad[i] ? pal.error : r.best[i] ? pal.ok : r.allEqual ? pal.textFaint : pal.text;
            // Right-aligned, so digits line up down a column.
            const float w = ImGui::CalcTextSize(r.texts[i].c_str()).x;
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, ImGui::GetContentRegionAvail().x - w));
            if (r.best[i]) ImGui::PushFont(theme().fonts().bold);
            ImGui::TextColored(Theme::toVec4(colour), "%s", r.texts[i].c_str());
            if (r.best[i]) ImGui::PopFont();
        }
    }
    ImGui::EndTable();
}

void CompareView::drawRoofline(float height) {
    const Palette& pal = theme().palette();
    if (!m_roof.valid) {
        ImGui::BeginChild("##noroof", ImVec2(0, height));
        ImGui::TextColored(Theme::toVec4(pal.textDim), "No device data for a roofline.");
        ImGui::EndChild();
        return;
    }
    const float noteH = ImGui::GetTextLineHeightWithSpacing() * 3;
    ChartAxis x;
    x.label = "FLOP/byte";
    x.scale = m_roof.x;
    x.maxTicks = 5;
    ChartAxis y;
    y.label = "FLOP/s  " + m_roof.device;
    y.scale = m_roof.y;
    Chart chart(theme());
    if (chart.begin("##cmproof", ImVec2(-1, height - noteH), x, y)) {
        // Ceilings in a neutral colour: the series hues belong to the variants. The DRAM slope
        // runs up to the highest roof; each roof starts where the slope meets it.
        const ImU32 roofColour = pal.textDim;
        const double topRidge = m_roof.roofs.front().first / m_roof.dramBw;
        chart.segment(m_roof.x.min, m_roof.dramBw * m_roof.x.min, topRidge, m_roof.roofs.front().first, roofColour, 2.0f);
        for (const auto& [peak, label] : m_roof.roofs) {
            const double ridge = peak / m_roof.dramBw;
            chart.segment(ridge, peak, m_roof.x.max, peak, roofColour, 2.0f);
            // Label at the roof's left end: the points sit at its right, at the problem's high intensity.
            chart.text(ridge, peak, label, roofColour, ImVec2(0, 1), ImVec2(4, -4), true);
        }
        const double ridge = m_roof.roofs.back().first / m_roof.dramBw;
        const double labelX = std::sqrt(m_roof.x.min * ridge);  // half-way up the diagonal, in log space
        chart.text(labelX, m_roof.dramBw * labelX,
                   fmt::format("DRAM {:.0f} GB/s", m_roof.dramBw / 1e9), roofColour, ImVec2(0, 1), ImVec2(6, -6), true);
        // One series per column so each point takes its variant's colour and legend entry.
        for (std::size_t c = 0; c < m_table.columns.size() && c < m_roof.predX.size(); ++c) {
            const ImU32 colour = columnColour(static_cast<int>(c));
            const std::string& name = m_table.columns[c];
            const auto& px = m_roof.predX[c];
            const auto& py = m_roof.predY[c];
            const auto& mx = m_roof.measX[c];
            const auto& my = m_roof.measY[c];
            // Predicted points of one problem coincide: later columns draw smaller on top, so
            // every colour stays visible as a ring.
            const float r = std::max(2.5f, 8.0f - 1.8f * static_cast<float>(c));
            chart.scatter("", px, py, MarkerShape::Diamond, colour, r, [&, c](std::size_t k) {
                return fmt::format("{} (predicted)\nAI {} FLOP/byte, at most {}FLOP/s", m_table.names[c],
                                   chart::formatCompact(px[k], 2), chart::formatCompact(py[k], 2));
            });
            chart.scatter("", mx, my, MarkerShape::Square, colour, 5.0f, [&, c](std::size_t k) {
                return fmt::format("{} (measured)\nAI {} FLOP/byte, {}FLOP/s", m_table.names[c], chart::formatCompact(mx[k], 2),
                                   chart::formatCompact(my[k], 3));
            });
            (void)name;
        }
        chart.end();
    }
    // The legend under the chart, not over it: the points sit where a corner legend would.
    for (std::size_t c = 0; c < m_table.columns.size(); ++c) {
        if (c > 0) ImGui::SameLine(0, ImGui::GetFontSize());
        ImGui::TextColored(Theme::toVec4(columnColour(static_cast<int>(c))), "\u25c6 %s", columnLetter(c).c_str());
        helpTooltip(m_table.columns[c] + "\n" + m_table.names[c]);
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s",
                       m_roof.anyMeasured
                           ? "\u25c6 predicted   \u25a0 measured (latest run of each variant)"
                           : "\u25c6 predicted (the problem's intensity: equal for every tile of one problem). Runs add squares.");
    ImGui::PopTextWrapPos();
}

void CompareView::drawDiffs() {
    const Palette& pal = theme().palette();
    const auto& pins = model().compare().pins();
    const int n = static_cast<int>(pins.size());
    if (n < 2) return;
    ImGui::Spacing();
    // A and B pickers on one line above the tabs.
    auto picker = [&](const char* id, const char* caption, int& index, ImU32 colour) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextColored(Theme::toVec4(colour), "%s", caption);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 26);
        const std::string current = fmt::format("{}  {}", index + 1, pins[static_cast<std::size_t>(index)]->name);
        if (ImGui::BeginCombo(id, current.c_str())) {
            for (int i = 0; i < n; ++i) {
                const std::string label = fmt::format("{}  {} ({})", i + 1, pins[static_cast<std::size_t>(i)]->name,
                                                      pins[static_cast<std::size_t>(i)]->arch);
                if (ImGui::Selectable(label.c_str(), i == index)) index = i;
            }
            ImGui::EndCombo();
        }
    };
    // "from" and "to", not A and B: the letters name the table's columns.
    picker("##diffA", "from", m_pairA, pal.error);
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    picker("##diffB", "to", m_pairB, pal.ok);
    ImGui::SameLine();
    if (ImGui::Button("Swap")) std::swap(m_pairA, m_pairB);
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    ImGui::Checkbox("Mask names", &m_normalise);
    helpTooltip("PTX and SASS: show each variant's name as <variant> and NVRTC's per-file symbol prefix as "
                "_ZN<file>, so lines that differ only by the kernel's name do not count as changes.");

    const VariantSnapshot& a = *pins[static_cast<std::size_t>(m_pairA)];
    const VariantSnapshot& b = *pins[static_cast<std::size_t>(m_pairB)];
    // Masked copies, made once per pair (snapshots never change under their pointer).
    if (m_norm.a != &a || m_norm.b != &b || m_norm.on != m_normalise) {
        m_norm.a = &a;
        m_norm.b = &b;
        m_norm.on = m_normalise;
        auto mask = [&](const std::string& text, const VariantSnapshot& s) {
            return m_normalise ? diff::normaliseNames(text, s.name) : text;
        };
        m_norm.ptxA = mask(a.ptx, a);
        m_norm.ptxB = mask(b.ptx, b);
        m_norm.sassA = mask(a.sass, a);
        m_norm.sassB = mask(b.sass, b);
    }
    const bool haveSass = !a.sass.empty() && !b.sass.empty();
    const int requested = m_requestedTab;
    m_requestedTab = -1;
    auto flagsFor = [&](DiffTab t) { return requested == static_cast<int>(t) ? ImGuiTabItemFlags_SetSelected : 0; };
    if (!ImGui::BeginTabBar("##difftabs")) return;
    DiffViewOptions opt;
    opt.labelA = a.label();
    opt.labelB = b.label();
    if (ImGui::BeginTabItem("Source diff", nullptr, flagsFor(DiffTab::Source))) {
        opt.language = CodeLanguage::Cuda;
        m_sourceDiff.draw("##src", a.source, b.source, theme(), opt);
        ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("PTX diff", nullptr, flagsFor(DiffTab::Ptx))) {
        opt.language = CodeLanguage::Ptx;
        m_ptxDiff.draw("##ptx", m_norm.ptxA, m_norm.ptxB, theme(), opt);
        ImGui::EndTabItem();
    }
    // SASS only when both sides have it; otherwise say why in the tab's place.
    if (haveSass) {
        if (ImGui::BeginTabItem("SASS diff", nullptr, flagsFor(DiffTab::Sass))) {
            opt.language = CodeLanguage::Plain;
            m_sassDiff.draw("##sass", m_norm.sassA, m_norm.sassB, theme(), opt);
            ImGui::EndTabItem();
        }
    } else {
        const std::string note = !a.sassNote.empty() ? a.sassNote : !b.sassNote.empty() ? b.sassNote : "disassembling\u2026";
        ImGui::BeginDisabled();
        if (ImGui::BeginTabItem("SASS diff", nullptr, ImGuiTabItemFlags_NoReorder)) ImGui::EndTabItem();
        ImGui::EndDisabled();
        helpTooltip("No SASS to compare: " + note);
    }
    ImGui::EndTabBar();
}

bool CompareView::exportTable(const std::filesystem::path& file) {
    syncSelection();
    rebuild();
    m_exportFailed = true;
    if (m_table.columns.empty()) {
        m_exportMessage = "nothing to export: tick pins to compare";
        return false;
    }
    const std::string ext = file.extension().string();
    if (ext != ".csv" && ext != ".md") {
        m_exportMessage = "export writes FILE.csv or FILE.md, not " + file.string();
        return false;
    }
    if (!writeExportFile(file, ext == ".csv" ? metricTableCsv(m_table) : metricTableMarkdown(m_table), m_exportMessage)) return false;
    m_exportFailed = false;
    return true;
}

}  // namespace kx::app
