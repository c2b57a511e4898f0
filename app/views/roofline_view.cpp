#include "views/roofline_view.hpp"

#include "export_file.hpp"
#include "explorer_model.hpp"
#include "theme.hpp"
#include "util/error.hpp"
#include "widgets/chart.hpp"
#include "widgets/region_png.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <string_view>
#include <vector>

namespace kx::app {

namespace {

// Colours for ceilings, as indices into ChartColours::series (memory first, then compute units
// in ascending peak order).
constexpr int kMemoryColour = 2;
constexpr int kComputeColours[] = {0, 3, 4, 7, 6, 5};

// "51 TFLOP/s", "1.5 PFLOP/s": the SI prefix joins the unit, as datasheets write it.
std::string flopsText(double flopsPerSec) {
    std::string s = chart::formatCompact(flopsPerSec, 2);
    std::string prefix;
    if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back()))) {
        prefix = s.back();
        s.pop_back();
    }
    return s + " " + prefix + "FLOP/s";
}

std::string calibrationText(const engine::Calibration& c) {
    return fmt::format("{} ({})", c.device, c.measuredAt.substr(0, 10));
}

std::string fileSafe(std::string s) {
    for (char& c : s) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    }
    return s;
}

}  // namespace

RooflineView::RooflineView(ViewContext context)
    : View("Roofline", Slot::Centre, context), m_capture(std::make_shared<RegionPng>()) {}

RooflineView::~RooflineView() = default;

void RooflineView::requestPng(std::filesystem::path file) {
    m_capture->request(std::move(file));
}

const std::string& RooflineView::lastExportMessage() const {
    // A PNG outcome arrives during rendering, before the next drawContent() copies it over.
    return m_capture->done ? m_capture->message : m_exportMessage;
}

bool RooflineView::pngPending() const { return m_capture->pending(); }

bool RooflineView::exportCsv(const std::filesystem::path& file) {
    // Scripts may ask before the panel was ever drawn: bring the data up to date first.
    chooseCalibration();
    rebuild();
    m_exportFailed = true;
    if (!m_scene || !m_scene->model) {
        m_exportMessage = "no device selected";
        return false;
    }
    std::vector<engine::RooflinePoint> points;
    if (m_scene->predicted) points.push_back(*m_scene->predicted);
    points.insert(points.end(), m_scene->measured.begin(), m_scene->measured.end());
    if (!writeExportFile(file, engine::rooflineCsv(*m_scene->model, points), m_exportMessage)) return false;
    m_exportFailed = false;
    return true;
}

std::string RooflineView::defaultFileStem() const {
    const std::string device = m_scene && !m_scene->deviceId.empty() ? m_scene->deviceId : std::string("device");
    std::string stem = "roofline_" + device;
    if (!model().resultName().empty()) stem += "_" + model().resultName();
    return fileSafe(stem);
}

std::string RooflineView::drawnDeviceId() const {
    if (!m_deviceId.empty()) return m_deviceId;
    const engine::Arch* arch = model().currentArch();
    if (arch == nullptr) return {};
    const engine::DeviceSpec* d = model().deviceForArch(*arch);
    return d ? d->id : std::string();
}

void RooflineView::readCalibrations() {
    const std::optional<engine::Calibration> kept =
        m_calibration >= 0 && m_calibration < static_cast<int>(m_calibrations.size())
            ? std::optional(m_calibrations[m_calibration])
            : std::nullopt;
    m_calibrations = engine::listCalibrations();
    m_calibrationsRead = true;
    m_calibration = -1;
    if (!kept) return;
    for (int i = 0; i < static_cast<int>(m_calibrations.size()); ++i) {
        if (m_calibrations[i].device == kept->device && m_calibrations[i].measuredAt == kept->measuredAt) m_calibration = i;
    }
}

void RooflineView::chooseCalibration() {
    if (!m_calibrationsRead) readCalibrations();
    const std::string device = drawnDeviceId();
    if (m_calibrationPicked || m_calibrationFor == device) return;
    m_calibrationFor = device;
    m_calibration = -1;
    if (const engine::DeviceSpec* d = model().archDatabase().findDevice(device))
        m_calibration = engine::calibrationForDevice(m_calibrations, *d);
}

void RooflineView::rebuild() {
    const engine::Arch* arch = model().currentArch();
    // The picked device, else this machine's GPU where it has the arch's compute capability.
    const std::string deviceId = drawnDeviceId();
    const Key key{deviceId, arch ? arch->name : std::string(), model().generation(), model().measuredPoints().size(),
                  m_allRoofs, m_calibration};
    if (m_builtFor && *m_builtFor == key) return;
    m_builtFor = key;
    engine::RooflineSceneRequest req;
    req.arches = &model().archDatabase();
    req.arch = arch;
    req.tmpl = model().currentTemplate();
    req.config = model().config();
    req.sizes = model().sizes();
    req.deviceId = deviceId;
    if (m_calibration >= 0 && m_calibration < static_cast<int>(m_calibrations.size())) req.calibration = m_calibrations[m_calibration];
    req.measured = model().measuredPoints();
    req.allRoofs = m_allRoofs;
    if (model().variant() == nullptr && !model().prepareError().empty()) {
        // The reason is said once, in the Configuration panel; here only what is missing.
        req.noPredictionReason = "No predicted point for this template on " + (arch ? arch->name : std::string("this arch")) +
                                 " (see Configuration).";
    }
    m_higher.clear();
    try {
        m_scene = engine::buildRooflineScene(req);
        if (m_scene->model && req.tmpl != nullptr && arch != nullptr && model().variant() != nullptr)
            m_higher = engine::higherRoofs(model().library(), model().archDatabase(), *req.tmpl, req.config, *arch, *m_scene->model);
    } catch (const std::exception& e) {
        m_scene.reset();
        m_exportMessage = e.what();
        m_exportFailed = true;
    }
}

void RooflineView::drawContent() {
    chooseCalibration();
    rebuild();
    m_capture->takeOutcome(m_exportMessage, m_exportFailed);
    drawToolbar();
    const Palette& pal = theme().palette();
    if (!m_scene || !m_scene->model) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s",
                           m_scene && !m_scene->deviceNote.empty() ? m_scene->deviceNote.c_str()
                                                                   : "No device data: assets/devices holds none.");
        ImGui::PopTextWrapPos();
        m_labels.clear();
        return;
    }
    // Room for the footnote: up to two wrapped lines of prediction and one of runs or export.
    const float footLines = 3.0f + static_cast<float>(higherRoofRows());
    const float footH = ImGui::GetTextLineHeightWithSpacing() * footLines + ImGui::GetStyle().ItemSpacing.y * 2;
    drawChart(std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().y - footH));
    drawFootnote();
}

void RooflineView::drawToolbar() {
    const Palette& pal = theme().palette();
    const engine::ArchDatabase& db = model().archDatabase();
    const engine::DeviceSpec* current = m_scene ? db.findDevice(m_scene->deviceId) : nullptr;
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Device");
    ImGui::SameLine();
    // The combo takes what the checkbox and the two buttons leave.
    const ImGuiStyle& st = ImGui::GetStyle();
    const float rightW = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize("All roofs").x +
                         ImGui::CalcTextSize("PNG").x + ImGui::CalcTextSize("CSV").x + st.FramePadding.x * 4 +
                         st.ItemSpacing.x * 3;
    ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().x - rightW));
    const std::string shown = current ? current->name + (m_deviceId.empty() ? "" : " (picked)") : std::string("(none for this arch)");
    if (ImGui::BeginCombo("##device", shown.c_str(), ImGuiComboFlags_HeightLarge)) {
        if (ImGui::Selectable("Follow the arch", m_deviceId.empty())) m_deviceId.clear();
        for (const auto& d : db.devices()) {
            const bool selected = d.id == m_deviceId;
            if (ImGui::Selectable(fmt::format("{}##{}", d.name, d.id).c_str(), selected)) m_deviceId = d.id;
            ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(d.arch.c_str()).x);
            ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", d.arch.c_str());
        }
        ImGui::EndCombo();
    }
    if (current != nullptr) {
        helpTooltip(fmt::format("{}: {} GB/s DRAM, {} SMs at {} MHz boost, {} MB L2.\nPeaks are dense datasheet figures.\n{}\n{}",
                                current->name, current->memBandwidthGBs, current->smCount, current->boostClockMhz,
                                current->l2Bytes >> 20, current->source,
                                m_deviceId.empty() ? "Follows the arch: this machine's GPU where it has the arch's compute capability, else a device of the arch's family." : "Picked: stays until you pick Follow the arch."));
    }
    ImGui::SameLine();
    ImGui::Checkbox("All roofs", &m_allRoofs);
    helpTooltip("Also draw the compute roofs this kernel cannot use (dimmed): the roofs of other units show what a "
                "kernel on them could reach. By default only the roof of the units the kernel runs on is drawn.");
    ImGui::SameLine();
    if (ImGui::Button("PNG")) requestPng(std::filesystem::current_path() / (defaultFileStem() + ".png"));
    helpTooltip("Save the chart as a PNG in the current folder.");
    ImGui::SameLine();
    if (ImGui::Button("CSV")) exportCsv(std::filesystem::current_path() / (defaultFileStem() + ".csv"));
    helpTooltip("Save ceilings, ridge points and points as CSV in the current folder.");
    drawCalibrationCombo();
}

void RooflineView::drawCalibrationCombo() {
    const Palette& pal = theme().palette();
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Measured");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().x));
    const bool wasOpen = ImGui::IsPopupOpen("##calibration");
    const std::string current = m_calibration >= 0 && m_calibration < static_cast<int>(m_calibrations.size())
                                    ? calibrationText(m_calibrations[m_calibration])
                                    : std::string(m_calibrations.empty() ? "none (run kx calibrate on a GPU)" : "none");
    if (ImGui::BeginCombo("##calibration", current.c_str())) {
        if (!wasOpen) readCalibrations();  // just opened: pick up calibrations made meanwhile
        if (ImGui::Selectable("none", m_calibration < 0)) {
            m_calibration = -1;
            m_calibrationPicked = true;
        }
        for (int i = 0; i < static_cast<int>(m_calibrations.size()); ++i) {
            if (ImGui::Selectable(fmt::format("{}##cal{}", calibrationText(m_calibrations[i]), i).c_str(), i == m_calibration)) {
                m_calibration = i;
                m_calibrationPicked = true;
            }
        }
        ImGui::EndCombo();
    }
    helpTooltip("Ceilings measured by kx calibrate on a real GPU (a device-to-device copy and cuBLAS GEMMs), stored "
                "under the cache folder. They are drawn dashed and labelled (measured), beside the datasheet's, so "
                "the gap between the two stays visible. Follows the device above until you pick one.");
}

void RooflineView::drawChart(float height) {
    const engine::RooflineScene& sc = *m_scene;
    ChartAxis x;
    x.label = "arithmetic intensity (FLOP/byte of DRAM traffic)";
    x.scale = {chart::ScaleKind::Log10, sc.xMin, sc.xMax};
    ChartAxis y;
    y.label = "FLOP/s";
    y.scale = {chart::ScaleKind::Log10, sc.yMin, sc.yMax};
    Chart chart(theme());
    if (!chart.begin("##roofline", ImVec2(-1, height), x, y)) return;
    const ChartColours& cc = chart.colours();
    // The legend would need room the labels may want: markers are explained in tooltips and the
    // footnote instead.
    chart.setLegendCorner(LegendCorner::None);

    auto colourOf = [&](std::size_t i) {
        const engine::SceneCeiling& c = sc.ceilings[i];
        if (!c.usable) return (cc.tickText & ~IM_COL32_A_MASK) | (0x90u << IM_COL32_A_SHIFT);  // dimmed
        if (c.ceiling.kind == engine::CeilingKind::Memory) return cc.series[kMemoryColour];
        return c.emphasised || c.ceiling.source == engine::CeilingSource::Measured ? cc.highlight
                                                                                  : cc.series[kComputeColours[i % std::size(kComputeColours)]];
    };
    for (std::size_t i = 0; i < sc.ceilings.size(); ++i) {
        const engine::SceneCeiling& c = sc.ceilings[i];
        const bool measured = c.ceiling.source == engine::CeilingSource::Measured;
        chart.segment(c.x0, c.y0, c.x1, c.y1, colourOf(i), c.emphasised ? 3.0f : c.usable ? 2.0f : 1.0f, measured);
    }
    const bool placed = sc.predicted && sc.predicted->flopsPerSec > 0;
    if (placed) chart.verticalLine(sc.predicted->ai, cc.highlight, nullptr, true);

    // Labels where the engine's layout puts them: boxes in plot pixels that overlap neither each
    // other nor a marker. The plot rectangle comes from the chart's own mapping.
    const ImVec2 topLeft = chart.toScreen(sc.xMin, sc.yMax);
    const ImVec2 bottomRight = chart.toScreen(sc.xMax, sc.yMin);
    engine::LabelMetrics metrics;
    metrics.plotWidth = bottomRight.x - topLeft.x;
    metrics.plotHeight = bottomRight.y - topLeft.y;
    metrics.charWidth = ImGui::CalcTextSize("0").x;
    metrics.lineHeight = ImGui::GetTextLineHeight();
    metrics.padding = 2;
    m_labels = engine::layoutRooflineLabels(sc, metrics);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const engine::SceneLabel& l : m_labels) {
        const ImVec2 a(topLeft.x + static_cast<float>(l.rect.x), topLeft.y + static_cast<float>(l.rect.y));
        const ImVec2 b(a.x + static_cast<float>(l.rect.w), a.y + static_cast<float>(l.rect.h));
        dl->AddRectFilled(a, b, cc.legendBg, 2.0f);
        dl->AddText(ImVec2(a.x + metrics.padding, a.y + metrics.padding), colourOf(l.ceiling), l.text.c_str());
    }

    std::vector<double> ridgeX, ridgeY;
    for (const auto& r : sc.ridges) {
        ridgeX.push_back(r.ai);
        ridgeY.push_back(r.flops);
    }
    chart.scatter("ridge point", ridgeX, ridgeY, MarkerShape::Circle, cc.tickText, 3.5f, [&](std::size_t i) {
        const auto& r = sc.ridges[i];
        return fmt::format("{} ridge{}\nAI {} FLOP/byte at {}\nBelow this intensity a kernel is bound by DRAM "
                           "bandwidth; above it by the {} peak.",
                           engine::unitLabel(r.computeId), r.source == engine::CeilingSource::Measured ? " (measured)" : "",
                           chart::formatCompact(r.ai, 2), flopsText(r.flops), engine::unitLabel(r.computeId));
    });
    // Measured runs: squares at the intensity of their DRAM bytes (counted, or the template's),
    // triangles at that of their counted L2 bytes (the hierarchical roofline's second level).
    for (const bool l2 : {false, true}) {
        std::vector<double> mx, my;
        std::vector<const engine::RooflinePoint*> shown;
        for (const auto& p : sc.measured) {
            if ((p.bytesFrom == "l2") != l2) continue;
            mx.push_back(p.ai);
            my.push_back(p.flopsPerSec);
            shown.push_back(&p);
        }
        if (shown.empty()) continue;
        chart.scatter(l2 ? "measured (L2)" : "measured", mx, my, l2 ? MarkerShape::Triangle : MarkerShape::Square,
                      l2 ? cc.series[2] : cc.series[1], 4.5f, [&](std::size_t i) {
                          const auto& p = *shown[i];
                          const char* basis = p.bytesFrom == "dram" ? "FLOPs / DRAM bytes read and written, counted by the hardware"
                                              : p.bytesFrom == "l2" ? "FLOPs / bytes L2 served, counted by the hardware"
                                                                    : "FLOPs / the template's bytes (run with hardware counters to measure them)";
                          return fmt::format("{}\nAI {} FLOP/byte: {}\nachieved {}", p.label, chart::formatCompact(p.ai, 2), basis,
                                             flopsText(p.flopsPerSec));
                      });
    }
    if (placed) {
        const double px[] = {sc.predicted->ai};
        const double py[] = {sc.predicted->flopsPerSec};
        chart.scatter("predicted", px, py, MarkerShape::Diamond, cc.highlight, 6.0f, [&](std::size_t) {
            return fmt::format("{} (predicted)\nAI {} FLOP/byte: FLOPs / {} of DRAM traffic ({})\n"
                               "at most {} on the {} roof ({} bound)",
                               sc.predicted->label, chart::formatCompact(sc.predicted->ai, 2),
                               chart::formatCompact(sc.trafficBytes, 3) + "B",
                               sc.trafficModelled ? "the manifest's tile traffic model" : "compulsory bytes",
                               flopsText(sc.predicted->flopsPerSec), engine::unitLabel(sc.predictedUnit),
                               sc.predictedMemoryBound ? "memory" : "compute");
        });
    }
    chart.end();

    if (m_capture->wanted()) m_capture->queue(ImGui::GetWindowDrawList(), chart.widgetMin(), chart.widgetMax());
}

bool RooflineView::openHigherRoof(std::size_t index) {
    if (index >= m_higher.size()) return false;
    const engine::HigherRoof h = m_higher[index];  // the selection below rebuilds the list
    if (!model().selectTemplate(h.templateId)) return false;
    model().selectArch(h.arch);
    for (const auto& [key, value] : h.values) model().setParam(key, value);
    return true;
}

std::vector<std::string> RooflineView::higherRoofLabels() const {
    std::vector<std::string> labels;
    if (!m_scene || !m_scene->model) return labels;
    const engine::RooflineCeiling* own = m_scene->model->compute(m_scene->predictedUnit);
    for (const engine::HigherRoof& h : m_higher)
        labels.push_back(h.templateId + (own && own->value > 0 ? fmt::format(" {:.1f}x", h.peakFlops / own->value) : std::string()));
    return labels;
}

int RooflineView::higherRoofRows() const {
    const std::vector<std::string> labels = higherRoofLabels();
    if (labels.empty()) return 0;
    // As drawHigherRoofs lays them out: after the heading, on the same line while they fit.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float avail = ImGui::GetContentRegionAvail().x;
    float x = ImGui::CalcTextSize("higher roofs").x;
    int rows = 1;
    for (const std::string& label : labels) {
        const float width = ImGui::CalcTextSize(label.c_str()).x + style.FramePadding.x * 2;
        if (x + style.ItemSpacing.x + width <= avail) {
            x += style.ItemSpacing.x + width;
        } else {
            ++rows;
            x = width;
        }
    }
    return rows;
}

void RooflineView::drawHigherRoofs() {
    if (m_higher.empty() || !m_scene || !m_scene->model) return;
    const Palette& pal = theme().palette();
    const engine::RooflineCeiling* own = m_scene->model->compute(m_scene->predictedUnit);
    const std::vector<std::string> labels = higherRoofLabels();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "higher roofs");
    const ImGuiStyle& style = ImGui::GetStyle();
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (std::size_t i = 0; i < m_higher.size(); ++i) {
        const engine::HigherRoof& h = m_higher[i];
        const std::string& label = labels[i];
        // On the same line while it fits, else on the next: a narrow panel wraps the buttons.
        const float width = ImGui::CalcTextSize(label.c_str()).x + style.FramePadding.x * 2;
        if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + width <= right) ImGui::SameLine();
        if (ImGui::SmallButton(fmt::format("{}##higher{}", label, i).c_str())) openHigherRoof(i);
        if (ImGui::IsItemHovered()) {
            std::string values;
            for (const auto& [k, v] : h.values) values += (values.empty() ? "" : ", ") + k + "=" + v;
            ImGui::SetTooltip("%s\nOn %s its roof is the %s, %s (this kernel's: %s).\nOpens it for %s%s.", h.title.c_str(),
                              m_scene->deviceName.c_str(), engine::unitLabel(h.unit).c_str(), flopsText(h.peakFlops).c_str(),
                              own ? flopsText(own->value).c_str() : "-", h.arch.c_str(),
                              values.empty() ? "" : (" with " + values).c_str());
        }
    }
}

void RooflineView::drawFootnote() {
    const Palette& pal = theme().palette();
    const engine::RooflineScene& sc = *m_scene;
    ImGui::PushTextWrapPos(0.0f);
    if (sc.predicted && sc.predicted->flopsPerSec > 0) {
        ImGui::TextColored(Theme::toVec4(pal.warn), "predicted");
        ImGui::SameLine();
        const std::string traffic = sc.trafficModelled
                                        ? fmt::format("tile traffic {}B vs {}B compulsory", chart::formatCompact(sc.trafficBytes, 3),
                                                      chart::formatCompact(sc.compulsoryBytes, 3))
                                        : std::string("compulsory bytes");
        ImGui::TextColored(Theme::toVec4(pal.textDim), "AI %s FLOP/B (%s): %s bound, %s ridge %s, at most %s",
                           chart::formatCompact(sc.predicted->ai, 1).c_str(), traffic.c_str(),
                           sc.predictedMemoryBound ? "memory" : "compute", engine::unitLabel(sc.predictedUnit).c_str(),
                           chart::formatCompact(sc.predictedRidge, 1).c_str(), flopsText(sc.predicted->flopsPerSec).c_str());
    } else {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s",
                           sc.predictedNote.empty() ? "No predicted point." : sc.predictedNote.c_str());
    }
    drawHigherRoofs();
    const std::string runs = sc.measured.empty()
                                 ? std::string("No measured runs yet: runs of this variant appear as squares (and, with counted traffic, triangles at L2).")
                                 : fmt::format("{} measured run(s)", sc.measured.size());
    const bool showExport = !m_exportMessage.empty();
    const std::string line = showExport ? m_exportMessage : !sc.deviceNote.empty() ? sc.deviceNote : runs;
    ImGui::TextColored(Theme::toVec4(showExport && m_exportFailed ? pal.error : pal.textFaint), "%s", line.c_str());
    ImGui::PopTextWrapPos();
}

}  // namespace kx::app
