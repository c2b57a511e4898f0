#include "calibrate.hpp"

#include "baselines/baseline.hpp"
#include "baselines/cublas_gemm.hpp"
#include "timing.hpp"

#include <cstring>
#include <random>
#include <vector>

namespace kx::runner {
namespace {

// Uniform values in [-1, 1) in the dtype's bits: f16/bf16 built from fp32 by truncation of
// exactly representable values (multiples of 2^-8), so no rounding code is needed here.
std::vector<char> randomMatrix(size_t count, const std::string& dtype, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(-256, 255);
    std::vector<char> bytes(count * gemmElemBytes(dtype));
    for (size_t i = 0; i < count; ++i) {
        const float v = static_cast<float>(dist(rng)) / 256.0f;
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        if (dtype == "bf16") {
            const uint16_t b = static_cast<uint16_t>(bits >> 16);
            std::memcpy(&bytes[2 * i], &b, 2);
        } else if (dtype == "f16") {
            // v = m * 2^-8 with |m| <= 256: exact in half. Build the half from the float's fields.
            uint16_t h = 0;
            if (v != 0.0f) {
                const uint32_t sign = bits >> 31;
                const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
                const uint32_t mantissa = (bits >> 13) & 0x3ff;
                h = static_cast<uint16_t>((sign << 15) | (static_cast<uint32_t>(exponent) << 10) | mantissa);
            }
            std::memcpy(&bytes[2 * i], &h, 2);
        } else {
            std::memcpy(&bytes[4 * i], &v, 4);
        }
    }
    return bytes;
}

}  // namespace

nlohmann::json calibrate(DeviceContext& ctx, const nlohmann::json& req) {
    const CudaDriver& d = ctx.driver();
    const int reps = req.value("reps", 20);
    const size_t copyBytes = req.value("copy_bytes", static_cast<size_t>(1) << 30);
    const int size = req.value("gemm_size", 8192);
    nlohmann::json result = {{"ok", true}, {"device", ctx.info().toJson()}};

    {
        DeviceBuffer src(ctx, copyBytes), dst(ctx, copyBytes);
        ctx.check(d.cuMemsetD8(src.ptr, 1, copyBytes), "filling the copy source");
        const nlohmann::json t = timeCalls(ctx, 3, reps, nullptr, [&](int) { ctx.check(d.cuMemcpyDtoD(dst.ptr, src.ptr, copyBytes), "copying"); });
        result["copy"] = {{"bytes", copyBytes}, {"median_ms", t["median_ms"]}, {"gbps", 2.0 * copyBytes / (t["median_ms"].get<double>() * 1e-3) / 1e9}};
    }
    Cublas blas;
    nlohmann::json gemm = nlohmann::json::object();
    for (const std::string dtype : {"f32", "tf32", "f16", "bf16"}) {
        const std::string storage = dtype == "tf32" ? "f32" : dtype;
        const size_t count = static_cast<size_t>(size) * size;
        DeviceBuffer a(ctx, count * gemmElemBytes(storage)), b(ctx, count * gemmElemBytes(storage)), c(ctx, count * gemmElemBytes(storage));
        const auto hostA = randomMatrix(count, storage, 1), hostB = randomMatrix(count, storage, 2);
        ctx.check(d.cuMemcpyHtoD(a.ptr, hostA.data(), hostA.size()), "uploading A");
        ctx.check(d.cuMemcpyHtoD(b.ptr, hostB.data(), hostB.size()), "uploading B");
        GemmShape s{dtype, true, size, size, size};
        const nlohmann::json t = timeCalls(ctx, 3, reps, nullptr, [&](int) { cublasGemm(blas, s, a.ptr, b.ptr, c.ptr); });
        const double tflops = 2.0 * size * size * static_cast<double>(size) / (t["median_ms"].get<double>() * 1e-3) / 1e12;
        gemm[dtype] = {{"size", size}, {"median_ms", t["median_ms"]}, {"tflops", tflops}};
    }
    result["cublas_gemm"] = gemm;
    return result;
}

}  // namespace kx::runner
