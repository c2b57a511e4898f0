// The LayerNorm + Linear reference: layerNormRow against the textbook formula, and the check's
// verdicts: a result computed the kernel's way (fp32 statistics, the normalised row rounded to
// f16, fp32 sums; or folded: gamma-scaled W rounded to f16, raw X, the statistics applied after
// the sums, also from one pass of shifted sums) passes; a result that skipped the normalisation, or one wrong element, fails.
#include "run/references/ln_linear.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

std::vector<double> roundedTo(const std::vector<double>& v, const char* dtype) {
    return decodeValues(encodeValues(v, dtypeNamed(dtype)), dtypeNamed(dtype));
}

// How the result is computed: X normalised then rounded (ln_linear, NORM=registers), not
// normalised at all (a broken kernel), folded (NORM=folded), or folded with the statistics from
// one pass of fp32 sums of x - x_0 and its square (NORM=one_pass).
enum class Form { Normalised, Raw, Folded, OnePass };

CheckContext lnLinearContext(long long M, long long N, long long K, std::mt19937_64& rng, Form form = Form::Normalised) {
    std::uniform_real_distribution<double> xs(-1, 3), ws(-1, 1), gs(0.5, 1.5), bs(-0.5, 0.5);
    std::vector<double> x(static_cast<std::size_t>(M * K)), w(static_cast<std::size_t>(N * K)), gamma(static_cast<std::size_t>(K)), beta(gamma.size());
    for (double& v : x) v = xs(rng);
    for (double& v : w) v = ws(rng);
    for (double& v : gamma) v = static_cast<float>(gs(rng));
    for (double& v : beta) v = static_cast<float>(bs(rng));
    x = roundedTo(x, "f16");
    w = roundedTo(w, "f16");
    std::vector<double> y(static_cast<std::size_t>(M * N));
    // Folded: Wf = gamma W rounded to f16, c = sum of Wf, d = sum of beta W (fp32).
    std::vector<double> wf(w.size());
    std::vector<float> c(static_cast<std::size_t>(N)), d(c.size());
    for (long long j = 0; j < N; ++j)
        for (long long k = 0; k < K; ++k) wf[j * K + k] = static_cast<float>(gamma[k]) * static_cast<float>(w[j * K + k]);
    wf = roundedTo(wf, "f16");
    for (long long j = 0; j < N; ++j)
        for (long long k = 0; k < K; ++k) c[j] += static_cast<float>(wf[j * K + k]), d[j] += static_cast<float>(beta[k] * w[j * K + k]);
    for (long long i = 0; i < M; ++i) {
        // The kernel's arithmetic: fp32 statistics, the normalised element rounded to f16.
        float sum = 0, squares = 0, mean = 0, rstd = 0;
        if (form == Form::OnePass) {
            const float shift = static_cast<float>(x[i * K]);
            for (long long k = 0; k < K; ++k) {
                const float dev = static_cast<float>(x[i * K + k]) - shift;
                sum += dev;
                squares = std::fma(dev, dev, squares);
            }
            const float meanShift = sum / K;
            mean = shift + meanShift;
            rstd = 1.0f / std::sqrt(std::max(squares / K - meanShift * meanShift, 0.0f) + 1e-5f);
        } else {
            for (long long k = 0; k < K; ++k) sum += static_cast<float>(x[i * K + k]);
            mean = sum / K;
            for (long long k = 0; k < K; ++k) squares += (static_cast<float>(x[i * K + k]) - mean) * (static_cast<float>(x[i * K + k]) - mean);
            rstd = 1.0f / std::sqrt(squares / K + 1e-5f);
        }
        if (form == Form::Folded || form == Form::OnePass) {
            for (long long j = 0; j < N; ++j) {
                float acc = 0;
                for (long long k = 0; k < K; ++k) acc += static_cast<float>(x[i * K + k] * wf[j * K + k]);
                y[i * N + j] = rstd * acc - mean * rstd * c[j] + d[j];
            }
            continue;
        }
        std::vector<double> n(static_cast<std::size_t>(K));
        for (long long k = 0; k < K; ++k)
            n[k] = form == Form::Normalised
                       ? (static_cast<float>(x[i * K + k]) - mean) * rstd * static_cast<float>(gamma[k]) + static_cast<float>(beta[k])
                       : x[i * K + k];
        n = roundedTo(n, "f16");
        for (long long j = 0; j < N; ++j) {
            float acc = 0;
            for (long long k = 0; k < K; ++k) acc += static_cast<float>(n[k] * w[j * K + k]);
            y[i * N + j] = acc;
        }
    }
    CheckContext ctx;
    ctx.variables = {{"EPS", 5}, {"folded", form == Form::Folded || form == Form::OnePass ? 1.0 : 0.0}};
    ctx.sizes = {{"M", M}, {"N", N}, {"K", K}};
    ctx.inputs["X"] = HostArray{&dtypeNamed("f16"), x};
    ctx.inputs["W"] = HostArray{&dtypeNamed("f16"), w};
    ctx.inputs["gamma"] = HostArray{&dtypeNamed("f32"), gamma};
    ctx.inputs["beta"] = HostArray{&dtypeNamed("f32"), beta};
    ctx.outputs["Y"] = HostArray{&dtypeNamed("f16"), roundedTo(y, "f16")};
    return ctx;
}

}  // namespace

TEST_CASE("layerNormRow has mean beta-weighted zero and unit variance before gamma and beta", "[reference][ln_linear]") {
    const std::vector<double> x = {1, 2, 3, 4, 10};
    const std::vector<double> ones(5, 1.0), zeros(5, 0.0);
    const std::vector<double> n = layerNormRow(x.data(), 5, ones.data(), zeros.data(), 0);
    double mean = 0, squares = 0;
    for (double v : n) mean += v;
    for (double v : n) squares += v * v;
    REQUIRE(std::fabs(mean) < 1e-12);
    REQUIRE(squares / 5 == Approx(1.0).epsilon(1e-12));
    REQUIRE(n[4] == Approx((10 - 4) / std::sqrt((9 + 4 + 1 + 0 + 36) / 5.0)).epsilon(1e-12));
}

TEST_CASE("checkLnLinear passes the kernel's arithmetic and catches a missing normalisation or one bad element",
          "[reference][ln_linear]") {
    std::mt19937_64 rng(5);
    for (const long long K : {8LL, 72LL, 300LL}) {
        CAPTURE(K);
        CheckContext ctx = lnLinearContext(37, 24, K, rng);
        CorrectnessReport ok;
        checkLnLinear(ctx, ok);
        INFO(ok.firstBadText);
        REQUIRE(ok.passed);
        REQUIRE(ok.checked == 37 * 24);
        ctx.outputs["Y"].values[5 * 24 + 7] += 1.0;   // the bound scales with sum |n w|: about 0.1 at K = 300
        CorrectnessReport bad;
        checkLnLinear(ctx, bad);
        REQUIRE_FALSE(bad.passed);
        REQUIRE(bad.firstBadIndex == 5 * 24 + 7);
    }
    CheckContext raw = lnLinearContext(16, 16, 64, rng, Form::Raw);
    CorrectnessReport unnormalised;
    checkLnLinear(raw, unnormalised);
    REQUIRE_FALSE(unnormalised.passed);
}

TEST_CASE("checkLnLinear passes the folded form's arithmetic and catches one bad element", "[reference][ln_linear]") {
    std::mt19937_64 rng(9);
    const Form form = GENERATE(Form::Folded, Form::OnePass);
    CAPTURE(form == Form::OnePass);
    for (const long long K : {8LL, 72LL, 300LL, 4096LL}) {
        CAPTURE(K);
        CheckContext ctx = lnLinearContext(37, 24, K, rng, form);
        CorrectnessReport ok;
        checkLnLinear(ctx, ok);
        INFO(ok.firstBadText);
        REQUIRE(ok.passed);
        REQUIRE(ok.checked == 37 * 24);
        // The bound grows with sum |terms|, about K: an error of 1 at K <= 300, of 4 at 4096.
        ctx.outputs["Y"].values[11 * 24 + 3] += K <= 300 ? 1.0 : 4.0;
        CorrectnessReport bad;
        checkLnLinear(ctx, bad);
        REQUIRE_FALSE(bad.passed);
        REQUIRE(bad.firstBadIndex == 11 * 24 + 3);
    }
}
