// Measured ceilings of a device (kx calibrate): copy bandwidth, and compute throughput per dtype
// as a library GEMM (cuBLAS) reaches it. Stored per device under the cache folder; used for "% of ceiling" and by the roofline.
#pragma once

#include "analysis/roofline.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kx::engine {

struct Calibration {
    std::string device;         // "NVIDIA H100 80GB HBM3"
    std::string measuredAt;     // ISO 8601 UTC
    double copyGBs = 0;         // device-to-device copy, bytes read + written per second / 1e9
    std::map<std::string, double> computeTflops;  // by dtype (f32, tf32, f16, bf16): cuBLAS GEMM at gemmSize^3
    int gemmSize = 0;
};

// The stored form: {"device", "measured_at", "copy_gbs", "compute_tflops", "gemm_size"}. Reading
// also takes the older "gemm_tflops" for compute_tflops. calibrationFromJson throws
// nlohmann::json::exception on a document without device, copy_gbs or either TFLOP/s key.
nlohmann::json calibrationToJson(const Calibration& calibration);
Calibration calibrationFromJson(const nlohmann::json& j);

// <cacheRoot>/calibration/<device name with spaces as '_'>.json
std::filesystem::path calibrationPath(const std::string& deviceName);

// nullopt when the device was never calibrated or the file is unreadable.
std::optional<Calibration> loadCalibration(const std::string& deviceName);

// Written to a temporary file and renamed, so a reader never sees half a file.
void saveCalibration(const Calibration& calibration);

// Every calibration stored under <cacheRoot>/calibration/ (each *.json file), sorted by device
// name then measuredAt. Unreadable or malformed files are skipped; a missing folder gives none.
std::vector<Calibration> listCalibrations();

// The roofline's measured ceilings: copyGBs as is, and each cuBLAS dtype's TFLOP/s on the unit
// it exercises (unitForGemmDtype: f32 -> "fp32", tf32 -> "tf32_tensor", f16 -> "fp16_tensor",
// bf16 -> "bf16_tensor"). Dtypes with no known unit, and figures <= 0, are left out.
RooflineCalibration rooflineCalibration(const Calibration& calibration);

}  // namespace kx::engine
