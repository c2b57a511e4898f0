// GEMM: C = act(alpha * A*B + beta * D0) checked in float64 (references/gemm.hpp). Every output
// while M*N*K <= fullCheckOps; above it, sampledOutputs random outputs against float64 and every
// output against cuBLAS's result.
#include "run/references/gemm.hpp"

#include "run/reference.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace kx::engine {

// [SECTION] The epilogue

double GemmEpilogue::d0At(long long row, long long col, long long N) const {
    if (d0 == "bias") return (*d0Values)[static_cast<std::size_t>(col)];
    if (d0 == "residual") return (*d0Values)[static_cast<std::size_t>(row * N + col)];
    return 0;
}

double GemmEpilogue::activate(double x) const {
    if (activation == "none") return x;
    if (activation == "relu") return std::max(x, 0.0);
    if (activation == "gelu_tanh") return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    if (activation == "gelu_erf") return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    if (activation == "sigmoid") return 1 / (1 + std::exp(-x));
    if (activation == "tanh") return std::tanh(x);
    if (activation == "silu") return x / (1 + std::exp(-x));
    throw InputError("the GEMM reference has no activation '" + activation + "'");
}

double GemmEpilogue::scale(double productScale, double d, double output) const {
    const double carried = lipschitz * (std::fabs(alpha) * productScale + std::fabs(beta * d));
    return activation == "none" ? carried : carried + std::fabs(output);
}

GemmEpilogue gemmEpilogueOf(const CheckContext& ctx) {
    GemmEpilogue e;
    if (const auto it = ctx.choices.find("epilogue"); it != ctx.choices.end()) e.activation = it->second;
    if (const auto it = ctx.choices.find("d0"); it != ctx.choices.end()) e.d0 = it->second;
    if (ctx.variables.count("alpha_value")) e.alpha = ctx.var("alpha_value");
    if (ctx.variables.count("beta_value")) e.beta = ctx.var("beta_value");
    if (ctx.variables.count("lipschitz")) e.lipschitz = ctx.var("lipschitz");
    if (e.d0 != "none") {
        if (e.d0 != "bias" && e.d0 != "residual") throw InputError("the GEMM reference has no D0 kind '" + e.d0 + "'");
        e.d0Values = &ctx.input("D0").values;
    }
    e.activate(0);  // an unknown activation is refused before any output is judged
    return e;
}

bool cublasLtComputesEpilogue(const GemmEpilogue& e, const std::string& operandDtype) {
    const bool activationFused = e.activation == "none" || e.activation == "relu" || e.activation == "gelu_tanh";
    return activationFused && !(e.d0 == "bias" && e.beta != 1 && e.beta != 0) && operandDtype != "e5m2";
}

namespace {

// [SECTION] Checks

// tolerance(dtype, K) (run/reference.hpp), or, when the config states how its operands and sums
// round (gemm_mma's operand_roundoff, sum_roundoff), u(C) + 2 operand_roundoff (each product's
// two operands, tf32's truncation) + 8 sqrt(K) sum_roundoff, + 4 accumulator_roundoff when the
// config names one: tensor cores whose accumulator keeps fewer bits than fp32 (Hopper's fp8
// wgmma, measured at about 2^-13 of the terms' scale whatever K) err by that much at any depth.
// Integer outputs are exact: 0.
double gemmTolerance(const CheckContext& ctx, const DtypeInfo& out, int K) {
    if (out.kind != DtypeKind::Float) return 0;
    if (!ctx.variables.count("operand_roundoff") || !ctx.variables.count("sum_roundoff")) return tolerance(out.name, K);
    const double accumulator = ctx.variables.count("accumulator_roundoff") ? ctx.var("accumulator_roundoff") : 0.0;
    return out.unitRoundoff + 2 * ctx.var("operand_roundoff") + 8 * std::sqrt(std::max(K, 1)) * ctx.var("sum_roundoff") + 4 * accumulator;
}

std::vector<double> absolute(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    std::transform(v.begin(), v.end(), out.begin(), [](double x) { return std::fabs(x); });
    return out;
}

// A stored K x M (column-major) as the row-major M x K the reference functions take.
std::vector<double> rowMajorA(const std::vector<double>& A, int M, int K) {
    std::vector<double> out(A.size());
    for (int k = 0; k < K; ++k)
        for (int i = 0; i < M; ++i) out[static_cast<size_t>(i) * K + k] = A[static_cast<size_t>(k) * M + i];
    return out;
}

struct GemmProblem {
    const std::vector<double>& A;  // row-major M x K
    const std::vector<double>& B;
    int M, N, K;
    bool bColMajor;
    const GemmEpilogue& epilogue;
};

// Every output against the baseline's. Both round fp32 sums, so they may differ by two
// tolerances of the per-element scale, whose product part sum_k |a_ik b_kj| is bounded above
// (Cauchy-Schwarz) by ||a_i|| * ||b_j||, which costs O((M+N)K) instead of a second GEMM.
void compareWithBaseline(const GemmProblem& p, const std::vector<double>& C, const std::vector<double>& base, CorrectnessReport& r) {
    const std::vector<double>&A = p.A, &B = p.B;
    const int M = p.M, N = p.N, K = p.K;
    std::vector<double> rowNorm(M), colNorm(N);
    for (int i = 0; i < M; ++i) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += A[static_cast<size_t>(i) * K + k] * A[static_cast<size_t>(i) * K + k];
        rowNorm[i] = std::sqrt(s);
    }
    // In B's own order (a strided walk down each column of a row-major B misses the cache
    // at every element).
    if (p.bColMajor) {
        for (int j = 0; j < N; ++j) {
            double s = 0;
            for (int k = 0; k < K; ++k) s += B[static_cast<size_t>(j) * K + k] * B[static_cast<size_t>(j) * K + k];
            colNorm[j] = s;
        }
    } else {
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < N; ++j) colNorm[j] += B[static_cast<size_t>(k) * N + j] * B[static_cast<size_t>(k) * N + j];
    }
    for (double& c : colNorm) c = std::sqrt(c);
    r.baselineCompared = true;
    r.baselineAgrees = true;
    for (int row = 0; row < M; ++row) {
        const size_t first = static_cast<size_t>(row) * N;
        for (int col = 0; col < N; ++col) {
            const double d = p.epilogue.d0At(row, col, N);
            const double bound = std::max(p.epilogue.scale(rowNorm[row] * colNorm[col], d, base[first + col]), 1e-30);
            const double rel = std::fabs(C[first + col] - base[first + col]) / bound;
            if (!(rel <= 2 * r.tolerance)) r.baselineAgrees = false;
            if (std::isfinite(rel)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, rel);
        }
    }
}

void checkEveryOutput(const GemmProblem& p, const std::vector<double>& C, ElementChecker& checker, CorrectnessReport& r) {
    const std::vector<double>&A = p.A, &B = p.B;
    const int M = p.M, N = p.N, K = p.K;
    const bool bColMajor = p.bColMajor;
    const GemmEpilogue& epilogue = p.epilogue;
    const auto absA = absolute(A), absB = absolute(B);
    std::vector<double> ref(r.total), scale(r.total);
    gemmReference(M, N, K, bColMajor, A.data(), B.data(), ref.data());
    gemmReference(M, N, K, bColMajor, absA.data(), absB.data(), scale.data());
    for (long long i = 0; i < r.total; ++i) {
        const double d = epilogue.d0At(i / N, i % N, N);
        const double want = epilogue.apply(ref[i], d);
        checker.check(i, C[i], want, epilogue.scale(scale[i], d, want), [&] { return elementName("C", i / N, i % N); });
    }
    r.method = "every output against the float64 reference";
}

void checkSampledOutputs(const CheckContext& ctx, const GemmProblem& p, const std::vector<double>& C, ElementChecker& checker,
                         CorrectnessReport& r) {
    const std::vector<double>&A = p.A, &B = p.B;
    const int N = p.N, K = p.K;
    const bool bColMajor = p.bColMajor;
    const GemmEpilogue& epilogue = p.epilogue;
    std::mt19937_64 rng(ctx.seed + 0x5eed);
    std::uniform_int_distribution<long long> pick(0, r.total - 1);
    for (int s = 0; s < ctx.sampledOutputs; ++s) {
        const long long i = pick(rng);
        const int row = static_cast<int>(i / N), col = static_cast<int>(i % N);
        // The value and its scale sum_k |a_ik b_kj| in one pass over the row and column.
        const double* a = A.data() + static_cast<size_t>(row) * K;
        double value = 0, scale = 0;
        for (int k = 0; k < K; ++k) {
            const double term = a[k] * (bColMajor ? B[static_cast<size_t>(col) * K + k] : B[static_cast<size_t>(k) * N + col]);
            value += term;
            scale += std::fabs(term);
        }
        const double d = epilogue.d0At(row, col, N);
        const double want = epilogue.apply(value, d);
        checker.check(i, C[i], want, epilogue.scale(scale, d, want), [&] { return elementName("C", row, col); });
    }
    r.method = std::to_string(ctx.sampledOutputs) + " random outputs against the float64 reference";
}

}  // namespace

void checkGemm(const CheckContext& ctx, CorrectnessReport& r) {
    const int M = static_cast<int>(ctx.size("M")), N = static_cast<int>(ctx.size("N")), K = static_cast<int>(ctx.size("K"));
    const bool aColMajor = ctx.variables.count("a_col_major") && ctx.var("a_col_major") != 0;
    std::vector<double> transposedA;
    if (aColMajor) transposedA = rowMajorA(ctx.input("A").values, M, K);
    const GemmEpilogue epilogue = gemmEpilogueOf(ctx);
    const GemmProblem p{aColMajor ? transposedA : ctx.input("A").values, ctx.input("B").values, M, N, K, ctx.var("b_col_major") != 0,
                        epilogue};
    const HostArray& out = ctx.output("C");
    const std::vector<double>& C = out.values;

    r.total = static_cast<long long>(M) * N;
    ElementChecker checker(r, gemmTolerance(ctx, *out.dtype, K));
    if (static_cast<double>(M) * N * K <= ctx.fullCheckOps) checkEveryOutput(p, C, checker, r);
    else checkSampledOutputs(ctx, p, C, checker, r);

    if (const HostArray* base = ctx.baselineOutput("cublas_gemm"); base && base->size() == C.size()) {
        compareWithBaseline(p, C, base->values, r);
        r.method += "; every output against cuBLAS";
    } else if (const HostArray* lt = ctx.baselineOutput("cublaslt_gemm"); lt && lt->size() == C.size()) {
        if (cublasLtComputesEpilogue(epilogue, std::string(ctx.input("A").dtype->name))) {
            compareWithBaseline(p, C, lt->values, r);
            r.method += "; every output against cuBLASLt";
        } else {
            r.method += "; cuBLASLt does not compute this epilogue or type, so its output is not compared";
        }
    }
    checker.finish();
}

}  // namespace kx::engine
