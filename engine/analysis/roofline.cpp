#include "analysis/roofline.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::engine {

namespace {

constexpr double kGiga = 1e9;
constexpr double kTera = 1e12;

const char* sourceName(CeilingSource s) { return s == CeilingSource::Measured ? "measured" : "datasheet"; }

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// Shortest text that reads back to the same double.
std::string number(double v) { return fmt::format("{}", v); }

}  // namespace

std::string unitForGemmDtype(std::string_view d) {
    if (d == "f32" || d == "fp32") return "fp32";
    if (d == "f64" || d == "fp64") return "fp64";
    if (d == "tf32") return "tf32_tensor";
    if (d == "f16" || d == "fp16") return "fp16_tensor";
    if (d == "bf16") return "bf16_tensor";
    if (d == "f8" || d == "fp8") return "fp8_tensor";
    if (d == "i8" || d == "int8") return "int8_tensor";
    return {};
}

std::string unitLabel(std::string_view unit) {
    static const std::map<std::string, std::string, std::less<>> kLabels = {
        {"fp64", "FP64"},
        {"fp32", "FP32"},
        {"fp64_tensor", "FP64 tensor"},
        {"tf32_tensor", "TF32 tensor"},
        {"fp16_tensor", "FP16 tensor"},
        {"bf16_tensor", "BF16 tensor"},
        {"fp8_tensor", "FP8 tensor"},
        {"int8_tensor", "INT8 tensor"},
    };
    const auto it = kLabels.find(unit);
    return it != kLabels.end() ? it->second : std::string(unit);
}

RooflineModel::RooflineModel(const DeviceSpec& device, const std::optional<RooflineCalibration>& calibration)
    : m_deviceName(device.name.empty() ? device.id : device.name), m_deviceId(device.id) {
    if (device.memBandwidthGBs > 0)
        m_memory.push_back({"dram", "DRAM", CeilingKind::Memory, CeilingSource::Datasheet, device.memBandwidthGBs * kGiga});
    for (const auto& [unit, tflops] : device.peakTflops) {
        if (tflops > 0)
            m_compute.push_back({unit, unitLabel(unit), CeilingKind::Compute, CeilingSource::Datasheet, tflops * kTera});
    }
    if (calibration) {
        if (calibration->copyGBs > 0)
            m_memory.push_back({"dram", "DRAM (measured)", CeilingKind::Memory, CeilingSource::Measured,
                                calibration->copyGBs * kGiga});
        if (calibration->l2GBs > 0)
            m_memory.push_back({"l2", "L2 (measured)", CeilingKind::Memory, CeilingSource::Measured,
                                calibration->l2GBs * kGiga});
        for (const auto& [unit, tflops] : calibration->peakTflops) {
            if (tflops > 0)
                m_compute.push_back({unit, unitLabel(unit) + " (measured)", CeilingKind::Compute, CeilingSource::Measured,
                                     tflops * kTera});
        }
    }
    // Slowest first: the order a roofline reads from bottom to top.
    std::stable_sort(m_compute.begin(), m_compute.end(),
                     [](const RooflineCeiling& a, const RooflineCeiling& b) { return a.value < b.value; });
}

const RooflineCeiling* RooflineModel::memory(std::string_view id, CeilingSource source) const {
    for (const auto& c : m_memory) {
        if (c.id == id && c.source == source) return &c;
    }
    return nullptr;
}

const RooflineCeiling* RooflineModel::compute(std::string_view unit, CeilingSource source) const {
    for (const auto& c : m_compute) {
        if (c.id == unit && c.source == source) return &c;
    }
    return nullptr;
}

const RooflineCeiling* RooflineModel::dramFor(CeilingSource source) const {
    const RooflineCeiling* d = memory("dram", source);
    return d != nullptr ? d : memory("dram", CeilingSource::Datasheet);
}

std::vector<RidgePoint> RooflineModel::ridgePoints() const {
    std::vector<RidgePoint> out;
    for (const auto& c : m_compute) {
        const RooflineCeiling* d = dramFor(c.source);
        if (d == nullptr || d->value <= 0) continue;
        out.push_back({c.id, d->id, c.source, c.value / d->value, c.value});
    }
    return out;
}

double RooflineModel::attainable(double ai, std::string_view unit, CeilingSource source) const {
    const RooflineCeiling* c = compute(unit, source);
    if (c == nullptr)
        throw InputError(fmt::format("{} has no {} {} ceiling", m_deviceName, sourceName(source), unitLabel(unit)));
    const RooflineCeiling* d = dramFor(source);
    if (d == nullptr) throw InputError(m_deviceName + " has no DRAM bandwidth");
    return std::min(c->value, std::max(0.0, ai) * d->value);
}

RooflinePoint predictedPoint(std::string label, double flops, double minBytes) {
    if (!(minBytes > 0)) throw InputError("a predicted roofline point needs a positive byte count");
    if (!(flops >= 0)) throw InputError("a predicted roofline point needs a non-negative FLOP count");
    return {std::move(label), flops / minBytes, 0.0, PointKind::Predicted};
}

RooflinePoint placeOnRoof(const RooflineModel& model, RooflinePoint point, std::string_view unit, CeilingSource source) {
    point.flopsPerSec = model.attainable(point.ai, unit, source);
    return point;
}

const RooflineCeiling* unitRoof(const RooflineModel& model, std::string_view unit, CeilingSource source) {
    const RooflineCeiling* c = model.compute(unit, source);
    return c != nullptr ? c : model.compute("fp32", source);
}

std::optional<RoofShare> roofShare(const RooflineModel& model, std::string_view unit, double flopsPerSec, double bytesPerSec) {
    // The unit's measured roof, else its datasheet one; a unit the device lacks is the CUDA cores'.
    const RooflineCeiling* compute = model.compute(unit, CeilingSource::Measured);
    if (compute == nullptr) compute = model.compute(unit);
    if (compute == nullptr) compute = unitRoof(model, "fp32", CeilingSource::Measured);
    if (compute == nullptr) compute = unitRoof(model, "fp32");
    const RooflineCeiling* dram = model.memory("dram", CeilingSource::Measured);
    if (dram == nullptr) dram = model.memory("dram");
    std::optional<RoofShare> best;
    auto consider = [&best](const RooflineCeiling* c, double rate) {
        if (c == nullptr || !(c->value > 0) || !(rate > 0)) return;
        const double percent = 100.0 * rate / c->value;
        if (!best || percent > best->percent) best = RoofShare{percent, *c};
    };
    consider(compute, flopsPerSec);
    consider(dram, bytesPerSec);
    return best;
}

std::string rooflineCsv(const RooflineModel& model, const std::vector<RooflinePoint>& points) {
    std::string out = "type,id,label,source,bandwidth_gbs,peak_tflops,ai_flop_per_byte,tflops\n";
    for (const auto& c : model.memoryCeilings()) {
        out += fmt::format("memory,{},{},{},{},,,\n", csvField(c.id), csvField(c.label), sourceName(c.source),
                           number(c.value / kGiga));
    }
    for (const auto& c : model.computeCeilings()) {
        out += fmt::format("compute,{},{},{},,{},,\n", csvField(c.id), csvField(c.label), sourceName(c.source),
                           number(c.value / kTera));
    }
    for (const auto& r : model.ridgePoints()) {
        out += fmt::format("ridge,{},{},{},,,{},{}\n", csvField(r.computeId),
                           csvField(unitLabel(r.computeId) + " ridge"), sourceName(r.source), number(r.ai),
                           number(r.flops / kTera));
    }
    for (const auto& p : points) {
        out += fmt::format("point,,{},{},,,{},{}\n", csvField(p.label),
                           p.kind == PointKind::Measured ? "measured" : "predicted", number(p.ai),
                           p.flopsPerSec > 0 ? number(p.flopsPerSec / kTera) : std::string());
    }
    return out;
}

}  // namespace kx::engine
