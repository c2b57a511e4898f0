#include "baselines.hpp"

#include "cub_reduce.hpp"

#include "kernel_run.hpp"

#include <cublas_v2.h>

#include <cstring>
#include <fstream>
#include <random>
#include <vector>

namespace kx::runner {
namespace {

struct Events {
    const CudaDriver& d;
    std::vector<CUevent> events;
    ~Events() {
        for (CUevent e : events) d.cuEventDestroy(e);
    }
};

// Times fn() reps times after warm-up, one event pair per call, on the default stream.
template <typename Fn>
nlohmann::json timeCalls(DeviceContext& ctx, int warmup, int reps, Fn fn) {
    const CudaDriver& d = ctx.driver();
    for (int i = 0; i < warmup; ++i) fn();
    Events ev{d, {}};
    ev.events.resize(static_cast<size_t>(2 * reps));
    for (CUevent& e : ev.events) ctx.check(d.cuEventCreate(&e, CU_EVENT_DEFAULT), "creating events");
    for (int i = 0; i < reps; ++i) {
        ctx.check(d.cuEventRecord(ev.events[2 * i], nullptr), "recording an event");
        fn();
        ctx.check(d.cuEventRecord(ev.events[2 * i + 1], nullptr), "recording an event");
    }
    ctx.check(d.cuEventSynchronize(ev.events.back()), "timing the baseline");
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        float ms = 0;
        ctx.check(d.cuEventElapsedTime(&ms, ev.events[2 * i], ev.events[2 * i + 1]), "reading the timer");
        times.push_back(ms);
    }
    return timingSummary(times);
}

struct Cublas {
    cublasHandle_t handle = nullptr;
    Cublas() {
        if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw RunnerError("cuBLAS could not start", false);
    }
    ~Cublas() {
        if (handle) cublasDestroy(handle);
    }
};

struct GemmShape {
    std::string dtype;  // f32, tf32, f16, bf16
    bool bColMajor = true;
    int M = 0, N = 0, K = 0;
};

// C (row-major M x N) = A (row-major M x K) * B, with fp32 accumulation. cuBLAS is column-major,
// so it computes C^T = B^T A^T: a row-major matrix is its transpose in column-major order.
void cublasGemm(const Cublas& blas, const GemmShape& s, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C) {
    cudaDataType type = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    if (s.dtype == "f16") type = CUDA_R_16F;
    else if (s.dtype == "bf16") type = CUDA_R_16BF;
    else if (s.dtype == "tf32") compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    else if (s.dtype != "f32") throw RunnerError("cuBLAS baseline: unknown dtype '" + s.dtype + "'", false);
    const float alpha = 1.0f, beta = 0.0f;
    const cublasStatus_t status = cublasGemmEx(
        blas.handle, s.bColMajor ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &alpha,
        reinterpret_cast<const void*>(B), type, s.bColMajor ? s.K : s.N, reinterpret_cast<const void*>(A), type, s.K, &beta,
        reinterpret_cast<void*>(C), type, s.N, compute, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
        throw RunnerError(std::string("cuBLAS GEMM failed: ") + cublasGetStatusString(status), false);
}

size_t elemBytes(const std::string& dtype) { return dtype == "f16" || dtype == "bf16" ? 2 : 4; }

struct DeviceBuffer {
    const CudaDriver& d;
    CUdeviceptr ptr = 0;
    DeviceBuffer(DeviceContext& ctx, size_t bytes) : d(ctx.driver()) {
        ctx.check(d.cuMemAlloc(&ptr, bytes), "allocating " + std::to_string(bytes) + " bytes");
    }
    ~DeviceBuffer() {
        if (ptr) d.cuMemFree(ptr);
    }
};

// Uniform values in [-1, 1) in the dtype's bits: f16/bf16 built from fp32 by truncation of
// exactly representable values (multiples of 2^-8), so no rounding code is needed here.
std::vector<char> randomMatrix(size_t count, const std::string& dtype, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(-256, 255);
    std::vector<char> bytes(count * elemBytes(dtype));
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

nlohmann::json runBaseline(DeviceContext& ctx, const nlohmann::json& req, const std::map<std::string, CUdeviceptr>& buffers,
                           int warmup, int reps) {
    const CudaDriver& d = ctx.driver();
    const std::string kind = req.at("kind");
    if (kind == "cublas_gemm") {
        GemmShape s{req.at("dtype"), req.at("b_col_major"), req.at("M"), req.at("N"), req.at("K")};
        auto a = buffers.find("A"), b = buffers.find("B");
        if (a == buffers.end() || b == buffers.end()) throw RunnerError("cuBLAS baseline needs buffers A and B", false);
        const size_t cBytes = static_cast<size_t>(s.M) * s.N * elemBytes(s.dtype);
        DeviceBuffer c(ctx, cBytes);
        Cublas blas;
        cublasGemm(blas, s, a->second, b->second, c.ptr);
        ctx.check(d.cuCtxSynchronize(), "running cuBLAS");
        nlohmann::json out = {{"name", "cuBLAS " + s.dtype + (s.bColMajor ? " (B transposed)" : "")},
                              {"timing", timeCalls(ctx, warmup, reps, [&] { cublasGemm(blas, s, a->second, b->second, c.ptr); })}};
        if (req.contains("output")) {
            std::vector<char> host(cBytes);
            ctx.check(d.cuMemcpyDtoH(host.data(), c.ptr, cBytes), "downloading cuBLAS's result");
            std::ofstream(req["output"].get<std::string>(), std::ios::binary).write(host.data(), static_cast<std::streamsize>(cBytes));
            out["output"] = req["output"];
        }
        return out;
    }
    if (kind == "copy") {
        const size_t bytes = req.at("bytes");
        DeviceBuffer src(ctx, bytes), dst(ctx, bytes);
        ctx.check(d.cuMemsetD8(src.ptr, 1, bytes), "filling the copy source");
        nlohmann::json timing = timeCalls(ctx, warmup, reps, [&] { ctx.check(d.cuMemcpyDtoD(dst.ptr, src.ptr, bytes), "copying"); });
        const double seconds = timing["median_ms"].get<double>() * 1e-3;
        return {{"name", "device copy"}, {"timing", timing}, {"bytes_moved", 2 * bytes}, {"gbps", 2.0 * bytes / seconds / 1e9}};
    }
    if (kind == "cub_reduce") {
        const std::string dtype = req.at("dtype"), op = req.at("op");
        const size_t n = req.at("n");
        auto in = buffers.find("in");
        if (in == buffers.end()) throw RunnerError("the CUB baseline needs the buffer 'in'", false);
        std::string error;
        const size_t tempBytes = cubReduceTempBytes(dtype, op, n, &error);
        if (!error.empty()) throw RunnerError(error, false);
        DeviceBuffer out(ctx, sizeof(float)), temp(ctx, std::max<size_t>(tempBytes, 1));
        auto launch = [&] {
            if (std::string e = cubReduce(dtype, op, in->second, out.ptr, n, temp.ptr, tempBytes); !e.empty()) throw RunnerError(e, true);
        };
        launch();
        ctx.check(d.cuCtxSynchronize(), "running CUB DeviceReduce");
        nlohmann::json timing = timeCalls(ctx, warmup, reps, launch);
        const double seconds = timing["median_ms"].get<double>() * 1e-3;
        const double bytes = static_cast<double>(n) * elemBytes(dtype);
        return {{"name", "CUB DeviceReduce " + dtype + " " + op}, {"timing", timing}, {"gbps", bytes / seconds / 1e9}};
    }
    throw RunnerError("unknown baseline kind '" + kind + "'", false);
}

nlohmann::json calibrate(DeviceContext& ctx, const nlohmann::json& req) {
    const CudaDriver& d = ctx.driver();
    const int reps = req.value("reps", 20);
    const size_t copyBytes = req.value("copy_bytes", static_cast<size_t>(1) << 30);
    const int size = req.value("gemm_size", 8192);
    nlohmann::json result = {{"ok", true}, {"device", ctx.info().toJson()}};

    {
        DeviceBuffer src(ctx, copyBytes), dst(ctx, copyBytes);
        ctx.check(d.cuMemsetD8(src.ptr, 1, copyBytes), "filling the copy source");
        const nlohmann::json t = timeCalls(ctx, 3, reps, [&] { ctx.check(d.cuMemcpyDtoD(dst.ptr, src.ptr, copyBytes), "copying"); });
        result["copy"] = {{"bytes", copyBytes}, {"median_ms", t["median_ms"]}, {"gbps", 2.0 * copyBytes / (t["median_ms"].get<double>() * 1e-3) / 1e9}};
    }
    Cublas blas;
    nlohmann::json gemm = nlohmann::json::object();
    for (const std::string dtype : {"f32", "tf32", "f16", "bf16"}) {
        const std::string storage = dtype == "tf32" ? "f32" : dtype;
        const size_t count = static_cast<size_t>(size) * size;
        DeviceBuffer a(ctx, count * elemBytes(storage)), b(ctx, count * elemBytes(storage)), c(ctx, count * elemBytes(storage));
        const auto hostA = randomMatrix(count, storage, 1), hostB = randomMatrix(count, storage, 2);
        ctx.check(d.cuMemcpyHtoD(a.ptr, hostA.data(), hostA.size()), "uploading A");
        ctx.check(d.cuMemcpyHtoD(b.ptr, hostB.data(), hostB.size()), "uploading B");
        GemmShape s{dtype, true, size, size, size};
        const nlohmann::json t = timeCalls(ctx, 3, reps, [&] { cublasGemm(blas, s, a.ptr, b.ptr, c.ptr); });
        const double tflops = 2.0 * size * size * static_cast<double>(size) / (t["median_ms"].get<double>() * 1e-3) / 1e12;
        gemm[dtype] = {{"size", size}, {"median_ms", t["median_ms"]}, {"tflops", tflops}};
    }
    result["cublas_gemm"] = gemm;
    return result;
}

}  // namespace kx::runner
