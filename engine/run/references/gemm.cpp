// GEMM: C = A * B checked in float64. Every output while M*N*K <= fullCheckOps; above it,
// sampledOutputs random outputs against float64 and every output against cuBLAS's result.
#include "run/reference.hpp"
#include "run/references/references.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace kx::engine {

namespace {

std::vector<double> absolute(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    std::transform(v.begin(), v.end(), out.begin(), [](double x) { return std::fabs(x); });
    return out;
}

// Every output against the baseline's. Both round fp32 sums, so they may differ by two
// tolerances of the per-element scale sum_k |a_ik b_kj|, bounded above (Cauchy-Schwarz) by
// ||a_i|| * ||b_j||, which costs O((M+N)K) instead of a second GEMM.
void compareWithBaseline(const std::vector<double>& A, const std::vector<double>& B, const std::vector<double>& C,
                         const std::vector<double>& base, int M, int N, int K, bool bColMajor, CorrectnessReport& r) {
    std::vector<double> rowNorm(M), colNorm(N);
    for (int i = 0; i < M; ++i) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += A[static_cast<size_t>(i) * K + k] * A[static_cast<size_t>(i) * K + k];
        rowNorm[i] = std::sqrt(s);
    }
    // In B's own order (a strided walk down each column of a row-major B misses the cache
    // at every element).
    if (bColMajor) {
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
            const double bound = std::max(rowNorm[row] * colNorm[col], 1e-30);
            const double rel = std::fabs(C[first + col] - base[first + col]) / bound;
            if (!(rel <= 2 * r.tolerance)) r.baselineAgrees = false;
            if (std::isfinite(rel)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, rel);
        }
    }
}

}  // namespace

void checkGemm(const CheckContext& ctx, CorrectnessReport& r) {
    const std::vector<double>& A = ctx.input("A").values;
    const std::vector<double>& B = ctx.input("B").values;
    const HostArray& out = ctx.output("C");
    const std::vector<double>& C = out.values;
    const int M = static_cast<int>(ctx.size("M")), N = static_cast<int>(ctx.size("N")), K = static_cast<int>(ctx.size("K"));
    const bool bColMajor = ctx.var("b_col_major") != 0;

    r.total = static_cast<long long>(M) * N;
    ElementChecker checker(r, tolerance(out.dtype->name, K));
    auto where = [&](long long idx) { return elementName("C", idx / N, idx % N); };

    if (static_cast<double>(M) * N * K <= ctx.fullCheckOps) {
        const auto absA = absolute(A), absB = absolute(B);
        std::vector<double> ref(r.total), scale(r.total);
        gemmReference(M, N, K, bColMajor, A.data(), B.data(), ref.data());
        gemmReference(M, N, K, bColMajor, absA.data(), absB.data(), scale.data());
        for (long long i = 0; i < r.total; ++i) checker.check(i, C[i], ref[i], scale[i], where(i));
        r.method = "every output against the float64 reference";
    } else {
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
            checker.check(i, C[i], value, scale, where(i));
        }
        r.method = std::to_string(ctx.sampledOutputs) + " random outputs against the float64 reference";
    }
    if (const HostArray* base = ctx.baselineOutput("cublas_gemm"); base && base->size() == C.size()) {
        compareWithBaseline(A, B, C, base->values, M, N, K, bColMajor, r);
        r.method += "; every output against cuBLAS";
    }
    checker.finish();
}

}  // namespace kx::engine
