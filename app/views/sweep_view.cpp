// [SECTION] Index: placement, setup, progress, heatmap, scatter, table, actions.
#include "views/sweep_view.hpp"

#include "explorer_model.hpp"
#include "templates/compile_flags.hpp"
#include "theme.hpp"
#include "util/error.hpp"
#include "widgets/chart.hpp"
#include "widgets/region_png.hpp"

#include <fmt/format.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

namespace kx::app {
using namespace kx::engine;

namespace {

ImU32 mix(ImU32 a, ImU32 b, float t) {
    const ImVec4 x = ImGui::ColorConvertU32ToFloat4(a), y = ImGui::ColorConvertU32ToFloat4(b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(x.x + (y.x - x.x) * t, x.y + (y.y - x.y) * t, x.z + (y.z - x.z) * t, 1.0f));
}

std::string durationText(double seconds) {
    const long long s = static_cast<long long>(seconds + 0.5);
    return s < 60 ? fmt::format("{}s", s) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

// Short words for a cell too small for the reason.
const char* cellWord(PointStatus status) {
    switch (status) {
    case PointStatus::Pruned: return "pruned";
    case PointStatus::CompileFailed: return "failed";
    case PointStatus::RunFailed: return "run failed";
    case PointStatus::NotReached: return "stopped";
    case PointStatus::Pending: return "...";
    default: return "";
    }
}

}  // namespace

SweepView::SweepView(ViewContext context, SweepModel& sweeps)
    : View("Sweep", Slot::Floating, context), m_sweeps(sweeps), m_capture(std::make_shared<RegionPng>()) {
    setOpen(false);
}

void SweepView::requestPng(std::filesystem::path file) { m_capture->request(std::move(file)); }

bool SweepView::pngPending() const { return m_capture->pending(); }

void SweepView::placeWindow() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    centreNextWindow(ImVec2(std::floor(vp->WorkSize.x * 0.94f), std::floor(vp->WorkSize.y * 0.92f)));
}

ImU32 SweepView::rampColour(double t) const {
    // Dim to the accent to the "good" green: the best cells stand out without a legend.
    const Palette& p = theme().palette();
    const float u = static_cast<float>(std::clamp(t, 0.0, 1.0));
    return u < 0.5f ? mix(p.headerBg, p.accent, u * 2.0f) : mix(p.accent, p.ok, (u - 0.5f) * 2.0f);
}

void SweepView::drawContent() {
    if (m_sweeps.running()) m_sweeps.frameTimes().add(ImGui::GetIO().DeltaTime);
    m_capture->takeOutcome(m_message, m_messageIsError);
    drawSetup();
    drawProgress();
    ImGui::Separator();
    const float avail = ImGui::GetContentRegionAvail().y;
    const float chartsH = std::max(ImGui::GetFontSize() * 12, avail * 0.5f);
    const float w = ImGui::GetContentRegionAvail().x;
    drawHeatmap(std::floor(w * 0.58f), chartsH);
    ImGui::SameLine();
    drawScatter(ImGui::GetContentRegionAvail().x, chartsH);
    drawActions();
    drawTable(ImGui::GetContentRegionAvail().y);
}

// [SECTION] Setup: what varies

void SweepView::drawSetup() {
    const Template* t = model().currentTemplate();
    const Arch* arch = model().currentArch();
    if (!t || !arch) {
        ImGui::TextDisabled("Choose a template and an arch in the editor first.");
        return;
    }
    const Palette& pal = theme().palette();
    ImGui::PushFont(theme().fonts().bold);
    ImGui::Text("%s on %s", t->id().c_str(), arch->name.c_str());
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "tick the parameters to vary; the others keep the editor's values");

    const bool busy = m_sweeps.running();
    ImGui::BeginDisabled(busy);
    const auto& params = t->manifest().params;
    const int columns = 3;
    // Wide enough for the longest name beside its checkbox ("extra_vectorization").
    float nameW = ImGui::GetFontSize() * 7.5f;
    for (const ParamSpec& p : params) nameW = std::max(nameW, ImGui::CalcTextSize(p.name.c_str()).x);
    for (const CompileFlagKey& f : compileFlagKeys()) nameW = std::max(nameW, ImGui::CalcTextSize(f.key).x);
    nameW += ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x * 2;
    if (ImGui::BeginTable("##vary", columns * 2, ImGuiTableFlags_SizingStretchSame)) {
        for (int i = 0; i < columns; ++i) {
            ImGui::TableSetupColumn("##name", ImGuiTableColumnFlags_WidthFixed, nameW);
            ImGui::TableSetupColumn("##values", ImGuiTableColumnFlags_WidthStretch);
        }
        // The template's parameters, then the compiler flags (varied the same way).
        struct Row {
            std::string name, help, current;
        };
        std::vector<Row> rows;
        for (const ParamSpec& p : params) rows.push_back({p.name, p.label + ": " + p.help, model().paramValue(p.name)});
        for (const CompileFlagKey& f : compileFlagKeys())
            rows.push_back({f.key, std::string(f.label) + " (compiler flag): " + f.help, model().flags().value(f.key)});
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Row& row = rows[i];
            if (i % columns == 0) ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushID(row.name.c_str());
            std::string& text = m_sweeps.varyText()[row.name];
            bool varied = !text.empty();
            if (ImGui::Checkbox(row.name.c_str(), &varied)) text = varied ? m_sweeps.allValuesText(row.name) : "";
            helpTooltip(row.help);
            ImGui::TableNextColumn();
            ImGui::SetNextItemWidth(-1);
            if (varied) {
                ImGui::InputText("##values", &text);
                helpTooltip("Values to sweep: 64,128 or a range 2..4 of the allowed ones");
            } else {
                ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", row.current.c_str());
            }
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    drawSpaceOptions();
    ImGui::EndDisabled();
}

// Where the space starts (a preselected set or the editor's config) and how much of it to draw.
void SweepView::drawSpaceOptions() {
    const std::vector<std::string> sets = m_sweeps.preselectedNames();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Start from");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
    const std::string current = m_sweeps.preselected.empty() ? "the editor's config" : "preselected: " + m_sweeps.preselected;
    if (ImGui::BeginCombo("##preselected", current.c_str())) {
        if (ImGui::Selectable("the editor's config", m_sweeps.preselected.empty())) m_sweeps.preselected.clear();
        for (const std::string& name : sets) {
            if (ImGui::Selectable(("preselected: " + name).c_str(), name == m_sweeps.preselected)) m_sweeps.choosePreselected(name);
            helpTooltip(m_sweeps.preselectedHelp(name));
        }
        ImGui::EndCombo();
    }
    helpTooltip(sets.empty() ? "This template has no preselected set for this arch (templates/<id>/preselected.xml)."
                             : "A preselected set (the template's preselected.xml): each of its configs, over the editor's values, "
                               "crossed with the ticked parameters.");
    ImGui::SameLine();
    ImGui::TextUnformatted("  sample");
    ImGui::SameLine();
    int sample = static_cast<int>(std::min<std::uint64_t>(m_sweeps.sample, 1000000));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::InputInt("##sample", &sample, 10, 100)) m_sweeps.sample = static_cast<std::uint64_t>(std::clamp(sample, 0, 1000000));
    helpTooltip("Draw this many configs of the space at random (0: every config). The same seed draws the same configs.");
    ImGui::SameLine();
    ImGui::TextUnformatted("seed");
    ImGui::SameLine();
    int seed = static_cast<int>(std::min<std::uint64_t>(m_sweeps.seed, 1000000000));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt("##seed", &seed, 0, 0)) m_sweeps.seed = static_cast<std::uint64_t>(std::max(0, seed));
    ImGui::SameLine();
    const std::uint64_t space = m_sweeps.spaceSize();
    ImGui::TextColored(Theme::toVec4(theme().palette().textDim), "space: %llu config%s", static_cast<unsigned long long>(space),
                       space == 1 ? "" : "s");
}

void SweepView::drawProgress() {
    const Palette& pal = theme().palette();
    const std::uint64_t size = m_sweeps.spaceSize();
    const bool busy = m_sweeps.running();
    const bool gpu = model().runs().runnerState() == RunnerState::Ready;
    if (!gpu) m_sweeps.compileOnly = true;
    ImGui::BeginDisabled(busy || !gpu);
    ImGui::Checkbox("Compile only", &m_sweeps.compileOnly);
    ImGui::EndDisabled();
    if (!gpu) helpTooltip("No GPU: the sweep compiles every config; occupancy and the roofline position are predicted, not measured.");
    ImGui::SameLine();
    if (busy) {
        if (ImGui::Button("Stop")) m_sweeps.stop();
        helpTooltip("Stops between configs: what finished is kept; the rest is marked not reached.");
    } else {
        ImGui::BeginDisabled(size == 0);
        const std::uint64_t configs = m_sweeps.configsToSweep();
        if (ImGui::Button(fmt::format("Start ({} config{})", configs, configs == 1 ? "" : "s").c_str())) {
            try {
                m_sweeps.start();
                m_message.clear();
                m_messageIsError = false;
            } catch (const InputError& e) {
                m_message = e.what();
                m_messageIsError = true;
            }
        }
        ImGui::EndDisabled();
        if (size == 0 && !m_sweeps.setupError().empty()) helpTooltip(m_sweeps.setupError());
    }
    ImGui::SameLine();
    const SweepCounts c = m_sweeps.counts();
    const int work = c.compilesTotal + c.runsTotal, done = c.compilesDone + c.runsDone;
    const double elapsed = m_sweeps.elapsedSeconds();
    std::string text = fmt::format("{}/{}  measured {}  compiled {}  pruned {}  failed {}", c.done(), c.total, c.measured, c.compiled,
                                   c.pruned, c.compileFailed + c.runFailed);
    if (c.notReached > 0) text += fmt::format("  not reached {}", c.notReached);
    if (busy) text += done > 0 ? fmt::format("  ETA {}", durationText(elapsed * (work - done) / done)) : "  starting";
    else if (c.total > 0) text += fmt::format("  took {}", durationText(elapsed));
    ImGui::SetNextItemWidth(-1);
    ImGui::ProgressBar(c.total > 0 ? static_cast<float>(c.done()) / static_cast<float>(c.total) : 0.0f, ImVec2(-1, 0), text.c_str());
    if (!m_message.empty()) ImGui::TextColored(Theme::toVec4(m_messageIsError ? pal.error : pal.ok), "%s", m_message.c_str());
    else if (!m_sweeps.points().empty() && !m_sweeps.measuring())
        ImGui::TextColored(Theme::toVec4(pal.textDim), "Compiled only: occupancy and the roofline are predicted, never measured.");
}

// [SECTION] Heatmap of two parameters

// Axis and colour pickers: the parameters that differ between the configs, and the metrics
// that have values.
void SweepView::drawHeatmapPickers() {
    const std::vector<std::string>& params = m_sweeps.axisChoices();
    float comboW = ImGui::GetFontSize() * 7;
    for (const std::string& p : params) comboW = std::max(comboW, ImGui::CalcTextSize(p.c_str()).x + ImGui::GetFrameHeight() * 1.6f);
    auto axisCombo = [&](const char* label, std::string& value) {
        ImGui::SetNextItemWidth(comboW);
        if (ImGui::BeginCombo(label, value.empty() ? "-" : value.c_str())) {
            for (const std::string& p : params)
                if (ImGui::Selectable(p.c_str(), p == value)) value = p;
            ImGui::EndCombo();
        }
    };
    axisCombo("x", m_sweeps.xParam);
    ImGui::SameLine();
    axisCombo("y", m_sweeps.yParam);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 17);
    if (ImGui::BeginCombo("colour", metricLabel(m_sweeps.metric))) {
        for (SweepMetric m : kSweepMetrics) {
            if (metricMeasured(m) && !m_sweeps.measuring()) continue;
            if (ImGui::Selectable(metricLabel(m), m == m_sweeps.metric)) m_sweeps.metric = m;
        }
        ImGui::EndCombo();
    }
}

// One config's cell in [a, b), cells `pitch` apart: coloured by the metric, hatched when
// ruled out, framed when it spills or is the best, labelled when the label fits.
void SweepView::drawHeatCell(const HeatMap& h, const HeatCell& cell, ImVec2 a, ImVec2 b, ImVec2 pitch, int best) {
    const Palette& pal = theme().palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float cellW = pitch.x, cellH = pitch.y;
    const bool higher = metricHigherIsBetter(m_sweeps.metric);
    const SweepPoint& p = m_sweeps.points()[static_cast<std::size_t>(cell.point)];
    const bool ruledOut = p.status == PointStatus::Pruned || p.status == PointStatus::CompileFailed || p.status == PointStatus::RunFailed;
    std::string label;
    if (cell.value && !(ruledOut && metricMeasured(m_sweeps.metric))) {
        double t = h.hi > h.lo ? (*cell.value - h.lo) / (h.hi - h.lo) : 0.5;
        if (!higher) t = 1.0 - t;
        dl->AddRectFilled(a, b, rampColour(t));
        label = fmt::format("{:.3g}", *cell.value);
    } else {
        dl->AddRectFilled(a, b, pal.panelBg);
    }
    if (ruledOut) {
        // Hatched: the config is out, for the reason on hover.
        const ImU32 hatch = p.status == PointStatus::Pruned ? pal.textFaint : pal.error;
        dl->PushClipRect(a, b, true);
        for (float s = -cellH; s < cellW; s += 9.0f) dl->AddLine(ImVec2(a.x + s, b.y), ImVec2(a.x + s + cellH, a.y), hatch, 1.0f);
        dl->PopClipRect();
        if (label.empty()) label = cellWord(p.status);
    } else if (label.empty()) {
        label = cellWord(p.status);
    }
    if (cell.spills) dl->AddRect(a, b, pal.warn, 0, 0, 2.0f);
    if (cell.point == best) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), pal.text, 0, 0, 2.5f);
    const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
    if (ts.x < cellW - 4 && ts.y < cellH - 2)
        dl->AddText(ImVec2((a.x + b.x - ts.x) * 0.5f, (a.y + b.y - ts.y) * 0.5f), pal.text, label.c_str());
}

void SweepView::drawHeatmap(float width, float height) {
    ImGui::BeginChild("##heat", ImVec2(width, height), false);
    m_chartsMin = ImGui::GetWindowPos();
    const HeatMap& h = m_sweeps.heatmap();
    const auto& points = m_sweeps.points();
    drawHeatmapPickers();
    if (points.empty() || h.cells.empty()) {
        ImGui::TextDisabled("Tick two parameters and Start: each cell is one config.");
        ImGui::EndChild();
        return;
    }

    const Palette& pal = theme().palette();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float labelW = ImGui::CalcTextSize("00000").x + ImGui::GetFontSize();
    const float labelH = ImGui::GetFontSize() * 2.2f;
    const float nx = static_cast<float>(h.xValues.size()), ny = static_cast<float>(h.yValues.size());
    const float cellW = std::max(8.0f, (avail.x - labelW) / nx), cellH = std::max(8.0f, (avail.y - labelH) / ny);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int best = m_sweeps.bestPoint();
    int hoveredPoint = -1;
    for (std::size_t y = 0; y < h.yValues.size(); ++y) {
        // Larger y values on top, as on a chart.
        const float top = origin.y + (ny - 1 - static_cast<float>(y)) * cellH;
        dl->AddText(ImVec2(origin.x, top + cellH * 0.5f - ImGui::GetFontSize() * 0.5f), pal.textDim, h.yValues[y].c_str());
        for (std::size_t x = 0; x < h.xValues.size(); ++x) {
            const HeatCell& cell = h.at(x, y);
            const ImVec2 a(origin.x + labelW + static_cast<float>(x) * cellW, top), b(a.x + cellW - 2, a.y + cellH - 2);
            if (cell.point < 0) {
                dl->AddRect(a, b, pal.border);
                continue;
            }
            drawHeatCell(h, cell, a, b, ImVec2(cellW, cellH), best);
            if (ImGui::IsMouseHoveringRect(a, b) && ImGui::IsWindowHovered()) hoveredPoint = cell.point;
        }
    }
    for (std::size_t x = 0; x < h.xValues.size(); ++x) {
        const ImVec2 ts = ImGui::CalcTextSize(h.xValues[x].c_str());
        dl->AddText(ImVec2(origin.x + labelW + (static_cast<float>(x) + 0.5f) * cellW - ts.x * 0.5f, origin.y + ny * cellH + 2), pal.textDim,
                    h.xValues[x].c_str());
    }
    const std::string axes = fmt::format("x: {}   y: {}   colour: {}{}", h.xParam.empty() ? "-" : h.xParam, h.yParam.empty() ? "-" : h.yParam,
                                         metricLabel(m_sweeps.metric), h.hi > h.lo ? fmt::format(" ({:.3g} .. {:.3g})", h.lo, h.hi) : "");
    dl->AddText(ImVec2(origin.x + labelW, origin.y + ny * cellH + ImGui::GetFontSize() * 1.1f), pal.textDim, axes.c_str());
    ImGui::InvisibleButton("##cells", ImVec2(labelW + nx * cellW, ny * cellH + labelH));
    if (hoveredPoint >= 0) {
        ImGui::SetTooltip("%s\n(click: load into the editor)", describe(hoveredPoint).c_str());
        if (ImGui::IsItemClicked()) m_sweeps.loadIntoEditor(hoveredPoint);
    }
    ImGui::EndChild();
}

// [SECTION] Scatter: time (or registers) against occupancy (or registers)

void SweepView::drawScatter(float width, float height) {
    ImGui::BeginChild("##scatter", ImVec2(width, height), false);
    ImGui::Checkbox("x = registers", &m_scatterRegisters);
    helpTooltip("Plot against registers per thread instead of occupancy.");
    const auto& points = m_sweeps.points();
    const bool timed = m_sweeps.measuring();
    std::vector<double> xs, ys, xsOut, ysOut;
    std::vector<int> ids, idsOut;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const SweepPoint& p = points[i];
        if (!p.resources || !p.prediction) continue;
        const double x = m_scatterRegisters ? p.resources->registers : 100.0 * p.prediction->occupancy;
        double y = 0;
        if (timed) {
            if (!p.measured()) continue;
            y = p.medianMs();
        } else {
            y = m_scatterRegisters ? 100.0 * p.prediction->occupancy : p.resources->registers;
        }
        const bool out = p.status != PointStatus::Measured && p.status != PointStatus::Compiled;
        (out ? xsOut : xs).push_back(x);
        (out ? ysOut : ys).push_back(y);
        (out ? idsOut : ids).push_back(static_cast<int>(i));
    }
    auto range = [](const std::vector<double>& a, const std::vector<double>& b) {
        double lo = 0, hi = 1;
        bool any = false;
        for (const auto* v : {&a, &b})
            for (double x : *v) {
                lo = any ? std::min(lo, x) : x;
                hi = any ? std::max(hi, x) : x;
                any = true;
            }
        const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(1.0, std::abs(hi) * 0.1);
        return chart::Scale{chart::ScaleKind::Linear, std::max(0.0, lo - pad), hi + pad};
    };
    ChartAxis xAxis;
    xAxis.label = m_scatterRegisters ? "registers per thread" : "occupancy, % (predicted)";
    xAxis.scale = range(xs, xsOut);
    ChartAxis yAxis;
    yAxis.label = timed ? "time, ms (measured)" : m_scatterRegisters ? "occupancy, % (predicted)" : "registers per thread";
    yAxis.scale = range(ys, ysOut);
    Chart c(theme());
    if (c.begin("##sc", ImVec2(-1, -1), xAxis, yAxis)) {
        auto describer = [&](const std::vector<int>& which) { return [this, &which](std::size_t i) { return describe(which[i]); }; };
        // A sweep on a GPU plots only its measured configs, against their measured time.
        c.scatter(timed ? "measured" : "compiled", xs, ys, MarkerShape::Circle, c.colours().series[0], 4.0f, describer(ids));
        c.scatter("pruned or failed", xsOut, ysOut, MarkerShape::Cross, theme().palette().textFaint, 4.0f, describer(idsOut));
        c.end();
    }
    // The PNG holds both charts: read back after the scatter, the heatmap's child drawn before it.
    if (m_capture->wanted()) {
        const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
        m_capture->queue(ImGui::GetWindowDrawList(), m_chartsMin, ImVec2(pos.x + size.x, pos.y + size.y));
    }
    ImGui::EndChild();
}

// [SECTION] Table of every config

// The table's row order for its sort specs: recomputed when they change or the sweep grows.
void SweepView::sortRows(ImGuiTableSortSpecs* specs) {
    const auto& points = m_sweeps.points();
    if (specs && (specs->SpecsDirty || m_orderRevision != m_sweeps.revision() || m_order.size() != points.size())) {
        m_order.resize(points.size());
        for (std::size_t i = 0; i < points.size(); ++i) m_order[i] = static_cast<int>(i);
        if (specs->SpecsCount > 0) {
            const ImGuiTableColumnSortSpecs& s = specs->Specs[0];
            auto key = [&](const SweepPoint& p) -> double {
                const PointResources* r = p.resources ? &*p.resources : nullptr;
                switch (s.ColumnIndex) {
                case 0: return static_cast<double>(p.status);
                case 2: return r ? r->registers : -1;
                case 3: return r ? static_cast<double>(r->spillBytes()) : -1;
                case 4: return r ? static_cast<double>(r->staticSmemBytes + r->dynamicSmemBytes) : -1;
                case 5: return p.prediction ? p.prediction->occupancy : -1;
                case 6: return p.prediction && p.prediction->waves > 0 ? p.prediction->busyShare : -1;
                case 7: return p.prediction ? p.prediction->rooflineTflops : -1;
                case 8: return p.measured() ? p.medianMs() : 1e30;  // unmeasured last when ascending
                case 9: return p.measured() ? p.run->tflops : -1;
                default: return static_cast<double>(p.index);
                }
            };
            const bool ascending = s.SortDirection == ImGuiSortDirection_Ascending;
            std::stable_sort(m_order.begin(), m_order.end(), [&](int a, int b) {
                const SweepPoint &pa = points[static_cast<std::size_t>(a)], &pb = points[static_cast<std::size_t>(b)];
                if (s.ColumnIndex == 1 || s.ColumnIndex == 10) {
                    const std::string& ta = s.ColumnIndex == 1 ? pa.name : pa.reason;
                    const std::string& tb = s.ColumnIndex == 1 ? pb.name : pb.reason;
                    return ascending ? ta < tb : ta > tb;
                }
                return ascending ? key(pa) < key(pb) : key(pa) > key(pb);
            });
        }
        specs->SpecsDirty = false;
        m_orderRevision = m_sweeps.revision();
    }
}

void SweepView::drawTable(float height) {
    const auto& points = m_sweeps.points();
    constexpr int kColumns = 11;
    const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_Resizable |
                                  ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##points", kColumns, flags, ImVec2(0, std::max(height, ImGui::GetFontSize() * 6)))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    // Wide enough for the longest status from the start: a status that appears later (run_failed)
    // would otherwise be cut to the width the first frames fitted.
    ImGui::TableSetupColumn("status", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("compile_failed").x);
    ImGui::TableSetupColumn("config", ImGuiTableColumnFlags_WidthStretch);
    for (const char* column : {"regs", "spill B", "smem B", "occ %", "waves", "roof TFLOP/s*"}) ImGui::TableSetupColumn(column);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_DefaultSort);
    ImGui::TableSetupColumn("TFLOP/s");
    ImGui::TableSetupColumn("reason", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();

    sortRows(ImGui::TableGetSortSpecs());
    const Palette& pal = theme().palette();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(m_order.size()));
    while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const int i = m_order[static_cast<std::size_t>(row)];
            const SweepPoint& p = points[static_cast<std::size_t>(i)];
            const PointResources* r = p.resources ? &*p.resources : nullptr;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            const ImU32 statusColour = p.status == PointStatus::Measured || p.status == PointStatus::Compiled ? pal.ok
                                       : p.status == PointStatus::Pruned                                       ? pal.warn
                                       : p.status == PointStatus::Pending || p.status == PointStatus::NotReached ? pal.textDim
                                                                                                               : pal.error;
            ImGui::PushID(i);
            ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(statusColour));
            if (ImGui::Selectable(pointStatusName(p.status), false, ImGuiSelectableFlags_SpanAllColumns)) m_sweeps.loadIntoEditor(i);
            ImGui::PopStyleColor();
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n(click: load into the editor)", describe(i).c_str());
            ImGui::PopID();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(p.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%s", r ? std::to_string(r->registers).c_str() : "-");
            ImGui::TableNextColumn();
            if (r && r->spillBytes() > 0) ImGui::TextColored(Theme::toVec4(pal.error), "%lld", r->spillBytes());
            else ImGui::TextUnformatted(r ? "0" : "-");
            ImGui::TableNextColumn();
            ImGui::Text("%s", r ? std::to_string(r->staticSmemBytes + r->dynamicSmemBytes).c_str() : "-");
            ImGui::TableNextColumn();
            ImGui::Text("%s", p.prediction ? fmt::format("{:.0f}", 100 * p.prediction->occupancy).c_str() : "-");
            ImGui::TableNextColumn();
            // Waves (rounds) and how busy their block slots are: orange where a last wave leaves most SMs idle.
            if (p.prediction && p.prediction->waves > 0)
                ImGui::TextColored(Theme::toVec4(p.prediction->busyShare < 0.8 ? pal.warn : pal.text), "%lld  %.0f%%", p.prediction->waves,
                                   100 * p.prediction->busyShare);
            else
                ImGui::TextUnformatted("-");
            ImGui::TableNextColumn();
            ImGui::Text("%s", p.prediction && p.prediction->rooflineTflops > 0 ? fmt::format("{:.1f}", p.prediction->rooflineTflops).c_str() : "-");
            ImGui::TableNextColumn();
            ImGui::Text("%s", p.measured() ? fmt::format("{:.4f}", p.medianMs()).c_str() : "-");
            ImGui::TableNextColumn();
            ImGui::Text("%s", p.measured() ? fmt::format("{:.2f}", p.run->tflops).c_str() : "-");
            ImGui::TableNextColumn();
            ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", p.reason.c_str());
        }
    }
    ImGui::EndTable();
}

// [SECTION] Actions and tooltips

void SweepView::drawActions() {
    const bool any = !m_sweeps.points().empty();
    ImGui::BeginDisabled(!any);
    if (ImGui::Button("Load best")) m_sweeps.loadIntoEditor(m_sweeps.bestPoint());
    helpTooltip(std::string("Put the best config by ") + metricLabel(m_sweeps.metric) + " into the editor.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    ImGui::InputInt("##keepN", &m_keepCount);
    m_keepCount = std::clamp(m_keepCount, 1, 50);
    ImGui::SameLine();
    if (ImGui::Button("Keep best in session")) {
        m_message = fmt::format("kept {} variant(s) in the session", m_sweeps.keepBest(m_keepCount));
        m_messageIsError = false;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
    ImGui::InputText("##csv", &m_csvPath);
    ImGui::SameLine();
    if (ImGui::Button("Export CSV")) {
        try {
            m_sweeps.exportCsv(m_csvPath);
            m_message = "wrote " + m_csvPath;
            m_messageIsError = false;
        } catch (const InputError& e) {
            m_message = e.what();
            m_messageIsError = true;
        }
    }
    ImGui::SameLine();
    const std::filesystem::path png = std::filesystem::path(m_csvPath).replace_extension(".png");
    if (ImGui::Button("Export PNG")) requestPng(png);
    helpTooltip("Save the heatmap and the scatter as drawn now to " + png.string());
    ImGui::EndDisabled();
    const FrameTimes& f = m_sweeps.frameTimes();
    if (f.count() > 0) {
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(theme().palette().textDim), "frame time p99 %.1f ms over %zu frames", f.percentileMs(99), f.count());
    }
    ImGui::TextColored(Theme::toVec4(theme().palette().textFaint), "* roof: predicted from the template's intensity and the device's datasheet");
}

std::string SweepView::describe(int index) const {
    const SweepPoint& p = m_sweeps.points().at(static_cast<std::size_t>(index));
    std::string text = fmt::format("{}\n{}", p.name, pointStatusName(p.status));
    if (!p.reason.empty()) text += ": " + p.reason;
    if (p.resources)
        text += fmt::format("\n{} registers, {} B spilled, {} B shared memory, {} threads", p.resources->registers, p.resources->spillBytes(),
                            p.resources->staticSmemBytes + p.resources->dynamicSmemBytes, p.resources->threadsPerBlock);
    if (p.prediction) {
        text += fmt::format("\noccupancy {:.0f}% (predicted; limited by {})", 100 * p.prediction->occupancy,
                            p.prediction->limiter.empty() ? "-" : p.prediction->limiter);
        if (p.prediction->rooflineTflops > 0)
            text += fmt::format("\nroof {:.1f} TFLOP/s at {:.1f} FLOP/B on {} (predicted)", p.prediction->rooflineTflops, p.prediction->ai,
                                p.prediction->rooflineDevice);
    }
    if (p.measured()) {
        text += fmt::format("\n{:.4f} ms, {:.2f} TFLOP/s, {:.1f} GB/s (measured)", p.run->medianMs, p.run->tflops, p.run->gbps);
        if (p.pctOfBaseline() > 0) text += fmt::format(", {:.1f}% of {}", p.pctOfBaseline(), p.run->primaryBaseline()->name);
    }
    return text;
}

}  // namespace kx::app
