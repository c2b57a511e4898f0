// LayerNorm + Linear: every output against float64 while M*N*K is small; past fullCheckOps, a
// seeded sample of outputs against float64 and every output against the unfused baseline.
//
// Tolerance. The kernel rounds each normalised element to the storage type before the tensor
// cores (relative u each), then sums K exact products in fp32: tolerance(dtype, K) + u of the
// terms' magnitude sum_k |n_k W_jk| covers both (the statistics' fp32 error is far below u).
// Folded (ln_linear_wgmma's NORM=folded: rstd (X (gamma W)^T - mean c) + d), the rounded terms
// are gamma_k W_jk, each times rstd x_k, so the magnitude is sum_k (rstd |x_k| gamma_k + |beta_k|)
// |W_jk|: larger than the normalised terms' where a row's mean is large against its spread.
#include "run/references/ln_linear.hpp"

#include "run/reference.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace kx::engine {

namespace {

struct RowStats {
    double mean, rstd;
};

RowStats rowStats(const double* x, long long K, double eps) {
    double mean = 0;
    for (long long k = 0; k < K; ++k) mean += x[k];
    mean /= static_cast<double>(K);
    double squares = 0;
    for (long long k = 0; k < K; ++k) squares += (x[k] - mean) * (x[k] - mean);
    return {mean, 1 / std::sqrt(squares / static_cast<double>(K) + eps)};
}

}  // namespace

std::vector<double> layerNormRow(const double* x, long long K, const double* gamma, const double* beta, double eps) {
    const auto [mean, rstd] = rowStats(x, K, eps);
    std::vector<double> n(static_cast<std::size_t>(K));
    for (long long k = 0; k < K; ++k) n[static_cast<std::size_t>(k)] = (x[k] - mean) * rstd * gamma[k] + beta[k];
    return n;
}

void checkLnLinear(const CheckContext& ctx, CorrectnessReport& r) {
    const long long M = ctx.size("M"), N = ctx.size("N"), K = ctx.size("K");
    const double eps = static_cast<float>(std::pow(10.0, -ctx.var("EPS")));   // the kernel's fp32 constant
    const HostArray& X = ctx.input("X");
    const HostArray& W = ctx.input("W");
    const double* gamma = ctx.input("gamma").values.data();
    const double* beta = ctx.input("beta").values.data();
    const HostArray& Y = ctx.output("Y");
    if (X.size() != static_cast<std::size_t>(M * K) || W.size() != static_cast<std::size_t>(N * K) || Y.size() != static_cast<std::size_t>(M * N))
        throw InputError("ln_linear needs X of M x K, W of N x K and Y of M x N");
    r.total = M * N;
    const double tol = tolerance(Y.dtype->name, static_cast<int>(K)) + Y.dtype->unitRoundoff;
    ElementChecker checker(r, tol, Y.dtype->subnormalStep / 2);

    // Normalised rows are computed once each, as the check first needs them.
    std::vector<std::vector<double>> rows(static_cast<std::size_t>(M));
    auto normalised = [&](long long i) -> const std::vector<double>& {
        auto& row = rows[static_cast<std::size_t>(i)];
        if (row.empty()) row = layerNormRow(X.values.data() + i * K, K, gamma, beta, eps);
        return row;
    };
    const bool folded = ctx.variables.count("folded") && ctx.var("folded") != 0;
    std::vector<double> rowRstd(static_cast<std::size_t>(M), -1.0);  // folded: each row's 1/std, as the check first needs it
    auto checkOne = [&](long long i, long long j) {
        const std::vector<double>& n = normalised(i);
        const double* w = W.values.data() + j * K;
        const double* x = X.values.data() + i * K;
        double& rstd = rowRstd[static_cast<std::size_t>(i)];
        if (folded && rstd < 0) rstd = rowStats(x, K, eps).rstd;
        double ref = 0, scale = 0;
        for (long long k = 0; k < K; ++k) {
            ref += n[static_cast<std::size_t>(k)] * w[k];
            scale += folded ? (rstd * std::fabs(x[k]) * gamma[k] + std::fabs(beta[k])) * std::fabs(w[k])
                            : std::fabs(n[static_cast<std::size_t>(k)] * w[k]);
        }
        checker.check(i * N + j, Y[static_cast<std::size_t>(i * N + j)], ref, std::max(scale, 1e-30), [&] { return elementName("Y", i, j); });
    };
    if (static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) <= ctx.fullCheckOps) {
        for (long long i = 0; i < M; ++i)
            for (long long j = 0; j < N; ++j) checkOne(i, j);
        r.method = "every output against LayerNorm then the product in float64";
    } else {
        std::mt19937_64 rng(ctx.seed + 0x1a7e);
        std::uniform_int_distribution<long long> pick(0, M * N - 1);
        for (int s = 0; s < ctx.sampledOutputs; ++s) {
            const long long index = pick(rng);
            checkOne(index / N, index % N);
        }
        r.method = std::to_string(ctx.sampledOutputs) + " random outputs against LayerNorm then the product in float64";
    }
    if (const HostArray* base = ctx.baselineOutput("unfused_ln_linear"); base && base->size() == Y.size()) {
        // Both round the normalised X and sum in fp32: two tolerances of a bound of the terms'
        // magnitude, ||n_i|| ||W_j|| (Cauchy-Schwarz). ||(x - mean) rstd|| <= sqrt(K) for every
        // row, so ||n_i|| <= (max |gamma| + max |beta|) sqrt(K) without normalising every row.
        // Folded, the terms are rstd x_k gamma_k W_jk + beta_k W_jk, and ||rstd x_i|| =
        // sqrt(K (1 + (mean rstd)^2)) (up to eps): each row's own bound.
        double gammaMax = 0, betaMax = 0;
        for (long long k = 0; k < K; ++k) gammaMax = std::max(gammaMax, std::fabs(gamma[k])), betaMax = std::max(betaMax, std::fabs(beta[k]));
        const double sqrtK = std::sqrt(static_cast<double>(K));
        std::vector<double> rowBound(static_cast<std::size_t>(M), (gammaMax + betaMax) * sqrtK);
        if (folded)
            for (long long i = 0; i < M; ++i) {
                const RowStats s = rowStats(X.values.data() + i * K, K, eps);
                const double spread = std::sqrt(1 + s.mean * s.rstd * s.mean * s.rstd);
                rowBound[static_cast<std::size_t>(i)] = std::max(gammaMax * spread + betaMax, gammaMax + betaMax) * sqrtK;
            }
        std::vector<double> colNorm(static_cast<std::size_t>(N));
        for (long long j = 0; j < N; ++j) {
            double s = 0;
            for (long long k = 0; k < K; ++k) s += W.values[static_cast<std::size_t>(j * K + k)] * W.values[static_cast<std::size_t>(j * K + k)];
            colNorm[static_cast<std::size_t>(j)] = std::sqrt(s);
        }
        r.baselineCompared = true;
        r.baselineAgrees = true;
        for (long long idx = 0; idx < M * N; ++idx) {
            const double bound = std::max(rowBound[static_cast<std::size_t>(idx / N)] * colNorm[static_cast<std::size_t>(idx % N)], 1e-30);
            const double rel = std::fabs(Y[static_cast<std::size_t>(idx)] - (*base)[static_cast<std::size_t>(idx)]) / bound;
            if (!(rel <= 2 * tol)) r.baselineAgrees = false;
            if (std::isfinite(rel)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, rel);
        }
        r.method += "; every output against the unfused baseline";
    }
    checker.finish();
}

}  // namespace kx::engine
