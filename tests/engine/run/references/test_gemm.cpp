// The GEMM reference with gemm_mma's layouts and epilogue: the activations against their textbook
// values, and the check's verdicts on results computed the kernel's way (fp32 sums, the epilogue
// in fp32, one rounding to f16) with a brute-force loop that reads A and B in their stored order:
// every layout, activation and D0 kind passes; a wrong layout, a missing D0, a skipped activation
// or one bad element fails; cuBLASLt's output is compared only where it fuses the epilogue.
#include "run/references/gemm.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

std::vector<double> roundedTo(const std::vector<double>& v, const char* dtype) {
    return decodeValues(encodeValues(v, dtypeNamed(dtype)), dtypeNamed(dtype));
}

struct Case {
    bool aColMajor = false, bColMajor = true;
    std::string activation = "none", d0 = "none";
    double alpha = 1, beta = 1, lipschitz = 1;
};

// The kernel's arithmetic, written independently of the reference: fp32 sums over A and B read
// in their stored order, alpha, beta * D0 and the activation in fp32, one rounding to f16.
float kernelActivation(const std::string& act, float x) {
    if (act == "relu") return std::fmax(x, 0.0f);
    if (act == "gelu_tanh") return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
    if (act == "gelu_erf") return 0.5f * x * (1.0f + std::erf(x * 0.7071067812f));
    if (act == "sigmoid") return 1.0f / (1.0f + std::exp(-x));
    if (act == "tanh") return std::tanh(x);
    if (act == "silu") return x / (1.0f + std::exp(-x));
    return x;
}

CheckContext gemmContext(const Case& c, int M, int N, int K, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> A(static_cast<size_t>(M) * K), B(static_cast<size_t>(K) * N);
    std::vector<double> D0(c.d0 == "residual" ? static_cast<size_t>(M) * N : c.d0 == "bias" ? N : 1);
    for (double& v : A) v = u(rng);
    for (double& v : B) v = u(rng);
    for (double& v : D0) v = u(rng);
    A = roundedTo(A, "f16");
    B = roundedTo(B, "f16");
    D0 = roundedTo(D0, "f16");
    std::vector<double> C(static_cast<size_t>(M) * N);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0;
            for (int k = 0; k < K; ++k) {
                const double a = c.aColMajor ? A[static_cast<size_t>(k) * M + i] : A[static_cast<size_t>(i) * K + k];
                const double b = c.bColMajor ? B[static_cast<size_t>(j) * K + k] : B[static_cast<size_t>(k) * N + j];
                acc += static_cast<float>(a * b);
            }
            float x = static_cast<float>(c.alpha) * acc;
            if (c.d0 == "bias") x += static_cast<float>(c.beta * D0[j]);
            if (c.d0 == "residual") x += static_cast<float>(c.beta * D0[static_cast<size_t>(i) * N + j]);
            C[static_cast<size_t>(i) * N + j] = kernelActivation(c.activation, x);
        }
    CheckContext ctx;
    ctx.variables = {{"a_col_major", c.aColMajor}, {"b_col_major", c.bColMajor}, {"alpha_value", c.alpha},
                     {"beta_value", c.beta},       {"lipschitz", c.lipschitz}};
    ctx.choices = {{"epilogue", c.activation}, {"d0", c.d0}};
    ctx.sizes = {{"M", M}, {"N", N}, {"K", K}};
    ctx.inputs["A"] = HostArray{&dtypeNamed("f16"), A};
    ctx.inputs["B"] = HostArray{&dtypeNamed("f16"), B};
    ctx.inputs["D0"] = HostArray{&dtypeNamed("f16"), D0};
    ctx.outputs["C"] = HostArray{&dtypeNamed("f16"), roundedTo(C, "f16")};
    return ctx;
}

CorrectnessReport check(const CheckContext& ctx) {
    CorrectnessReport r;
    checkGemm(ctx, r);
    return r;
}

const std::vector<std::pair<std::string, double>> kActivations = {{"none", 1}, {"relu", 1},    {"gelu_tanh", 1.2}, {"gelu_erf", 1.2},
                                                                  {"sigmoid", 0.25}, {"tanh", 1}, {"silu", 1.1}};

}  // namespace

TEST_CASE("the GEMM epilogue's activations have their textbook values", "[reference][gemm]") {
    GemmEpilogue e;
    const auto at = [&](const char* act, double x) {
        e.activation = act;
        return e.activate(x);
    };
    CHECK(at("none", -2.5) == -2.5);
    CHECK(at("relu", -2.5) == 0);
    CHECK(at("relu", 2.5) == 2.5);
    CHECK(at("gelu_erf", 1) == Approx(0.8413447460685429).epsilon(1e-14));
    CHECK(at("gelu_tanh", 1) == Approx(0.8411919906082768).epsilon(1e-14));
    CHECK(at("sigmoid", 0) == 0.5);
    CHECK(at("tanh", 1) == Approx(0.7615941559557649).epsilon(1e-14));
    CHECK(at("silu", 2) == Approx(2 / (1 + std::exp(-2.0))).epsilon(1e-14));
    e.activation = "softplus";
    CHECK_THROWS_WITH(e.activate(1), Catch::Contains("no activation 'softplus'"));
}

TEST_CASE("checkGemm passes every layout, activation and D0 computed the kernel's way", "[reference][gemm]") {
    std::mt19937_64 rng(10);
    for (const bool aColMajor : {false, true})
        for (const bool bColMajor : {false, true})
            for (const auto& [activation, lipschitz] : kActivations)
                for (const std::string d0 : {"none", "bias", "residual"}) {
                    const Case c{aColMajor, bColMajor, activation, d0, d0 == "none" ? 1.0 : 0.5, 2.0, lipschitz};
                    INFO(aColMajor << bColMajor << " " << activation << " " << d0);
                    const CorrectnessReport r = check(gemmContext(c, 13, 11, 37, rng));
                    INFO(r.firstBadText);
                    CHECK(r.passed);
                    CHECK(r.checked == 13 * 11);
                }
}

TEST_CASE("checkGemm catches a transposed A, a missing D0, a skipped activation and one bad element", "[reference][gemm]") {
    std::mt19937_64 rng(11);
    const Case base{true, false, "gelu_erf", "residual", 1.5, 0.75, 1.2};
    SECTION("A read in the wrong order") {
        CheckContext ctx = gemmContext(base, 12, 9, 12, rng);
        ctx.variables["a_col_major"] = 0;
        CHECK_FALSE(check(ctx).passed);
    }
    SECTION("the residual left out") {
        Case noD0 = base;
        noD0.d0 = "none";
        CheckContext ctx = gemmContext(noD0, 12, 9, 40, rng);
        ctx.choices["d0"] = "residual";
        ctx.inputs["D0"].values.assign(12 * 9, 0.5);
        CHECK_FALSE(check(ctx).passed);
    }
    SECTION("the activation skipped") {
        Case linear = base;
        linear.activation = "none";
        CheckContext ctx = gemmContext(linear, 12, 9, 40, rng);
        ctx.choices["epilogue"] = "gelu_erf";
        CHECK_FALSE(check(ctx).passed);
    }
    SECTION("one element off by 0.1, ten times its tolerance") {
        CheckContext ctx = gemmContext(base, 12, 9, 40, rng);
        ctx.outputs["C"].values[5 * 9 + 4] += 0.1;
        const CorrectnessReport r = check(ctx);
        CHECK_FALSE(r.passed);
        CHECK(r.firstBadIndex == 5 * 9 + 4);
    }
}

TEST_CASE("cuBLASLt's output is compared only when it computes the same epilogue", "[reference][gemm]") {
    std::mt19937_64 rng(12);
    const auto withLt = [&](const Case& c) {
        CheckContext ctx = gemmContext(c, 10, 8, 16, rng);
        ctx.baselineOutputs["cublaslt_gemm"] = ctx.outputs["C"];
        return check(ctx);
    };
    const CorrectnessReport fused = withLt(Case{false, true, "relu", "bias", 1, 1, 1});
    CHECK(fused.baselineCompared);
    CHECK(fused.baselineAgrees);
    const CorrectnessReport scaledBias = withLt(Case{false, true, "relu", "bias", 1, 2, 1});
    CHECK_FALSE(scaledBias.baselineCompared);
    CHECK_THAT(scaledBias.method, Catch::Contains("not compared"));
    GemmEpilogue plain;
    CHECK(cublasLtComputesEpilogue(plain, "e4m3"));
    CHECK_FALSE(cublasLtComputesEpilogue(plain, "e5m2"));
    const CorrectnessReport sigmoid = withLt(Case{false, true, "sigmoid", "residual", 1, 2, 0.25});
    CHECK_FALSE(sigmoid.baselineCompared);
    const CorrectnessReport residual = withLt(Case{true, true, "gelu_tanh", "residual", 0.5, 2, 1.2});
    CHECK(residual.baselineCompared);
    CHECK(residual.baselineAgrees);
}

TEST_CASE("the GEMM tolerance follows the operands' and sums' rounding: tf32 wider, int8 exact", "[reference][gemm]") {
    std::mt19937_64 rng(13);
    const int M = 9, N = 10, K = 300;
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> A(M * K), B(K * N), C(M * N);
    for (double& v : A) v = static_cast<float>(u(rng));
    for (double& v : B) v = static_cast<float>(u(rng));
    // tf32: each operand truncated to 10 fraction bits, fp32 sums.
    const auto truncated = [](double x) {
        int e;
        const double m = std::frexp(x, &e);
        return std::ldexp(std::trunc(std::ldexp(m, 11)) / 2048, e);
    };
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0;
            for (int k = 0; k < K; ++k) acc += static_cast<float>(truncated(A[i * K + k]) * truncated(B[j * K + k]));
            C[i * N + j] = acc;
        }
    CheckContext ctx;
    ctx.variables = {{"b_col_major", 1}, {"operand_roundoff", 0x1p-10}, {"sum_roundoff", 0x1p-24}};
    ctx.sizes = {{"M", M}, {"N", N}, {"K", K}};
    ctx.inputs["A"] = HostArray{&dtypeNamed("f32"), A};
    ctx.inputs["B"] = HostArray{&dtypeNamed("f32"), B};
    ctx.outputs["C"] = HostArray{&dtypeNamed("f32"), C};
    CorrectnessReport tf32 = check(ctx);
    CHECK(tf32.passed);
    CHECK(tf32.tolerance == Approx(0x1p-24 + 2 * 0x1p-10 + 8 * std::sqrt(300.0) * 0x1p-24));
    // The same result judged as plain fp32 operands fails: truncation is far above fp32's rounding.
    ctx.variables.erase("operand_roundoff");
    ctx.variables.erase("sum_roundoff");
    CHECK_FALSE(check(ctx).passed);

    // An accumulator that keeps 12 fraction bits (Hopper's fp8 wgmma keeps about that many): exact
    // products of the same operands, the running sum truncated after every 32 of them. fp32's rules refuse it; the
    // config's accumulator_roundoff adds 4 x 2^-12 whatever K, and it passes.
    const auto truncate12 = [](double v) {
        int e = 0;
        const double m = std::frexp(v, &e);
        return std::ldexp(std::trunc(m * 0x1p13) / 0x1p13, e);
    };
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double acc = 0;
            for (int k = 0; k < K; ++k) {
                acc += A[i * K + k] * B[j * K + k];
                if (k % 32 == 31) acc = truncate12(acc);
            }
            C[i * N + j] = truncate12(acc);
        }
    ctx.outputs["C"] = HostArray{&dtypeNamed("f32"), C};
    ctx.variables["operand_roundoff"] = 0;  // exact products, as fp8's
    ctx.variables["sum_roundoff"] = 0x1p-24;
    CHECK_FALSE(check(ctx).passed);
    ctx.variables["accumulator_roundoff"] = 0x1p-12;
    const CorrectnessReport narrow = check(ctx);
    CHECK(narrow.passed);
    CHECK(narrow.tolerance == Approx(0x1p-24 + 8 * std::sqrt(300.0) * 0x1p-24 + 4 * 0x1p-12));

    // int8 -> int32: exact, one unit off fails.
    std::uniform_int_distribution<int> i8(-128, 127);
    for (double& v : A) v = i8(rng);
    for (double& v : B) v = i8(rng);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            long long s = 0;
            for (int k = 0; k < K; ++k) s += static_cast<long long>(A[i * K + k]) * static_cast<long long>(B[j * K + k]);
            C[i * N + j] = static_cast<double>(s);
        }
    CheckContext ints;
    ints.variables = {{"b_col_major", 1}, {"operand_roundoff", 0}, {"sum_roundoff", 0}};
    ints.sizes = ctx.sizes;
    ints.inputs["A"] = HostArray{&dtypeNamed("i8"), A};
    ints.inputs["B"] = HostArray{&dtypeNamed("i8"), B};
    ints.outputs["C"] = HostArray{&dtypeNamed("i32"), C};
    CHECK(check(ints).passed);
    ints.outputs["C"].values[7] += 1;
    const CorrectnessReport off = check(ints);
    CHECK_FALSE(off.passed);
    CHECK(off.firstBadIndex == 7);
}
