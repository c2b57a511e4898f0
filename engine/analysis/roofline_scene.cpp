#include "analysis/roofline_scene.hpp"

#include "sweep/sweep.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace kx::engine {

namespace {

std::string upper(std::string_view s) {
    std::string out;
    for (char c : s) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

// The words of a name, upper case: "NVIDIA H100 PCIe 80GB" -> NVIDIA, H100, PCIE, 80GB.
std::vector<std::string> upperWords(std::string_view name) {
    std::vector<std::string> out(1);
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c))) out.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        else if (!out.back().empty()) out.emplace_back();
    }
    if (out.back().empty()) out.pop_back();
    return out;
}

// The words of a product name that name the model ("H100", "MI300X", "4090"): with a digit, at
// least three characters, and not a memory size or a form factor ("80GB", "SXM5", "HBM3").
std::vector<std::string> modelTokens(std::string_view name) {
    std::vector<std::string> out;
    for (const std::string& w : upperWords(name)) {
        const bool digit = std::any_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        const auto startsWith = [&](std::string_view p) { return w.rfind(p, 0) == 0; };
        const auto endsWith = [&](std::string_view e) { return w.size() >= e.size() && w.compare(w.size() - e.size(), e.size(), e) == 0; };
        if (!digit || w.size() < 3 || endsWith("GB") || endsWith("MB") || startsWith("SXM") || startsWith("HBM") ||
            startsWith("GDDR") || startsWith("PCIE"))
            continue;
        out.push_back(w);
    }
    return out;
}

// "67 TFLOP/s", "1.98 PFLOP/s": four significant digits at most, the SI prefix on the unit.
std::string flopsText(double v) {
    const char* prefix = "";
    double scaled = v;
    for (auto [factor, p] : {std::pair{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}}) {
        if (v >= factor) {
            scaled = v / factor;
            prefix = p;
            break;
        }
    }
    return fmt::format("{:.4g} {}FLOP/s", scaled, prefix);
}

double decadeFloor(double v) { return std::pow(10.0, std::floor(std::log10(std::max(v, 1e-300)) + 1e-9)); }
double decadeCeil(double v) { return std::pow(10.0, std::ceil(std::log10(std::max(v, 1e-300)) - 1e-9)); }

}  // namespace

const DeviceSpec* rooflineDeviceForArch(const ArchDatabase& arches, const Arch& arch) {
    if (arch.vendor == Vendor::Nvidia) {
        if (const std::optional<DeviceSpec> d = rooflineDeviceFor(arches, arch)) return arches.findDevice(d->id);
        for (const DeviceSpec& d : arches.devices()) {
            const Arch* da = arches.findArch(d.arch);
            if (da != nullptr && da->vendor == Vendor::Nvidia && da->nv.computeMajor == arch.nv.computeMajor) return &d;
        }
        return nullptr;
    }
    for (const DeviceSpec& d : arches.devices())
        if (d.arch == arch.name) return &d;
    return nullptr;
}

const DeviceSpec* deviceForGpuName(const ArchDatabase& arches, const Arch& arch, std::string_view gpuName) {
    const std::vector<std::string> model = modelTokens(gpuName);
    const std::vector<std::string> words = upperWords(gpuName);
    const DeviceSpec* archDefault = rooflineDeviceForArch(arches, arch);
    const DeviceSpec* best = nullptr;
    long bestShared = 0;
    for (const DeviceSpec& d : arches.devices()) {
        const Arch* da = arches.findArch(d.arch);
        if (da == nullptr || da->vendor != arch.vendor || da->nv.computeMajor != arch.nv.computeMajor ||
            da->nv.computeMinor != arch.nv.computeMinor)
            continue;
        const std::vector<std::string> dm = modelTokens(d.name);
        if (std::none_of(model.begin(), model.end(), [&](const std::string& t) { return std::find(dm.begin(), dm.end(), t) != dm.end(); }))
            continue;
        const std::vector<std::string> dw = upperWords(d.name);
        const long shared = std::count_if(words.begin(), words.end(), [&](const std::string& w) { return std::find(dw.begin(), dw.end(), w) != dw.end(); });
        if (best == nullptr || shared > bestShared || (shared == bestShared && &d == archDefault)) {
            best = &d;
            bestShared = shared;
        }
    }
    return best;
}

const DeviceSpec* findRooflineDevice(const ArchDatabase& arches, std::string_view idOrName) {
    if (const DeviceSpec* d = arches.findDevice(idOrName)) return d;
    const std::string wanted = upper(idOrName);
    for (const DeviceSpec& d : arches.devices())
        if (upper(d.name) == wanted || upper(d.id) == wanted) return &d;
    return nullptr;
}

int calibrationForDevice(const std::vector<Calibration>& calibrations, const DeviceSpec& device) {
    const std::vector<std::string> wanted = modelTokens(device.name);
    int found = -1;
    for (int i = 0; i < static_cast<int>(calibrations.size()); ++i) {
        const std::vector<std::string> have = modelTokens(calibrations[i].device);
        const bool match = std::any_of(wanted.begin(), wanted.end(),
                                       [&](const std::string& t) { return std::find(have.begin(), have.end(), t) != have.end(); });
        if (match) found = i;  // sorted by device then date: the last match is the newest
    }
    return found;
}

namespace {

// The predicted point: intensity from the traffic model, lifted to the roof of the kernel's unit.
void predict(const RooflineSceneRequest& req, RooflineScene& scene) {
    if (!req.noPredictionReason.empty()) {
        scene.predictedNote = req.noPredictionReason;
        return;
    }
    if (req.tmpl == nullptr || req.arch == nullptr) return;
    try {
        const SizeMap sizes = req.sizes.empty() ? req.tmpl->defaultSizes() : req.sizes;
        const DeviceSpec* device = req.arches->findDevice(scene.deviceId);
        scene.flops = req.tmpl->flops(req.config, *req.arch, sizes);
        scene.compulsoryBytes = req.tmpl->minBytes(req.config, *req.arch, sizes);
        scene.trafficBytes = req.tmpl->trafficBytes(req.config, *req.arch, sizes, device ? device->l2Bytes : 0);
        scene.trafficModelled = req.tmpl->hasTrafficModel();
        scene.predictedUnit = req.tmpl->rooflineUnit(req.config, *req.arch);
        if (scene.flops <= 0) {
            scene.predictedNote = "The template gives no FLOP formula, so it has no intensity to plot.";
            return;
        }
        RooflinePoint p = predictedPoint(req.tmpl->configName(req.config), scene.flops, scene.trafficBytes);
        if (scene.model && scene.model->compute(scene.predictedUnit) != nullptr && scene.model->memory("dram") != nullptr) {
            p = placeOnRoof(*scene.model, p, scene.predictedUnit);
            const double peak = scene.model->compute(scene.predictedUnit)->value;
            scene.predictedRidge = peak / scene.model->memory("dram")->value;
            scene.predictedMemoryBound = p.flopsPerSec < peak * (1 - 1e-9);
        } else if (scene.model) {
            scene.predictedNote = fmt::format("{} lists no {} peak or DRAM bandwidth to place the point on.",
                                              scene.deviceName, unitLabel(scene.predictedUnit));
        }
        scene.predicted = p;
    } catch (const std::exception& e) {
        scene.predicted.reset();
        scene.predictedNote = std::string("No predicted point: ") + e.what();
    }
}

void chooseDevice(const RooflineSceneRequest& req, RooflineScene& scene) {
    const DeviceSpec* device = nullptr;
    if (!req.deviceId.empty()) {
        device = findRooflineDevice(*req.arches, req.deviceId);
        if (device == nullptr) {
            std::string known;
            for (const DeviceSpec& d : req.arches->devices()) known += (known.empty() ? "" : ", ") + d.id;
            throw InputError("unknown device '" + req.deviceId + "' (devices: " + known + ")");
        }
        if (req.arch != nullptr) {
            const Arch* da = req.arches->findArch(device->arch);
            if (da != nullptr && da->vendor != req.arch->vendor)
                scene.deviceNote = fmt::format("{} is not a {} device: the roofs are not the ones {} code runs under.",
                                               device->name, req.arch->name, req.arch->name);
        }
    } else if (req.arch != nullptr) {
        device = rooflineDeviceForArch(*req.arches, *req.arch);
        scene.deviceFollowsArch = true;
        if (device == nullptr)
            scene.deviceNote = fmt::format("No device of {}'s family is listed in assets/devices: pick one to compare with.",
                                           req.arch->name);
    } else if (!req.arches->devices().empty()) {
        device = &req.arches->devices().front();
    }
    if (device == nullptr) return;
    scene.deviceId = device->id;
    scene.deviceName = device->name.empty() ? device->id : device->name;
    scene.deviceArch = device->arch;
    std::optional<RooflineCalibration> measured;
    if (req.calibration) {
        measured = rooflineCalibration(*req.calibration);
        scene.calibrationText = fmt::format("{} ({})", req.calibration->device, req.calibration->measuredAt.substr(0, 10));
    }
    scene.model.emplace(*device, measured);
}

void placeCeilings(RooflineScene& scene, bool allRoofs, bool haveKernel) {
    const RooflineModel& model = *scene.model;
    // A kernel uses its own unit's roof; without a kernel (or a roof to sit on) every roof is shown.
    const bool unitListed = haveKernel && model.compute(scene.predictedUnit) != nullptr;
    auto usable = [&](const RooflineCeiling& c) { return !unitListed || c.id == scene.predictedUnit; };

    double xLo = 0.1, xHi = 100, yHi = 1e12;
    std::vector<const RooflineCeiling*> compute;
    for (const RooflineCeiling& c : model.computeCeilings()) {
        if (!usable(c) && !allRoofs) continue;
        compute.push_back(&c);
    }
    for (const RidgePoint& r : model.ridgePoints()) {
        const RooflineCeiling* c = model.compute(r.computeId, r.source);
        if (c == nullptr || std::find(compute.begin(), compute.end(), c) == compute.end()) continue;
        scene.ridges.push_back(r);
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
    if (scene.predicted) include(scene.predicted->ai, scene.predicted->flopsPerSec);
    for (const RooflinePoint& p : scene.measured) include(p.ai, p.flopsPerSec);
    scene.xMin = decadeFloor(xLo);
    scene.xMax = decadeCeil(std::max(xHi, scene.xMin * 10));
    double bw = 0;
    for (const RooflineCeiling& m : model.memoryCeilings()) bw = std::max(bw, m.value);
    double yLo = bw > 0 ? bw * scene.xMin : yHi / 1e4;
    for (const RooflinePoint& p : scene.measured)
        if (p.flopsPerSec > 0) yLo = std::min(yLo, p.flopsPerSec / 2);
    scene.yMin = decadeFloor(yLo);
    scene.yMax = decadeCeil(std::max(yHi, scene.yMin * 10));

    double topPeak = 0;
    for (const RooflineCeiling* c : compute) topPeak = std::max(topPeak, c->value);
    for (const RooflineCeiling& m : model.memoryCeilings()) {
        SceneCeiling s;
        s.ceiling = m;
        s.emphasised = m.id == "dram" && m.source == CeilingSource::Datasheet;
        s.label = fmt::format("{}  {:.0f} GB/s", m.label, m.value / 1e9);
        // From the left edge up to the highest roof shown: above it the diagonal means nothing.
        s.x0 = scene.xMin;
        s.y0 = m.value * s.x0;
        s.x1 = topPeak > 0 ? std::max(topPeak / m.value, s.x0) : scene.xMax;
        s.y1 = m.value * s.x1;
        scene.ceilings.push_back(std::move(s));
    }
    for (const RooflineCeiling* c : compute) {
        const RooflineCeiling* dram = model.memory("dram", c->source);
        if (dram == nullptr) dram = model.memory("dram");
        SceneCeiling s;
        s.ceiling = *c;
        s.usable = usable(*c);
        s.emphasised = unitListed && c->id == scene.predictedUnit && c->source == CeilingSource::Datasheet;
        s.label = c->label + "  " + flopsText(c->value);
        s.x0 = std::max(dram ? c->value / dram->value : scene.xMin, scene.xMin);
        s.y0 = s.y1 = c->value;
        s.x1 = scene.xMax;
        scene.ceilings.push_back(std::move(s));
    }
}

}  // namespace

std::vector<RooflinePoint> measuredRooflinePoints(const RunReport& report, const std::string& label) {
    std::vector<RooflinePoint> points;
    if (!report.ok || report.medianMs <= 0 || report.flops <= 0) return points;
    const double achieved = report.flops / (report.medianMs * 1e-3);
    auto add = [&](double bytes, const char* from, const std::string& suffix) {
        if (bytes > 0) points.push_back({label + suffix, report.flops / bytes, achieved, PointKind::Measured, from});
    };
    if (report.memoryCounters && report.memoryCounters->ok() && report.memoryCounters->dramBytes() > 0) {
        add(report.memoryCounters->dramBytes(), "dram", " (DRAM bytes counted)");
        add(report.memoryCounters->l2Bytes, "l2", " (L2 bytes counted)");
    } else {
        add(report.bytes, "template", "");
    }
    return points;
}

RooflineScene buildRooflineScene(const RooflineSceneRequest& req) {
    if (req.arches == nullptr) throw InputError("a roofline scene needs the architecture database");
    RooflineScene scene;
    chooseDevice(req, scene);
    scene.measured = req.measured;
    predict(req, scene);
    if (scene.model) placeCeilings(scene, req.allRoofs, req.tmpl != nullptr && req.noPredictionReason.empty());
    return scene;
}

// --- Labels -------------------------------------------------------------------------------------

double sceneToPixelX(const RooflineScene& s, const LabelMetrics& m, double ai) {
    return m.plotWidth * (std::log10(ai) - std::log10(s.xMin)) / (std::log10(s.xMax) - std::log10(s.xMin));
}

double sceneToPixelY(const RooflineScene& s, const LabelMetrics& m, double f) {
    return m.plotHeight * (1 - (std::log10(f) - std::log10(s.yMin)) / (std::log10(s.yMax) - std::log10(s.yMin)));
}

std::vector<PixelRect> sceneMarkerRects(const RooflineScene& s, const LabelMetrics& m) {
    std::vector<PixelRect> out;
    auto add = [&](double ai, double f) {
        if (ai <= 0 || f <= 0) return;
        const double r = m.markerRadius;
        out.push_back({sceneToPixelX(s, m, ai) - r, sceneToPixelY(s, m, f) - r, 2 * r, 2 * r});
    };
    for (const RidgePoint& r : s.ridges) add(r.ai, r.flops);
    if (s.predicted) add(s.predicted->ai, s.predicted->flopsPerSec);
    for (const RooflinePoint& p : s.measured) add(p.ai, p.flopsPerSec);
    return out;
}

std::vector<SceneLabel> layoutRooflineLabels(const RooflineScene& s, const LabelMetrics& m) {
    std::vector<SceneLabel> placed;
    std::vector<PixelRect> blocked = sceneMarkerRects(s, m);
    blocked.insert(blocked.end(), m.keepClear.begin(), m.keepClear.end());
    const double h = m.lineHeight + 2 * m.padding;
    const double gap = 2;
    auto fits = [&](const PixelRect& r) {
        if (r.x < 0 || r.y < 0 || r.x + r.w > m.plotWidth || r.y + r.h > m.plotHeight) return false;
        if (std::any_of(blocked.begin(), blocked.end(), [&](const PixelRect& b) { return b.intersects(r); })) return false;
        return std::none_of(placed.begin(), placed.end(), [&](const SceneLabel& l) { return l.rect.intersects(r); });
    };

    std::vector<std::size_t> order(s.ceilings.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const SceneCeiling& ca = s.ceilings[a];
        const SceneCeiling& cb = s.ceilings[b];
        // The kernel's roof first, then memory (diagonals have more room along them), then the rest.
        auto rank = [](const SceneCeiling& c) {
            return c.emphasised ? (c.ceiling.kind == CeilingKind::Compute ? 0 : 1) : c.usable ? 2 : 3;
        };
        return rank(ca) < rank(cb);
    });

    for (std::size_t i : order) {
        const SceneCeiling& c = s.ceilings[i];
        const double w = static_cast<double>(c.label.size()) * m.charWidth + 2 * m.padding;
        std::vector<PixelRect> candidates;
        const bool measured = c.ceiling.source == CeilingSource::Measured;
        if (c.ceiling.kind == CeilingKind::Compute) {
            // At the right end of the roof: the datasheet's above its line, a measured one below
            // (it sits just under its datasheet twin), then stepping away a line at a time.
            const double y = sceneToPixelY(s, m, c.y0);
            const double right = m.plotWidth - 4 - w;
            const double left = std::min(right, sceneToPixelX(s, m, c.x0) + m.markerRadius + 4);
            const double above = y - gap - h, below = y + gap;
            for (int k = 0; k < 8; ++k) {
                const double first = measured ? below + k * h : above - k * h;
                const double second = measured ? above - k * h : below + k * h;
                for (double x : {right, (right + left) / 2, left}) {
                    candidates.push_back({x, first, w, h});
                    candidates.push_back({x, second, w, h});
                }
            }
        } else {
            // Along the diagonal: above-left of a point on it (the line rises to the right, so
            // that corner is clear of it), measured ones below-right (under their datasheet twin).
            const double px0 = sceneToPixelX(s, m, c.x0), py0 = sceneToPixelY(s, m, c.y0);
            const double px1 = sceneToPixelX(s, m, c.x1), py1 = sceneToPixelY(s, m, c.y1);
            // A short diagonal (a small plot) leaves no room above-left: then below-right.
            for (bool aboveLeft : {!measured, measured}) {
                for (int k = 0; k <= 16; ++k) {
                    const double t = aboveLeft ? 0.35 + 0.04 * k : 0.15 + 0.05 * k;
                    if (t > 1) break;
                    const double px = px0 + t * (px1 - px0), py = py0 + t * (py1 - py0);
                    if (aboveLeft) candidates.push_back({px - gap - w, py - gap - h, w, h});
                    else candidates.push_back({px + gap, py + gap, w, h});
                }
            }
        }
        for (const PixelRect& r : candidates) {
            if (fits(r)) {
                placed.push_back({i, c.label, r});
                break;
            }
        }
    }
    std::sort(placed.begin(), placed.end(), [](const SceneLabel& a, const SceneLabel& b) { return a.ceiling < b.ceiling; });
    return placed;
}

}  // namespace kx::engine
