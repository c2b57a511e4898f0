#include "run/variant_run.hpp"

#include "run/reference.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <unistd.h>

namespace kx::engine {
namespace fs = std::filesystem;

namespace {

// A private folder for the run's input and output files, removed however the run ends.
struct ScratchDir {
    fs::path path;
    ScratchDir() {
        static std::atomic<int> counter{0};
        const fs::path shm = "/dev/shm";
        std::error_code ec;
        const fs::path base = fs::is_directory(shm, ec) ? shm : fs::temp_directory_path();
        path = base / ("kx-run-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::create_directories(path);
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void writeBytes(const fs::path& p, const void* data, size_t bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw InputError("cannot write " + p.string());
}

std::string readBytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Seeded uniform values in [-1, 1), rounded to the dtype, as doubles and as the dtype's bytes.
std::vector<double> randomValues(size_t count, const std::string& dtype, std::uint64_t seed, std::string* bytes) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> values(count);
    const int size = dtype == "f16" || dtype == "bf16" ? 2 : 4;
    bytes->resize(count * static_cast<size_t>(size));
    for (size_t i = 0; i < count; ++i) {
        const double v = roundToDtype(dist(rng), dtype == "f32" || dtype == "f16" || dtype == "bf16" ? dtype : "f32");
        values[i] = v;
        if (dtype == "f16") {
            const std::uint16_t b = toHalfBits(v);
            std::memcpy(bytes->data() + 2 * i, &b, 2);
        } else if (dtype == "bf16") {
            const std::uint16_t b = toBf16Bits(v);
            std::memcpy(bytes->data() + 2 * i, &b, 2);
        } else {
            const float f = static_cast<float>(v);
            std::memcpy(bytes->data() + 4 * i, &f, 4);
        }
    }
    return values;
}

std::vector<double> decode(const std::string& bytes, const std::string& dtype) {
    std::vector<double> out;
    if (dtype == "f16" || dtype == "bf16") {
        out.resize(bytes.size() / 2);
        for (size_t i = 0; i < out.size(); ++i) {
            std::uint16_t b;
            std::memcpy(&b, bytes.data() + 2 * i, 2);
            out[i] = dtype == "f16" ? fromHalfBits(b) : fromBf16Bits(b);
        }
    } else {
        out.resize(bytes.size() / 4);
        for (size_t i = 0; i < out.size(); ++i) {
            float f;
            std::memcpy(&f, bytes.data() + 4 * i, 4);
            out[i] = f;
        }
    }
    return out;
}

// Compares got with ref element by element: |got - ref| <= tol * scale. Records the worst errors
// and the first failure.
struct Checker {
    double tol = 0;
    CorrectnessReport* report = nullptr;
    void check(long long index, double got, double ref, double scale, const std::string& where) {
        ++report->checked;
        const double err = std::fabs(got - ref);
        const double rel = err / std::max(scale, 1e-30);
        const bool ok = std::isfinite(got) ? rel <= tol : (std::isnan(got) ? false : got == ref);
        if (std::isfinite(got)) {
            report->maxAbsError = std::max(report->maxAbsError, err);
            report->maxRelError = std::max(report->maxRelError, rel);
        }
        if (!ok && report->firstBadIndex < 0) {
            report->firstBadIndex = index;
            char text[200];
            std::snprintf(text, sizeof text, "%s = %.6g (expected %.6g)", where.c_str(), got, ref);
            report->firstBadText = text;
        }
    }
};

void checkGemm(const std::vector<double>& A, const std::vector<double>& B, const std::vector<double>& C, int M, int N, int K,
               bool bColMajor, const std::string& dtype, const RunOptions& opt, const std::vector<double>* cublas,
               CorrectnessReport& r) {
    r.total = static_cast<long long>(M) * N;
    r.tolerance = tolerance(dtype, K);
    Checker checker{r.tolerance, &r};
    std::vector<double> absA(A.size()), absB(B.size());
    std::transform(A.begin(), A.end(), absA.begin(), [](double v) { return std::fabs(v); });
    std::transform(B.begin(), B.end(), absB.begin(), [](double v) { return std::fabs(v); });
    auto where = [&](long long idx) { return "C[" + std::to_string(idx / N) + "," + std::to_string(idx % N) + "]"; };

    if (static_cast<double>(M) * N * K <= opt.fullCheckMacs) {
        std::vector<double> ref(r.total), scale(r.total);
        gemmReference(M, N, K, bColMajor, A.data(), B.data(), ref.data());
        gemmReference(M, N, K, bColMajor, absA.data(), absB.data(), scale.data());
        for (long long i = 0; i < r.total; ++i) checker.check(i, C[i], ref[i], scale[i], where(i));
        r.method = "every output against the float64 reference";
    } else {
        std::mt19937_64 rng(opt.seed + 0x5eed);
        std::uniform_int_distribution<long long> pick(0, r.total - 1);
        for (int s = 0; s < kSampledOutputs; ++s) {
            const long long i = pick(rng);
            const int row = static_cast<int>(i / N), col = static_cast<int>(i % N);
            checker.check(i, C[i], gemmReferenceAt(M, N, K, bColMajor, A.data(), B.data(), row, col),
                          gemmReferenceAt(M, N, K, bColMajor, absA.data(), absB.data(), row, col), where(i));
        }
        r.method = std::to_string(kSampledOutputs) + " random outputs against the float64 reference";
    }
    r.passed = r.firstBadIndex < 0;

    if (cublas && cublas->size() == C.size()) {
        // Every output against cuBLAS. Both round fp32 sums, so they may differ by two
        // tolerances of the per-element scale sum_k |a_ik b_kj|, bounded above (Cauchy-Schwarz)
        // by ||a_i|| * ||b_j||, which costs O((M+N)K) instead of a second GEMM.
        std::vector<double> rowNorm(M), colNorm(N);
        for (int i = 0; i < M; ++i) {
            double s = 0;
            for (int k = 0; k < K; ++k) s += A[static_cast<size_t>(i) * K + k] * A[static_cast<size_t>(i) * K + k];
            rowNorm[i] = std::sqrt(s);
        }
        for (int j = 0; j < N; ++j) {
            double s = 0;
            for (int k = 0; k < K; ++k) {
                const double b = bColMajor ? B[static_cast<size_t>(j) * K + k] : B[static_cast<size_t>(k) * N + j];
                s += b * b;
            }
            colNorm[j] = std::sqrt(s);
        }
        r.baselineCompared = true;
        r.baselineAgrees = true;
        for (long long i = 0; i < r.total; ++i) {
            const double bound = std::max(rowNorm[i / N] * colNorm[i % N], 1e-30);
            const double rel = std::fabs(C[i] - (*cublas)[i]) / bound;
            if (!(rel <= 2 * r.tolerance)) r.baselineAgrees = false;
            if (std::isfinite(rel)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, rel);
        }
        r.method += "; every output against cuBLAS";
        r.passed = r.passed && r.baselineAgrees;
    }
}

void checkReduce(const std::vector<double>& data, double got, bool isMax, CorrectnessReport& r) {
    r.total = 1;
    const double ref = reduceReference(isMax, data.data(), data.size());
    double scale = std::fabs(ref);
    if (!isMax) {
        std::vector<double> absData(data.size());
        std::transform(data.begin(), data.end(), absData.begin(), [](double v) { return std::fabs(v); });
        scale = reduceReference(false, absData.data(), absData.size());
    }
    // The output is one fp32 number accumulated from n terms.
    r.tolerance = tolerance("f32", static_cast<int>(std::min<size_t>(data.size(), 1u << 30)));
    Checker{r.tolerance, &r}.check(0, got, ref, scale, "out[0]");
    r.passed = r.firstBadIndex < 0;
    r.method = "the result against the float64 reference over all " + std::to_string(data.size()) + " inputs";
}

}  // namespace

std::pair<std::string, int> dtypeOfCType(const std::string& ctype) {
    if (ctype == "float") return {"f32", 4};
    if (ctype == "__half") return {"f16", 2};
    if (ctype == "__nv_bfloat16") return {"bf16", 2};
    if (ctype == "int") return {"i32", 4};
    if (ctype == "unsigned int" || ctype == "unsigned") return {"u32", 4};
    if (ctype == "double") return {"f64", 8};
    throw InputError("the runner cannot fill arguments of type '" + ctype + "'");
}

nlohmann::json listDevices(RunnerClient& runner) { return runner.request({{"cmd", "devices"}}, 60); }

RunReport runVariant(RunnerClient& runner, const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes,
                     const CompileResult& compiled, const RunOptions& opt) {
    RunReport report;
    report.variant = tmpl.configName(config);
    report.sizes = sizes;
    try {
        if (!compiled.ok) throw InputError("the variant did not compile");
        const auto vars = tmpl.variables(config, arch, sizes);
        const std::vector<ResolvedArg> args = tmpl.resolveArgs(config, arch, sizes);
        const LaunchGeometry launch = tmpl.launch(config, arch, sizes);
        report.flops = tmpl.flops(config, arch, sizes);
        report.bytes = tmpl.minBytes(config, arch, sizes);

        auto stage = [&](const char* text) {
            if (opt.onStage) opt.onStage(text);
        };
        stage("preparing inputs");
        ScratchDir dir;
        const fs::path module = dir.path / (compiled.cubin.empty() ? "kernel.ptx" : "kernel.cubin");
        const std::string& image = compiled.cubin.empty() ? compiled.ptx : compiled.cubin;
        writeBytes(module, image.data(), image.size());

        std::map<std::string, std::vector<double>> inputs;
        std::map<std::string, std::string> dtypes;
        nlohmann::json jsonArgs = nlohmann::json::array();
        long long inputBytes = 0;
        for (size_t i = 0; i < args.size(); ++i) {
            const ResolvedArg& a = args[i];
            if (a.role == "size") {
                jsonArgs.push_back({{"name", a.name}, {"role", "size"}, {"value", a.count}});
                continue;
            }
            const auto [dtype, elemBytes] = dtypeOfCType(a.type);
            dtypes[a.name] = dtype;
            nlohmann::json j = {{"name", a.name}, {"role", a.role}, {"elem_bytes", elemBytes}, {"count", a.count}};
            const fs::path file = dir.path / (a.name + ".bin");
            if (a.role == "in" || a.role == "inout") {
                std::string bytes;
                inputs[a.name] = randomValues(static_cast<size_t>(a.count), dtype, opt.seed * 1000003 + i, &bytes);
                writeBytes(file, bytes.data(), bytes.size());
                inputBytes += static_cast<long long>(bytes.size());
            }
            if (a.role != "scratch") j["file"] = file.string();
            jsonArgs.push_back(j);
        }

        nlohmann::json request = {{"cmd", "run"},
                                  {"device", opt.device},
                                  {"module", module.string()},
                                  {"kernel", report.variant},
                                  {"grid", {launch.grid[0], launch.grid[1], launch.grid[2]}},
                                  {"block", {launch.block[0], launch.block[1], launch.block[2]}},
                                  {"dynamic_smem", launch.dynamicSmemBytes},
                                  {"args", jsonArgs},
                                  {"warmup", opt.warmup},
                                  {"reps", opt.reps},
                                  {"rotate", "auto"}};
        const std::string ref = tmpl.manifest().referenceName;
        const fs::path baselineFile = dir.path / "baseline.bin";
        if (opt.baseline && ref == "gemm") {
            request["baseline"] = {{"kind", "cublas_gemm"}, {"dtype", dtypes.at("A")}, {"b_col_major", vars.at("b_col_major") != 0},
                                   {"M", sizes.at("M")}, {"N", sizes.at("N")}, {"K", sizes.at("K")}, {"output", baselineFile.string()}};
        } else if (opt.baseline) {
            request["baseline"] = {{"kind", "copy"}, {"bytes", std::max<long long>(inputBytes, 4)}};
            if (ref == "reduce" && dtypes.count("in") && config.values.count("op"))
                request["library_baseline"] = {{"kind", "cub_reduce"}, {"dtype", dtypes.at("in")}, {"op", config.values.at("op")},
                                               {"n", sizes.at("n")}};
        }

        stage("running on the GPU");
        const nlohmann::json reply = runner.request(request, opt.timeoutSeconds);
        if (!reply.value("ok", false)) {
            report.error = reply.value("error", std::string("the runner failed"));
            return report;
        }
        const nlohmann::json& dev = reply.at("device");
        report.deviceName = dev.value("name", "");
        report.deviceArch = dev.value("arch", "");
        const nlohmann::json& t = reply.at("timing");
        report.medianMs = t.at("median_ms");
        report.minMs = t.at("min_ms");
        report.maxMs = t.at("max_ms");
        report.reps = reply.value("reps", 0);
        report.rotationSets = reply.value("rotation_sets", 1);
        report.registers = reply.value("registers", 0);
        report.driverBlocksPerSm = reply.value("driver_blocks_per_sm", 0);
        const double seconds = report.medianMs * 1e-3;
        report.tflops = report.flops / seconds / 1e12;
        report.gbps = report.bytes / seconds / 1e9;

        // A baseline's time against the kernel's; GEMM's in TFLOP/s of the same work, the
        // others in the GB/s the runner measured.
        auto baselineOf = [&](const nlohmann::json& b, bool gemm) {
            BaselineReport base;
            base.name = b.value("name", "");
            base.medianMs = b.at("timing").at("median_ms");
            base.speedup = base.medianMs / report.medianMs;
            if (gemm) base.tflops = report.flops / (base.medianMs * 1e-3) / 1e12;
            else base.gbps = b.value("gbps", 0.0);
            return base;
        };
        if (reply.contains("baseline")) report.baseline = baselineOf(reply["baseline"], ref == "gemm");
        if (reply.contains("library_baseline")) {
            const nlohmann::json& b = reply["library_baseline"];
            if (b.contains("error")) report.libraryBaselineError = b.value("error", "");
            else report.libraryBaseline = baselineOf(b, false);
        }
        if (auto cal = loadCalibration(report.deviceName)) {
            report.pctOfCopyBandwidth = 100.0 * report.gbps / cal->copyGBs;
            if (ref == "gemm" && dtypes.count("A") && cal->gemmTflops.count(dtypes.at("A")))
                report.pctOfCublasPeak = 100.0 * report.tflops / cal->gemmTflops.at(dtypes.at("A"));
        }

        // Correctness against the float64 reference.
        stage("checking against float64");
        if (ref == "gemm") {
            const std::string dtype = dtypes.at("C");
            const auto C = decode(readBytes(dir.path / "C.bin"), dtype);
            std::vector<double> cublas;
            if (report.baseline && fs::exists(baselineFile)) cublas = decode(readBytes(baselineFile), dtype);
            checkGemm(inputs.at("A"), inputs.at("B"), C, static_cast<int>(sizes.at("M")), static_cast<int>(sizes.at("N")),
                      static_cast<int>(sizes.at("K")), vars.at("b_col_major") != 0, dtype, opt, cublas.empty() ? nullptr : &cublas,
                      report.correctness);
        } else if (ref == "reduce") {
            const auto out = decode(readBytes(dir.path / "out.bin"), dtypes.at("out"));
            if (out.empty()) throw InputError("the runner returned no output");
            checkReduce(inputs.at("in"), out[0], vars.at("is_max") != 0, report.correctness);
        } else {
            report.correctness.method = "no CPU reference for this template";
        }
        report.ok = true;
    } catch (const std::exception& e) {
        report.ok = false;
        report.error = e.what();
    }
    return report;
}

RunReport runPlantedFault(RunnerClient& runner, const std::string& kind, double timeoutSeconds) {
    if (kind != "out_of_bounds" && kind != "trap" && kind != "hang")
        throw InputError("unknown planted fault '" + kind + "' (out_of_bounds, trap or hang)");
    RunReport report;
    report.variant = kPlantedFaultPrefix + kind;
    const nlohmann::json reply = runner.request({{"cmd", "fault"}, {"kind", kind}}, timeoutSeconds);
    report.ok = reply.value("ok", false);
    report.error = report.ok ? std::string("the planted kernel did not fault") : reply.value("error", std::string("the runner failed"));
    return report;
}

}  // namespace kx::engine
