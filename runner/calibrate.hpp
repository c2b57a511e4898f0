// kx calibrate: the device's measured ceilings.
#pragma once

#include "device_context.hpp"

#include <nlohmann/json.hpp>

namespace kx::runner {

// Measures copy bandwidth (device-to-device, bytes read + written) and cuBLAS GEMM throughput
// for f32, tf32, f16 and bf16 at size^3 (request fields in PROTOCOL.md).
nlohmann::json calibrate(DeviceContext& ctx, const nlohmann::json& request);

}  // namespace kx::runner
