// The roofline model of a device: memory ceilings (bytes/s), compute ceilings (FLOP/s) per unit,
// their ridge points, the attainable throughput at an arithmetic intensity, and points to place
// on it (a template's predicted intensity, measured runs).
//
// Units: every value here is in base SI units: bytes per second, FLOP per second (operations
// per second for int8), arithmetic intensity in FLOP per byte. Convert for display only.
//
// Ceilings come from the device's datasheet (DeviceSpec) and, when the caller adds them, from
// measurements (RooflineCalibration: a copy kernel's bandwidth, cuBLAS throughput); the two are
// separate, labelled ceilings, never merged, so the gap between them stays visible.
#pragma once

#include "arch/arch.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

enum class CeilingKind { Memory, Compute };
enum class CeilingSource { Datasheet, Measured };

struct RooflineCeiling {
    std::string id;      // memory: "dram", "l2"; compute: the DeviceSpec unit key ("fp32", "fp16_tensor")
    std::string label;   // "DRAM", "FP16 tensor (measured)"
    CeilingKind kind = CeilingKind::Memory;
    CeilingSource source = CeilingSource::Datasheet;
    double value = 0;    // bytes/s for memory ceilings, FLOP/s for compute ceilings
};

// Where a compute ceiling meets a memory ceiling: intensities below ai are memory bound.
struct RidgePoint {
    std::string computeId;
    std::string memoryId;
    CeilingSource source = CeilingSource::Datasheet;
    double ai = 0;       // FLOP/byte
    double flops = 0;    // FLOP/s (the compute ceiling's value)
};

enum class PointKind { Predicted, Measured };

struct RooflinePoint {
    std::string label;
    double ai = 0;            // FLOP/byte
    double flopsPerSec = 0;   // 0 when unknown (a prediction not yet placed on a roof)
    PointKind kind = PointKind::Predicted;
    // Where a measured point's bytes come from: "template" (its byte formula), or the hardware
    // counters' "dram" or "l2" bytes (a hierarchical roofline: one point per memory level).
    std::string bytesFrom = "template";
};

// Measured ceilings a caller may add (kx calibrate's results). Zero / absent means not measured.
struct RooflineCalibration {
    double copyGBs = 0;                        // device-to-device copy, GB/s (10^9 bytes)
    double l2GBs = 0;                          // an L2-resident read kernel, GB/s, when measured
    std::map<std::string, double> peakTflops;  // keyed like DeviceSpec::peakTflops ("fp32", "fp16_tensor")
};

// The DeviceSpec unit a cuBLAS GEMM dtype exercises: "f32" -> "fp32" (cuBLAS's SGEMM runs on
// the FP32 FMA pipes unless TF32 is allowed), "tf32" -> "tf32_tensor", "f16" -> "fp16_tensor",
// "bf16" -> "bf16_tensor", "f64" -> "fp64", "fp8"/"f8" -> "fp8_tensor", "int8"/"i8" -> "int8_tensor".
// Empty when unknown.
std::string unitForGemmDtype(std::string_view dtype);

// "FP32", "FP16 tensor", "INT8 tensor"; the key itself for an unknown unit.
std::string unitLabel(std::string_view unit);

class RooflineModel {
public:
    // Datasheet ceilings from the spec: DRAM bandwidth (when > 0) and one compute ceiling per
    // positive peak. DeviceSpec has no L2 bandwidth, so there is no datasheet L2 ceiling.
    // Measured ceilings follow from calibration when given. Compute ceilings are sorted by value.
    explicit RooflineModel(const DeviceSpec& device, const std::optional<RooflineCalibration>& calibration = {});

    const std::string& deviceName() const { return m_deviceName; }
    const std::string& deviceId() const { return m_deviceId; }
    const std::vector<RooflineCeiling>& memoryCeilings() const { return m_memory; }
    const std::vector<RooflineCeiling>& computeCeilings() const { return m_compute; }

    // nullptr when absent.
    const RooflineCeiling* memory(std::string_view id, CeilingSource source = CeilingSource::Datasheet) const;
    const RooflineCeiling* compute(std::string_view unit, CeilingSource source = CeilingSource::Datasheet) const;

    // One ridge per compute ceiling: against DRAM of the same source (measured compute against
    // measured copy bandwidth when there is one, else against the datasheet DRAM). Empty when
    // there is no DRAM ceiling.
    std::vector<RidgePoint> ridgePoints() const;

    // min(peak of unit, ai x DRAM bandwidth), FLOP/s, for ceilings of the given source (measured
    // falls back to datasheet DRAM when the copy bandwidth was not measured).
    // Throws InputError when the unit has no ceiling of that source or there is no DRAM ceiling.
    double attainable(double ai, std::string_view unit, CeilingSource source = CeilingSource::Datasheet) const;

private:
    const RooflineCeiling* dramFor(CeilingSource source) const;

    std::string m_deviceName;
    std::string m_deviceId;
    std::vector<RooflineCeiling> m_memory;
    std::vector<RooflineCeiling> m_compute;
};

// A template's predicted point: its intensity only, flops / minBytes (the least traffic any
// implementation needs), with flopsPerSec = 0: a prediction has no time. Place it on a roof with
// placeOnRoof. Throws InputError when minBytes <= 0 or flops < 0.
RooflinePoint predictedPoint(std::string label, double flops, double minBytes);

// The point lifted to the attainable throughput of unit at its intensity (the best any kernel
// with that intensity can do on this device).
RooflinePoint placeOnRoof(const RooflineModel& model, RooflinePoint point, std::string_view unit,
                          CeilingSource source = CeilingSource::Datasheet);

// The compute ceiling of `unit` of that source, or the CUDA cores' FP32 where the device lists
// none for the unit; nullptr when it has neither.
const RooflineCeiling* unitRoof(const RooflineModel& model, std::string_view unit, CeilingSource source = CeilingSource::Datasheet);

// How close a run came to the roof at its own intensity: its throughput over attainable(ai, unit),
// which is the larger of two shares, its FLOP rate of the unit's peak and its byte rate of the
// DRAM bandwidth (a kernel that does no arithmetic has only the second). Each ceiling is the
// measured one where the model has it (kx calibrate), else the datasheet's. A unit the device
// does not list falls back to "fp32", the CUDA cores. nullopt when neither rate is positive or
// the device has neither ceiling.
struct RoofShare {
    double percent = 0;
    RooflineCeiling bound;   // the ceiling that binds at the run's intensity
};
std::optional<RoofShare> roofShare(const RooflineModel& model, std::string_view unit, double flopsPerSec, double bytesPerSec);

// CSV of the ceilings, ridge points and points, one row each, with the header
//   type,id,label,source,bandwidth_gbs,peak_tflops,ai_flop_per_byte,tflops
// type is memory | compute | ridge | point; source is datasheet | measured | predicted; a
// memory row fills bandwidth_gbs, a compute row peak_tflops, a ridge row ai and tflops, a point
// row ai and tflops (empty for a point not placed on a roof). Fields with commas or quotes are
// quoted. Lines end in '\n'.
std::string rooflineCsv(const RooflineModel& model, const std::vector<RooflinePoint>& points);

}  // namespace kx::engine
