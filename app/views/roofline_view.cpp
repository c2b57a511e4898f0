#include "views/roofline_view.hpp"

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

// The unit a template's predicted point is placed on. Every template shipped so far (gemm,
// reduce) is SIMT: its inner loop is FP32 FMA on the CUDA cores, f16/bf16 inputs included (they
// are converted to float before the multiply-add), so no tensor-core roof applies and the FP32
// FMA peak is the ceiling it can reach. A tensor-core template will have to name its unit in its
// manifest; until one exists, this is the single place that decides.
constexpr const char* kSimtUnit = "fp32";

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

// The words of a product name that name the model ("H100", "MI300X", "4090"): with a digit, at
// least three characters, and not a memory size or a form factor ("80GB", "SXM5", "HBM3").
std::vector<std::string> modelTokens(const std::string& name) {
    std::vector<std::string> out;
    std::string word;
    auto flush = [&] {
        std::string w;
        for (char c : word) w += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        word.clear();
        const bool digit = std::any_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        const auto startsWith = [&](const char* p) { return w.rfind(p, 0) == 0; };
        const auto endsWith = [&](const char* p) {
            const std::string_view e(p);
            return w.size() >= e.size() && w.compare(w.size() - e.size(), e.size(), e) == 0;
        };
        if (!digit || w.size() < 3 || endsWith("GB") || endsWith("MB") || startsWith("SXM") || startsWith("HBM") ||
            startsWith("GDDR") || startsWith("PCIE"))
            return;
        out.push_back(w);
    };
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c))) word += c;
        else flush();
    }
    flush();
    return out;
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
    chooseDevice();
    rebuild();
    m_exportFailed = true;
    if (!m_model) {
        m_exportMessage = "no device selected";
        return false;
    }
    std::vector<engine::RooflinePoint> points;
    if (m_predicted) points.push_back(*m_predicted);
    for (const auto& p : model().measuredPoints()) points.push_back(p);
    std::error_code ec;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
    std::ofstream out(file);
    out << engine::rooflineCsv(*m_model, points);
    if (!out) {
        m_exportMessage = "cannot write " + file.string();
        return false;
    }
    m_exportFailed = false;
    m_exportMessage = "wrote " + file.string();
    return true;
}

std::string RooflineView::defaultFileStem() const {
    std::string stem = "roofline_" + (m_deviceId.empty() ? std::string("device") : m_deviceId);
    if (!model().resultName().empty()) stem += "_" + model().resultName();
    return fileSafe(stem);
}

void RooflineView::chooseDevice() {
    const engine::ArchDatabase& db = model().archDatabase();
    const engine::Arch* arch = model().currentArch();
    const std::string archName = arch ? arch->name : std::string();
    if (m_userPicked && db.findDevice(m_deviceId) != nullptr) return;
    if (!m_deviceId.empty() && archName == m_archFollowed) return;
    m_archFollowed = archName;
    // The first device of the same compute capability (sm_90a finds the sm_90 parts), or of the
    // same AMD arch; else the H100 SXM our users mostly have.
    auto matches = [&](const engine::DeviceSpec& d) {
        const engine::Arch* da = db.findArch(d.arch);
        if (arch == nullptr || da == nullptr || da->vendor != arch->vendor) return false;
        if (arch->vendor == engine::Vendor::Nvidia)
            return da->nv.computeMajor == arch->nv.computeMajor && da->nv.computeMinor == arch->nv.computeMinor;
        return da->name == arch->name;
    };
    // The H100 SXM first when it matches: it is what most of our users run on.
    if (const engine::DeviceSpec* sxm = db.findDevice("h100_sxm"); sxm != nullptr && matches(*sxm)) {
        m_deviceId = sxm->id;
        return;
    }
    for (const auto& d : db.devices()) {
        if (matches(d)) {
            m_deviceId = d.id;
            return;
        }
    }
    if (db.findDevice("h100_sxm") != nullptr) {
        m_deviceId = "h100_sxm";
    } else if (!db.devices().empty()) {
        m_deviceId = db.devices().front().id;
    }
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
    if (m_calibrationPicked || m_calibrationFor == m_deviceId) return;
    m_calibrationFor = m_deviceId;
    m_calibration = -1;
    const engine::DeviceSpec* device = model().archDatabase().findDevice(m_deviceId);
    if (device == nullptr) return;
    const std::vector<std::string> wanted = modelTokens(device->name);
    for (int i = 0; i < static_cast<int>(m_calibrations.size()); ++i) {
        const std::vector<std::string> have = modelTokens(m_calibrations[i].device);
        const bool match = std::any_of(wanted.begin(), wanted.end(), [&](const std::string& t) {
            return std::find(have.begin(), have.end(), t) != have.end();
        });
        // Sorted by device then date: the last match is the newest of its device.
        if (match) m_calibration = i;
    }
}

void RooflineView::rebuild() {
    const engine::Calibration* calibration =
        m_calibration >= 0 && m_calibration < static_cast<int>(m_calibrations.size()) ? &m_calibrations[m_calibration] : nullptr;
    const Key key{m_deviceId, model().generation(), model().measuredPoints().size(), m_showTensor,
                  calibration ? calibrationText(*calibration) : std::string()};
    if (m_builtFor && *m_builtFor == key) return;
    m_builtFor = key;
    m_model.reset();
    m_lines.clear();
    m_ridges.clear();
    m_ridgeX.clear();
    m_ridgeY.clear();
    m_predicted.reset();
    m_predictedUnit.clear();
    m_predictedNote.clear();
    m_measuredX.clear();
    m_measuredY.clear();
    const engine::DeviceSpec* device = model().archDatabase().findDevice(m_deviceId);
    if (device == nullptr) return;
    // Measured ceilings (kx calibrate): separate, dashed "(measured)" lines next to the datasheet's.
    std::optional<engine::RooflineCalibration> measured;
    if (calibration != nullptr) measured = engine::rooflineCalibration(*calibration);
    m_model.emplace(*device, measured);

    auto shown = [&](const engine::RooflineCeiling& c) {
        return m_showTensor || c.id.find("_tensor") == std::string::npos || c.id == kSimtUnit || c.id == m_predictedUnit;
    };

    // The predicted point: intensity from the template's formulas at the default sizes.
    if (model().variant() == nullptr && !model().prepareError().empty()) {
        m_predictedNote = "No predicted point: " + model().prepareError();
    } else if (const engine::Template* t = model().currentTemplate(); t != nullptr && model().currentArch() != nullptr) {
        try {
            const engine::SizeMap sizes = model().sizes().empty() ? t->defaultSizes() : model().sizes();
            const double flops = t->flops(model().config(), *model().currentArch(), sizes);
            const double bytes = t->minBytes(model().config(), *model().currentArch(), sizes);
            std::string label = t->configName(model().config());
            if (flops <= 0) {
                m_predictedNote = "The template gives no FLOP formula, so it has no intensity to plot.";
            } else {
                engine::RooflinePoint p = engine::predictedPoint(std::move(label), flops, bytes);
                // The roof of the units the kernel computes on (CUDA cores, tensor cores), from its manifest.
                const std::string unit = t->rooflineUnit(model().config(), *model().currentArch());
                if (m_model->compute(unit) != nullptr && m_model->memory("dram") != nullptr) {
                    p = engine::placeOnRoof(*m_model, p, unit);
                    m_predictedUnit = unit;
                } else {
                    m_predictedNote = fmt::format("{} lists no {} peak or bandwidth to place the point on.",
                                                  device->name, engine::unitLabel(unit));
                }
                m_predicted = p;
            }
        } catch (const std::exception& e) {
            m_predictedNote = std::string("No predicted point: ") + e.what();
        }
    }
    for (const auto& p : model().measuredPoints()) {
        m_measuredX.push_back(p.ai);
        m_measuredY.push_back(p.flopsPerSec);
    }

    // Ranges: whole decades around the ridges and points, so every ceiling's knee is in view.
    double xLo = 0.1;
    double xHi = 100;
    double yHi = 1e12;
    for (const auto& r : m_model->ridgePoints()) {
        const engine::RooflineCeiling* c = m_model->compute(r.computeId, r.source);
        if (c == nullptr || !shown(*c)) continue;
        m_ridges.push_back(r);
        m_ridgeX.push_back(r.ai);
        m_ridgeY.push_back(r.flops);
        xHi = std::max(xHi, r.ai * 4);
        yHi = std::max(yHi, r.flops * 1.2);
    }
    auto include = [&](double ai, double f) {
        if (ai > 0) {
            xLo = std::min(xLo, ai / 3);
            xHi = std::max(xHi, ai * 3);
        }
        if (f > 0) yHi = std::max(yHi, f * 1.2);
    };
    if (m_predicted) include(m_predicted->ai, m_predicted->flopsPerSec);
    for (const auto& p : model().measuredPoints()) include(p.ai, p.flopsPerSec);
    m_xScale = chart::decadeScale(xLo, xHi);
    double bw = 0;
    for (const auto& m : m_model->memoryCeilings()) bw = std::max(bw, m.value);
    double yLo = bw > 0 ? bw * m_xScale.min : yHi / 1e4;
    for (const auto& p : model().measuredPoints()) {
        if (p.flopsPerSec > 0) yLo = std::min(yLo, p.flopsPerSec / 2);
    }
    m_yScale = chart::decadeScale(yLo, yHi);

    // Ceiling lines. Compute ceilings with the same value and source share one line and label.
    int colourIndex = 0;
    double topRidge = 0;
    double topPeak = 0;
    for (std::size_t i = 0; i < m_model->computeCeilings().size(); ++i) {
        const engine::RooflineCeiling& c = m_model->computeCeilings()[i];
        if (!shown(c)) continue;
        const engine::RooflineCeiling* dram = m_model->memory("dram", c.source);
        if (dram == nullptr) dram = m_model->memory("dram");
        const double ridge = dram ? c.value / dram->value : m_xScale.min;
        const bool measured = c.source == engine::CeilingSource::Measured;
        auto same = std::find_if(m_lines.begin(), m_lines.end(), [&](const CeilingLine& l) {
            return l.kind == engine::CeilingKind::Compute && l.measured == measured && std::fabs(l.y0 - c.value) < 1e-6 * c.value;
        });
        if (same != m_lines.end()) {
            // "FP16 tensor" + "BF16 tensor" reads "FP16 / BF16 tensor".
            const auto cut = same->label.rfind("  ");
            std::string head = same->label.substr(0, cut);
            std::string add = c.label;
            const std::string tail = " tensor";
            if (head.ends_with(tail) && add.ends_with(tail)) {
                head.resize(head.size() - tail.size());
                add = add.substr(0, add.size() - tail.size()) + tail;
            }
            same->label = head + " / " + add + same->label.substr(cut);
            continue;
        }
        CeilingLine l;
        l.kind = engine::CeilingKind::Compute;
        l.measured = measured;
        l.label = c.label + "  " + flopsText(c.value);
        l.x0 = std::max(ridge, m_xScale.min);
        l.y0 = l.y1 = c.value;
        l.x1 = m_xScale.max;
        l.colour = kComputeColours[colourIndex++ % std::size(kComputeColours)];
        m_lines.push_back(l);
        if (c.value > topPeak) {
            topPeak = c.value;
            topRidge = ridge;
        }
    }
    for (const auto& m : m_model->memoryCeilings()) {
        CeilingLine l;
        l.kind = engine::CeilingKind::Memory;
        l.measured = m.source == engine::CeilingSource::Measured;
        l.label = fmt::format("{}  {:.0f} GB/s", m.label, m.value / 1e9);
        // From the left edge up to the highest roof shown: above it the diagonal means nothing.
        l.x0 = m_xScale.min;
        l.y0 = m.value * l.x0;
        l.x1 = topPeak > 0 ? std::max(topPeak / m.value, l.x0) : m_xScale.max;
        l.y1 = m.value * l.x1;
        l.colour = kMemoryColour;
        m_lines.push_back(l);
    }
    (void)topRidge;
}

void RooflineView::drawContent() {
    chooseDevice();
    chooseCalibration();
    rebuild();
    m_capture->takeOutcome(m_exportMessage, m_exportFailed);
    drawToolbar();
    const Palette& pal = theme().palette();
    if (!m_model) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "No device data: assets/devices holds none.");
        return;
    }
    // Room for the footnote: up to two wrapped lines of prediction and one of runs or export.
    const float footH = ImGui::GetTextLineHeightWithSpacing() * 3.0f + ImGui::GetStyle().ItemSpacing.y * 2;
    drawChart(std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().y - footH));
    drawFootnote();
}

void RooflineView::drawToolbar() {
    const Palette& pal = theme().palette();
    const engine::ArchDatabase& db = model().archDatabase();
    const engine::DeviceSpec* current = db.findDevice(m_deviceId);
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Device");
    ImGui::SameLine();
    // The combo takes what the checkbox and the two buttons leave.
    const ImGuiStyle& st = ImGui::GetStyle();
    const float rightW = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize("Tensor").x +
                         ImGui::CalcTextSize("PNG").x + ImGui::CalcTextSize("CSV").x + st.FramePadding.x * 4 +
                         st.ItemSpacing.x * 3;
    ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().x - rightW));
    if (ImGui::BeginCombo("##device", current ? current->name.c_str() : "(none)", ImGuiComboFlags_HeightLarge)) {
        for (const auto& d : db.devices()) {
            const bool selected = d.id == m_deviceId;
            if (ImGui::Selectable(fmt::format("{}##{}", d.name, d.id).c_str(), selected)) {
                m_deviceId = d.id;
                m_userPicked = true;
            }
            ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(d.arch.c_str()).x);
            ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", d.arch.c_str());
        }
        ImGui::EndCombo();
    }
    if (current != nullptr) {
        helpTooltip(fmt::format("{}: {} GB/s DRAM, {} SMs at {} MHz boost.\nPeaks are dense datasheet figures.\n{}",
                                current->name, current->memBandwidthGBs, current->smCount, current->boostClockMhz,
                                current->source));
    }
    ImGui::SameLine();
    ImGui::Checkbox("Tensor", &m_showTensor);
    helpTooltip("Show the tensor-core ceilings. This template's kernel is SIMT (FP32 FMA on CUDA cores), so only "
                "the FP32 roof applies to it; the tensor roofs show what a tensor-core kernel could reach.");
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
    ChartAxis x;
    x.label = "arithmetic intensity (FLOP/byte)";
    x.scale = m_xScale;
    ChartAxis y;
    y.label = "FLOP/s";
    y.scale = m_yScale;
    Chart chart(theme());
    if (!chart.begin("##roofline", ImVec2(-1, height), x, y)) return;
    const ChartColours& cc = chart.colours();
    // Bottom right is empty on every roofline (high intensity, low throughput is unreachable).
    chart.setLegendCorner(LegendCorner::BottomRight);

    // Memory diagonals, then the flat compute roofs with their labels at the right end.
    for (const auto& l : m_lines)
        chart.segment(l.x0, l.y0, l.x1, l.y1, cc.series[l.colour], l.measured ? 1.5f : 2.0f, l.measured);
    if (m_predicted && m_predicted->flopsPerSec > 0) chart.verticalLine(m_predicted->ai, cc.highlight, nullptr, true);
    // Labels after every line, so no line crosses a label's backdrop; markers after labels.
    for (const auto& l : m_lines) {
        const ImU32 colour = cc.series[l.colour];
        // Measured ceilings sit just under their datasheet twins: their labels go below the line,
        // the datasheet's above, so the two never print over each other.
        if (l.kind == engine::CeilingKind::Compute) {
            if (l.measured) chart.text(l.x1, l.y1, l.label, colour, ImVec2(1, 0), ImVec2(-4, 2), true);
            else chart.text(l.x1, l.y1, l.label, colour, ImVec2(1, 1), ImVec2(-4, -2), true);
        } else {
            // Along the diagonal, a decade in from the left edge, above the line (below when measured).
            const double lx = m_xScale.min * 1.5;
            if (l.measured) chart.text(lx * 3, l.y0 * (lx * 3 / l.x0), l.label, colour, ImVec2(0, 0), ImVec2(6, 6), true);
            else chart.text(lx, l.y0 * (lx / l.x0), l.label, colour, ImVec2(0, 1), ImVec2(6, -6), true);
        }
    }
    chart.scatter("ridge point", m_ridgeX, m_ridgeY, MarkerShape::Circle, cc.tickText, 3.5f, [&](std::size_t i) {
        const auto& r = m_ridges[i];
        return fmt::format("{} ridge{}\nAI {} FLOP/byte at {}\nBelow this intensity a kernel is bound by DRAM "
                           "bandwidth; above it by the {} peak.",
                           engine::unitLabel(r.computeId), r.source == engine::CeilingSource::Measured ? " (measured)" : "",
                           chart::formatCompact(r.ai, 2), flopsText(r.flops), engine::unitLabel(r.computeId));
    });
    if (!m_measuredX.empty()) {
        chart.scatter("measured", m_measuredX, m_measuredY, MarkerShape::Square, cc.series[1], 4.5f, [&](std::size_t i) {
            const auto& p = model().measuredPoints()[i];
            return fmt::format("{} (measured)\nAI {} FLOP/byte\nachieved {}", p.label, chart::formatCompact(p.ai, 2),
                               flopsText(p.flopsPerSec));
        });
    }
    if (m_predicted && m_predicted->flopsPerSec > 0) {
        const double px[] = {m_predicted->ai};
        const double py[] = {m_predicted->flopsPerSec};
        chart.scatter("predicted", px, py, MarkerShape::Diamond, cc.highlight, 6.0f, [&](std::size_t) {
            const engine::RooflineCeiling* c = m_model->compute(m_predictedUnit);
            const bool memoryBound = c && m_predicted->flopsPerSec < c->value * (1 - 1e-9);
            return fmt::format("{} (predicted)\nAI {} FLOP/byte: FLOP formula / least bytes at the default sizes\n"
                               "at most {} on the {} roof ({} bound)\nThe kernel is SIMT (FP32 FMA), so tensor roofs "
                               "do not apply.",
                               m_predicted->label, chart::formatCompact(m_predicted->ai, 2),
                               flopsText(m_predicted->flopsPerSec), engine::unitLabel(m_predictedUnit),
                               memoryBound ? "memory" : "compute");
        });
    }
    chart.end();

    if (m_capture->wanted()) m_capture->queue(ImGui::GetWindowDrawList(), chart.widgetMin(), chart.widgetMax());
}

void RooflineView::drawFootnote() {
    const Palette& pal = theme().palette();
    ImGui::PushTextWrapPos(0.0f);
    if (m_predicted && m_predicted->flopsPerSec > 0) {
        const engine::RooflineCeiling* c = m_model->compute(m_predictedUnit);
        const engine::RooflineCeiling* dram = m_model->memory("dram");
        const double ridge = c && dram ? c->value / dram->value : 0;
        const bool memoryBound = c && m_predicted->ai < ridge;
        ImGui::TextColored(Theme::toVec4(pal.warn), "predicted");
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(pal.textDim), "AI %s FLOP/B: %s bound, %s ridge %s, at most %s",
                           chart::formatCompact(m_predicted->ai, 1).c_str(), memoryBound ? "memory" : "compute",
                           engine::unitLabel(m_predictedUnit).c_str(), chart::formatCompact(ridge, 1).c_str(),
                           flopsText(m_predicted->flopsPerSec).c_str());
    } else {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s",
                           m_predictedNote.empty() ? "No predicted point." : m_predictedNote.c_str());
    }
    const std::string runs = model().measuredPoints().empty()
                                 ? std::string("No measured runs yet: runs of this variant appear as squares.")
                                 : fmt::format("{} measured run(s)", model().measuredPoints().size());
    const bool showExport = !m_exportMessage.empty();
    ImGui::TextColored(Theme::toVec4(showExport && m_exportFailed ? pal.error : pal.textFaint), "%s",
                       showExport ? m_exportMessage.c_str() : runs.c_str());
    ImGui::PopTextWrapPos();
}

}  // namespace kx::app
