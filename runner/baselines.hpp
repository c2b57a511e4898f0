// Reference points timed in the same process as the kernel: cuBLAS GEMM and device copy
// bandwidth; and the device calibration built from them.
#pragma once

#include "device_context.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace kx::runner {

// request: {"kind":"cublas_gemm","dtype":"f16","b_col_major":true,"M":..,"N":..,"K":..,"output":FILE}
//       or {"kind":"copy","bytes":N}. buffers: the run's input buffers by argument name (A, B).
nlohmann::json runBaseline(DeviceContext& ctx, const nlohmann::json& request,
                           const std::map<std::string, CUdeviceptr>& buffers, int warmup, int reps);

// Measures copy bandwidth (device-to-device, bytes read + written) and cuBLAS GEMM throughput
// for f32, tf32, f16 and bf16 at size^3.
nlohmann::json calibrate(DeviceContext& ctx, const nlohmann::json& request);

}  // namespace kx::runner
