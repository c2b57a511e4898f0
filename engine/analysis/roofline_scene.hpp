// The roofline chart as data: which device, which ceilings (only the roofs the kernel can use,
// the one it sits on emphasised), ridge points, the variant's predicted point from the template's
// traffic model, measured points, the axis ranges, and where every label goes without
// colliding. The app's Roofline panel draws exactly this; `kx roofline` prints it.
//
// Units as in roofline.hpp: bytes/s, FLOP/s, FLOP/byte. Label geometry is in pixels of the plot
// area (origin top left, y down), for the character width and line height the caller draws with
// (the app's font is monospaced, so a label's width is its length times the character width).
#pragma once

#include "analysis/roofline.hpp"
#include "arch/arch_database.hpp"
#include "run/calibration.hpp"
#include "run/run_report.hpp"
#include "templates/template.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kx::engine {

// The device drawn for an arch: the one sweeps use (the H100 SXM for sm_90, else the first of the
// same compute capability), else the first NVIDIA device of the same major version (the family:
// sm_86 finds the A100's sm_80), else on AMD the first device of the same gfx name. nullptr when
// the database lists none: the caller says so instead of drawing another family's roof.
const DeviceSpec* rooflineDeviceForArch(const ArchDatabase& arches, const Arch& arch);

// The datasheet of a GPU as a runner names it ("NVIDIA H200", "NVIDIA H100 80GB HBM3"): among
// the devices of the arch's compute capability, those sharing a model word with the name ("H200");
// of those, the one sharing most words ("PCIe" picks the PCIe card), then the arch's own device
// (rooflineDeviceForArch). nullptr when none shares a model word.
const DeviceSpec* deviceForGpuName(const ArchDatabase& arches, const Arch& arch, std::string_view gpuName);

// A device given by id ("h100_sxm") or by name, case-insensitively ("NVIDIA H100 SXM5 80GB");
// nullptr when none matches.
const DeviceSpec* findRooflineDevice(const ArchDatabase& arches, std::string_view idOrName);

// The calibration measured on the device: the newest whose device name shares a model word with
// the datasheet name ("H100", "MI300X"; not "80GB" or "SXM5"). -1 when none; calibrations sorted
// by device then date, as listCalibrations() returns them.
int calibrationForDevice(const std::vector<Calibration>& calibrations, const DeviceSpec& device);

struct RooflineSceneRequest {
    const ArchDatabase* arches = nullptr;  // required
    const Arch* arch = nullptr;            // the variant's arch; nullptr: no variant, no device choice
    const Template* tmpl = nullptr;        // nullptr: no predicted point
    Config config;
    SizeMap sizes;                         // empty: the template's default sizes
    std::string deviceId;                  // empty: rooflineDeviceForArch
    std::optional<Calibration> calibration;  // measured ceilings drawn beside the datasheet's
    std::vector<RooflinePoint> measured;   // runs, placed at their own intensity and throughput
    bool allRoofs = false;                 // also the compute roofs the kernel cannot use (dimmed)
    std::string noPredictionReason;        // set: no predicted point, this sentence says why
};

struct SceneCeiling {
    RooflineCeiling ceiling;
    bool usable = true;        // the kernel can reach it: memory levels and the kernel's own unit
    bool emphasised = false;   // the roof the predicted point sits on, and the DRAM diagonal
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the drawn segment in data space
    std::string label;         // "FP32  67 TFLOP/s", "DRAM  3350 GB/s"
};

struct RooflineScene {
    std::string deviceId;      // empty: no device (see deviceNote)
    std::string deviceName;
    std::string deviceArch;
    bool deviceFollowsArch = false;  // chosen for the arch rather than named by the caller
    std::string deviceNote;    // set when the arch has no listed device or the named one is foreign
    std::string calibrationText;     // "NVIDIA H100 80GB HBM3 (2025-01-30)"; empty: none
    std::optional<RooflineModel> model;
    std::vector<SceneCeiling> ceilings;   // memory first, then compute from slowest
    std::vector<RidgePoint> ridges;       // of the compute ceilings shown

    std::optional<RooflinePoint> predicted;  // flopsPerSec 0 when there was no roof to place it on
    std::string predictedUnit;               // its roof ("fp32", "fp16_tensor")
    bool predictedMemoryBound = false;
    double predictedRidge = 0;               // the intensity where its roof meets DRAM
    double flops = 0;
    double trafficBytes = 0;                 // DRAM bytes of the template's traffic model
    double compulsoryBytes = 0;              // the least bytes any implementation moves
    bool trafficModelled = false;            // the manifest has <traffic>; else traffic = compulsory
    std::string predictedNote;               // why there is no predicted point, when there is none

    std::vector<RooflinePoint> measured;
    double xMin = 0.1, xMax = 1000;          // whole decades
    double yMin = 1e11, yMax = 1e15;
};

// The points a run puts on the roofline, at the run's throughput: with counted memory traffic
// (RunReport::memoryCounters) one at FLOPs / counted DRAM bytes and one at FLOPs / counted L2
// bytes, else one at FLOPs / the template's bytes. None for a failed run or one without time,
// FLOPs or bytes. Labels start with `label` ("n=4096").
std::vector<RooflinePoint> measuredRooflinePoints(const RunReport& report, const std::string& label);

// Builds the scene. Never throws for a template's formula errors (they become predictedNote);
// throws InputError only for a request without arches or with a deviceId not in the database.
RooflineScene buildRooflineScene(const RooflineSceneRequest& request);

// --- Labels -------------------------------------------------------------------------------------

struct PixelRect {
    double x = 0, y = 0, w = 0, h = 0;
    bool intersects(const PixelRect& o) const { return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h; }
};

struct LabelMetrics {
    double plotWidth = 0, plotHeight = 0;   // the plot area, pixels
    double charWidth = 8, lineHeight = 16;  // of the font the labels are drawn in
    double padding = 3;                     // around the text (its backdrop)
    double markerRadius = 7;                // room kept clear around every marker
    std::vector<PixelRect> keepClear;       // e.g. the legend box
};

struct SceneLabel {
    std::size_t ceiling = 0;  // index into RooflineScene::ceilings
    std::string text;
    PixelRect rect;           // backdrop rectangle, padding included
};

// The pixel position of a data point in the plot area.
double sceneToPixelX(const RooflineScene& scene, const LabelMetrics& m, double ai);
double sceneToPixelY(const RooflineScene& scene, const LabelMetrics& m, double flopsPerSec);

// Rectangles of the markers drawn (ridges, predicted, measured), markerRadius around each.
std::vector<PixelRect> sceneMarkerRects(const RooflineScene& scene, const LabelMetrics& m);

// One label per ceiling: compute labels at the right end of their roof (above it, else below,
// else further off), memory labels along their diagonal (above-left of it, measured below-right),
// each placed where it overlaps no placed label, no marker and no keepClear rectangle, inside the
// plot. Emphasised ceilings are placed first. When a plot is too small for every label, the ones
// that fit nowhere are left out rather than drawn over another (a label hidden is better than two
// unreadable); the result then has fewer labels than ceilings.
std::vector<SceneLabel> layoutRooflineLabels(const RooflineScene& scene, const LabelMetrics& m);

}  // namespace kx::engine
