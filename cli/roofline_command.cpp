// kx roofline: the roofline scene of a variant (analysis/roofline_scene.hpp) as text, CSV or JSON;
// the same scene the app's Roofline panel draws.
#include "command_options.hpp"
#include "commands.hpp"

#include "analysis/higher_roofs.hpp"
#include "analysis/roofline_scene.hpp"
#include "run/calibration.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace kx::cli {
using namespace kx::engine;
using nlohmann::json;

namespace {

const char* sourceName(CeilingSource s) { return s == CeilingSource::Measured ? "measured" : "datasheet"; }

json sceneJson(const RooflineScene& s, const std::string& templateId, const std::string& arch) {
    json ceilings = json::array();
    for (const SceneCeiling& c : s.ceilings) {
        const bool memory = c.ceiling.kind == CeilingKind::Memory;
        json j = {{"id", c.ceiling.id},
                  {"label", c.label},
                  {"kind", memory ? "memory" : "compute"},
                  {"source", sourceName(c.ceiling.source)},
                  {"usable", c.usable},
                  {"emphasised", c.emphasised},
                  {"segment", {{"ai0", c.x0}, {"flops0", c.y0}, {"ai1", c.x1}, {"flops1", c.y1}}}};
        if (memory) j["bandwidth_gbs"] = c.ceiling.value / 1e9;
        else j["peak_tflops"] = c.ceiling.value / 1e12;
        ceilings.push_back(std::move(j));
    }
    json ridges = json::array();
    for (const RidgePoint& r : s.ridges)
        ridges.push_back({{"compute", r.computeId}, {"memory", r.memoryId}, {"source", sourceName(r.source)},
                          {"ai", r.ai}, {"tflops", r.flops / 1e12}});
    json predicted = nullptr;
    if (s.predicted) {
        predicted = {{"label", s.predicted->label},
                     {"ai", s.predicted->ai},
                     {"tflops", s.predicted->flopsPerSec > 0 ? json(s.predicted->flopsPerSec / 1e12) : json(nullptr)},
                     {"unit", s.predictedUnit},
                     {"bound", s.predicted->flopsPerSec <= 0 ? "unknown" : s.predictedMemoryBound ? "memory" : "compute"},
                     {"ridge_ai", s.predictedRidge},
                     {"flops", s.flops},
                     {"traffic_bytes", s.trafficBytes},
                     {"compulsory_bytes", s.compulsoryBytes},
                     {"compulsory_ai", s.compulsoryBytes > 0 ? s.flops / s.compulsoryBytes : 0.0},
                     {"traffic_model", s.trafficModelled ? "manifest" : "compulsory"}};
    }
    json measured = json::array();
    for (const RooflinePoint& p : s.measured) measured.push_back({{"label", p.label}, {"ai", p.ai}, {"tflops", p.flopsPerSec / 1e12}});
    return {{"template", templateId},
            {"arch", arch},
            {"device", s.deviceId.empty() ? json(nullptr)
                                          : json{{"id", s.deviceId}, {"name", s.deviceName}, {"arch", s.deviceArch},
                                                 {"follows_arch", s.deviceFollowsArch}}},
            {"device_note", s.deviceNote},
            {"calibration", s.calibrationText},
            {"axes", {{"ai_min", s.xMin}, {"ai_max", s.xMax}, {"flops_min", s.yMin}, {"flops_max", s.yMax}}},
            {"ceilings", ceilings},
            {"ridges", ridges},
            {"predicted", predicted},
            {"predicted_note", s.predictedNote},
            {"measured", measured}};
}

void printText(const RooflineScene& s) {
    if (s.deviceId.empty()) {
        fmt::print("device      none: {}\n", s.deviceNote);
    } else {
        fmt::print("device      {} ({}{})\n", s.deviceName, s.deviceArch, s.deviceFollowsArch ? ", chosen for the arch" : "");
        if (!s.deviceNote.empty()) fmt::print("            {}\n", s.deviceNote);
    }
    if (!s.calibrationText.empty()) fmt::print("measured    {}\n", s.calibrationText);
    for (const SceneCeiling& c : s.ceilings) {
        const char* mark = c.emphasised ? "*" : c.usable ? " " : "-";
        fmt::print("ceiling   {} {:<34} {}\n", mark, c.label, sourceName(c.ceiling.source));
    }
    for (const RidgePoint& r : s.ridges)
        fmt::print("ridge       {} at {:.4g} FLOP/byte{}\n", unitLabel(r.computeId), r.ai,
                   r.source == CeilingSource::Measured ? " (measured)" : "");
    if (s.predicted) {
        fmt::print("predicted   {}\n", s.predicted->label);
        fmt::print("  traffic   {:.4g} MB ({}); compulsory {:.4g} MB\n", s.trafficBytes / 1e6,
                   s.trafficModelled ? "the manifest's traffic model" : "compulsory bytes only", s.compulsoryBytes / 1e6);
        fmt::print("  intensity {:.4g} FLOP/byte (compulsory bytes alone: {:.4g})\n", s.predicted->ai,
                   s.compulsoryBytes > 0 ? s.flops / s.compulsoryBytes : 0.0);
        if (s.predicted->flopsPerSec > 0)
            fmt::print("  at most   {:.4g} TFLOP/s on the {} roof: {} bound (ridge {:.4g} FLOP/byte)\n",
                       s.predicted->flopsPerSec / 1e12, unitLabel(s.predictedUnit), s.predictedMemoryBound ? "memory" : "compute",
                       s.predictedRidge);
    }
    if (!s.predictedNote.empty()) fmt::print("note        {}\n", s.predictedNote);
    fmt::print("axes        {:g} to {:g} FLOP/byte, {:g} to {:g} FLOP/s\n", s.xMin, s.xMax, s.yMin, s.yMax);
    fmt::print("(* the roof the kernel sits on and DRAM; - a roof it cannot use, shown with --all-roofs)\n");
}

// "--set dtype=f16,layout=rcr" for the choices a higher-roof template shares; empty for none.
std::string setOption(const std::map<std::string, std::string>& values) {
    std::string out;
    for (const auto& [k, v] : values) out += (out.empty() ? " --set " : ",") + k + "=" + v;
    return out;
}

void printHigherRoofs(const std::vector<HigherRoof>& higher, const RooflineScene& s) {
    const RooflineCeiling* own = s.model ? s.model->compute(s.predictedUnit) : nullptr;
    for (const HigherRoof& h : higher)
        fmt::print("higher roof {} on {}: {} {:g} TFLOP/s{} (kx roofline {} --arch {}{})\n", h.templateId, h.arch, unitLabel(h.unit),
                   h.peakFlops / 1e12, own && own->value > 0 ? fmt::format(", {:.1f}x this kernel's", h.peakFlops / own->value) : "",
                   h.templateId, h.arch, setOption(h.values));
}

}  // namespace

int roofline(const Context& ctx, const RooflineArgs& args) {
    const auto tmpl = ctx.templates.find(args.variant.templateId);
    if (!tmpl) throw InputError("unknown template '" + args.variant.templateId + "' (see 'kx templates')");
    const Arch* arch = ctx.arches.findArch(args.variant.arch);
    if (!arch) throw InputError("unknown arch '" + args.variant.arch + "' (see 'kx arches')");

    RooflineSceneRequest req;
    req.arches = &ctx.arches;
    req.arch = arch;
    req.tmpl = tmpl.get();
    req.config = variantConfig(*tmpl, args.variant, arch->name);
    requireValid(prepareVariant(*tmpl, req.config, *arch), *arch);
    req.sizes = variantSizes(*tmpl, args.variant, args.sizes, arch->name);
    req.deviceId = args.device;
    req.allRoofs = args.allRoofs;
    // The app adds the newest calibration of the drawn device; so does kx, unless told not to.
    const DeviceSpec* device = args.device.empty() ? rooflineDeviceForArch(ctx.arches, *arch)
                                                   : findRooflineDevice(ctx.arches, args.device);
    if (!args.noMeasured && device != nullptr) {
        const std::vector<Calibration> calibrations = listCalibrations();
        if (const int i = calibrationForDevice(calibrations, *device); i >= 0) req.calibration = calibrations[i];
    }
    const RooflineScene scene = buildRooflineScene(req);
    std::vector<HigherRoof> higher;
    if (scene.model) higher = higherRoofs(ctx.templates, ctx.arches, *tmpl, req.config, *arch, *scene.model);

    if (args.json) {
        nlohmann::json j = sceneJson(scene, tmpl->id(), arch->name);
        j["higher_roofs"] = nlohmann::json::array();
        for (const HigherRoof& h : higher)
            j["higher_roofs"].push_back({{"template", h.templateId}, {"arch", h.arch}, {"values", h.values}, {"unit", h.unit},
                                         {"peak_tflops", h.peakFlops / 1e12}});
        std::cout << j.dump(2) << "\n";
    } else if (args.csv) {
        if (!scene.model) throw InputError(scene.deviceNote.empty() ? "no device to draw the roofline of" : scene.deviceNote);
        std::vector<RooflinePoint> points;
        if (scene.predicted) points.push_back(*scene.predicted);
        points.insert(points.end(), scene.measured.begin(), scene.measured.end());
        std::cout << rooflineCsv(*scene.model, points);
    } else {
        printText(scene);
        printHigherRoofs(higher, scene);
    }
    return 0;
}

// [SECTION] Command line

void addRooflineCommand(CLI::App& app, CommandTable& table) {
    auto [rooflineCmd, args] = table.addCommand<RooflineArgs>(
        app, "roofline", "The roofline the app draws: device, ceilings the kernel can use, the predicted point from the traffic model", roofline);
    addVariantAndFlagOptions(rooflineCmd, *args);
    rooflineCmd->add_option("--device", args->device, "Device id or name (see assets/devices; default: one of the arch's family)");
    rooflineCmd->add_flag("--all-roofs", args->allRoofs, "Also the compute roofs the kernel cannot use");
    rooflineCmd->add_flag("--no-measured", args->noMeasured, "Leave out the ceilings measured by kx calibrate");
    auto* roofCsv = rooflineCmd->add_flag("--csv", args->csv, "Ceilings, ridges and points as CSV");
    rooflineCmd->add_flag("--json", args->json, "The whole scene as JSON")->excludes(roofCsv);
}

}  // namespace kx::cli
