// The transformer row ops' references (rownorm, glu, norm_rope) against second, plainer
// formulations, and Philox4x32-10 against the published known-answer vectors.
#include "run/references/glu.hpp"
#include "run/references/norm_rope.hpp"
#include "run/references/philox.hpp"
#include "run/references/references.hpp"
#include "run/references/rownorm.hpp"

#include "run/dtype.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace kx::engine;

namespace {

std::vector<double> uniform(std::size_t n, double lo, double hi, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<float>(dist(rng));
    return v;
}

std::vector<double> roundedTo(const std::vector<double>& v, const char* dtype) {
    return decodeValues(encodeValues(v, dtypeNamed(dtype)), dtypeNamed(dtype));
}

double roundTo(const char* dtype, double v) { return roundedTo({v}, dtype)[0]; }

}  // namespace

TEST_CASE("Philox4x32-10 gives the Random123 known-answer vectors", "[reference][philox]") {
    using W = std::array<std::uint32_t, 4>;
    REQUIRE(philox4x32_10(W{0, 0, 0, 0}, {0, 0}) == W{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
    REQUIRE(philox4x32_10(W{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}) ==
            W{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
    REQUIRE(philox4x32_10(W{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}) ==
            W{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

TEST_CASE("dropout drops about p of the elements, the same ones for the same seed", "[reference][philox]") {
    int dropped = 0, same = 0;
    const int n = 100000;
    for (int e = 0; e < n; ++e) {
        dropped += dropoutDrops(7, static_cast<std::uint64_t>(e), 0.1f);
        same += dropoutDrops(7, static_cast<std::uint64_t>(e), 0.1f) == dropoutDrops(8, static_cast<std::uint64_t>(e), 0.1f);
    }
    REQUIRE(std::abs(dropped - n / 10) < 600);  // 0.1 n +- 6 standard deviations
    REQUIRE(same < n - 5000);                   // another seed drops other elements
}

// The kernels (templates/common/philox_dropout.cuh) compare a 16-bit half h with
// ceil(p * 2^16) as integers where the rule reads h * 2^-16 < p: the two agree for every h and p.
TEST_CASE("dropout's integer threshold drops what the fraction rule drops", "[reference][philox]") {
    auto below = [](float p) {
        const float scaled = p * 65536.0f;
        unsigned int t = scaled <= 0.0f ? 0u : scaled >= 65536.0f ? 65536u : static_cast<unsigned int>(scaled);
        if (static_cast<float>(t) < scaled) ++t;
        return t;
    };
    for (const float p : {0.0f, 0.1f, 0.5f, 0x1p-16f, 3 * 0x1p-16f, 0.99999f, 1.0f, 1.5f, -0.25f, 0.3333333f}) {
        INFO("p = " << p);
        int disagreements = 0;
        for (unsigned int h = 0; h < 65536; ++h) disagreements += (h < below(p)) != (static_cast<float>(h) * 0x1p-16f < p);
        CHECK(disagreements == 0);
    }
    // Eight consecutive elements share one block, each its own half of it.
    for (std::uint64_t e = 0; e < 64; ++e) {
        const std::uint32_t word = philox4x32_10(e / 8, 7)[(e % 8) / 2];
        CHECK(dropoutHalf(7, e) == (e % 2 == 0 ? word & 0xffffu : word >> 16));
    }
}

TEST_CASE("rownormReferenceRow matches two-pass formulas in long double", "[reference][rownorm]") {
    std::mt19937_64 rng(41);
    for (const long long cols : {1LL, 2LL, 7LL, 777LL, 4096LL}) {
        const auto x = uniform(static_cast<std::size_t>(cols), -3, 3, rng);
        const auto gamma = uniform(x.size(), 0.5, 1.5, rng), beta = uniform(x.size(), -0.5, 0.5, rng);
        std::vector<double> out(x.size()), scale(x.size());
        CAPTURE(cols);

        rownormReferenceRow("softmax", x.data(), cols, nullptr, nullptr, 1e-5, out.data(), scale.data());
        long double denominator = 0;
        for (double v : x) denominator += std::exp(static_cast<long double>(v));
        long double total = 0;
        for (std::size_t c = 0; c < x.size(); ++c) {
            REQUIRE(out[c] == Approx(static_cast<double>(std::exp(static_cast<long double>(x[c])) / denominator)).epsilon(1e-12));
            total += out[c];
        }
        REQUIRE(static_cast<double>(total) == Approx(1.0).epsilon(1e-12));

        long double sum = 0, sumSquares = 0;
        for (double v : x) sum += v, sumSquares += static_cast<long double>(v) * v;
        const long double mean = sum / cols, variance = sumSquares / cols - mean * mean;
        rownormReferenceRow("layernorm", x.data(), cols, gamma.data(), beta.data(), 1e-5, out.data(), scale.data());
        for (std::size_t c = 0; c < x.size(); ++c)
            REQUIRE(out[c] == Approx(static_cast<double>((x[c] - mean) / std::sqrt(variance + 1e-5L) * gamma[c] + beta[c])).epsilon(1e-9).margin(1e-12));
        rownormReferenceRow("rmsnorm", x.data(), cols, gamma.data(), nullptr, 1e-5, out.data(), scale.data());
        for (std::size_t c = 0; c < x.size(); ++c)
            REQUIRE(out[c] == Approx(static_cast<double>(x[c] / std::sqrt(sumSquares / cols + 1e-5L) * gamma[c])).epsilon(1e-12));
    }
    std::vector<double> one{1.0}, out(1), scale(1);
    REQUIRE_THROWS_AS(rownormReferenceRow("groupnorm", one.data(), 1, one.data(), one.data(), 1e-5, out.data(), scale.data()), InputError);
}

namespace {

// A rownorm context as a run of rows x cols would give it, with y (and h) computed by fp32-like
// rounding of the reference: what a correct kernel returns.
CheckContext rownormContext(const std::string& op, const std::string& fuse, const char* dtype, long long rows, long long cols,
                            std::mt19937_64& rng) {
    CheckContext ctx;
    ctx.variables = {{"EPS", 1e-5}, {"DROP_P", 0.1}};
    ctx.choices = {{"op", op}, {"fuse", fuse}, {"dtype", dtype}};
    ctx.sizes = {{"rows", rows}, {"cols", cols}};
    const auto n = static_cast<std::size_t>(rows * cols);
    const auto x = roundedTo(uniform(n, -3, 3, rng), dtype), residual = roundedTo(uniform(n, -3, 3, rng), dtype);
    const auto gamma = uniform(static_cast<std::size_t>(cols), 0.5, 1.5, rng), beta = uniform(gamma.size(), -0.5, 0.5, rng);
    ctx.inputs["x"] = HostArray{&dtypeNamed(dtype), x};
    ctx.inputs["residual"] = HostArray{&dtypeNamed(dtype), residual};
    ctx.inputs["gamma"] = HostArray{&dtypeNamed("f32"), gamma};
    ctx.inputs["beta"] = HostArray{&dtypeNamed("f32"), beta};
    std::vector<double> h(n), y(n), in(static_cast<std::size_t>(cols)), scale(in.size());
    for (long long r = 0; r < rows; ++r) {
        for (long long c = 0; c < cols; ++c) {
            const auto i = static_cast<std::size_t>(r * cols + c);
            h[i] = roundTo(dtype, x[i] + residual[i]);
            in[static_cast<std::size_t>(c)] = fuse == "residual" ? h[i] : x[i];
        }
        rownormReferenceRow(op, in.data(), cols, gamma.data(), beta.data(), static_cast<float>(1e-5), y.data() + r * cols, scale.data());
        for (long long c = 0; c < cols; ++c) {
            const auto i = static_cast<std::size_t>(r * cols + c);
            if (fuse == "dropout") y[i] = dropoutDrops(20261125, 4096 + i, 0.1f) ? 0.0 : y[i] / (1 - static_cast<double>(0.1f));
            y[i] = roundTo(dtype, y[i]);
        }
    }
    ctx.outputs["y"] = HostArray{&dtypeNamed(dtype), y};
    ctx.outputs["h"] = HostArray{&dtypeNamed(dtype), h};
    return ctx;
}

}  // namespace

TEST_CASE("the rownorm check passes correct outputs and names the first wrong one", "[reference][rownorm]") {
    std::mt19937_64 rng(42);
    const struct {
        const char* op;
        const char* fuse;
    } cases[] = {{"softmax", "none"}, {"softmax", "dropout"}, {"layernorm", "none"}, {"layernorm", "residual"}, {"rmsnorm", "residual"}};
    for (const auto& c : cases) {
        for (const char* dtype : {"f32", "f16", "bf16"}) {
            CAPTURE(c.op, c.fuse, dtype);
            CheckContext ctx = rownormContext(c.op, c.fuse, dtype, 5, 301, rng);
            CorrectnessReport ok;
            checkRownorm(ctx, ok);
            INFO(ok.firstBadText);
            REQUIRE(ok.passed);
            REQUIRE(ok.checked == (std::string(c.fuse) == "residual" ? 2 : 1) * 5 * 301);

            // One output off by a few units of the storage type's rounding fails, by name.
            auto& y = ctx.outputs["y"].values;
            std::size_t bad = 3 * 301 + 17;
            while (y[bad] == 0.0) ++bad;  // a kept element
            y[bad] *= 1 + 8 * dtypeNamed(dtype).unitRoundoff + 1e-4;
            CorrectnessReport wrong;
            checkRownorm(ctx, wrong);
            REQUIRE_FALSE(wrong.passed);
            REQUIRE(wrong.firstBadIndex == static_cast<long long>(bad));
            REQUIRE(wrong.firstBadText.rfind("y[3,", 0) == 0);
        }
    }
}

TEST_CASE("the rownorm check catches a kept element that was dropped and a wrong residual sum", "[reference][rownorm]") {
    std::mt19937_64 rng(43);
    CheckContext dropout = rownormContext("softmax", "dropout", "f32", 2, 64, rng);
    auto& y = dropout.outputs["y"].values;
    std::size_t kept = 0;
    while (y[kept] == 0.0) ++kept;
    y[kept] = 0.0;
    CorrectnessReport r1;
    checkRownorm(dropout, r1);
    REQUIRE_FALSE(r1.passed);

    CheckContext residual = rownormContext("rmsnorm", "residual", "f16", 2, 64, rng);
    residual.outputs["h"].values[5] += 0.25;
    CorrectnessReport r2;
    checkRownorm(residual, r2);
    REQUIRE_FALSE(r2.passed);
    REQUIRE(r2.firstBadText.rfind("h[0,5]", 0) == 0);
}

TEST_CASE("gluReference is silu or the erf GELU of the gate times up", "[reference][glu]") {
    for (const double g : {-6.0, -1.5, -0.1, 0.0, 0.3, 2.0, 5.0}) {
        const double up = 1.25;
        REQUIRE(gluReference("swiglu", g, up) == Approx(g * (1 / (1 + std::exp(-g))) * up).epsilon(1e-14));
        // GELU through the normal CDF: Phi(g) = erfc(-g / sqrt 2) / 2.
        REQUIRE(gluReference("geglu", g, up) == Approx(g * 0.5 * std::erfc(-g / std::sqrt(2.0)) * up).epsilon(1e-12).margin(1e-15));
    }
    REQUIRE_THROWS_AS(gluReference("reglu", 1, 1), InputError);
}

TEST_CASE("normRopeReference matches normalising, then rotating each pair by a 2x2 matrix", "[reference][norm_rope]") {
    std::mt19937_64 rng(44);
    for (const int d : {2, 64, 128}) {
        const auto v = uniform(static_cast<std::size_t>(d), -3, 3, rng), w = uniform(v.size(), 0.5, 1.5, rng);
        const auto table = uniform(v.size(), -1, 1, rng);
        std::vector<double> out(v.size()), scale(v.size());
        normRopeReference(v.data(), d, w.data(), table.data(), 1e-6, out.data(), scale.data());
        long double squares = 0;
        for (double x : v) squares += static_cast<long double>(x) * x;
        const long double rstd = 1 / std::sqrt(squares / d + 1e-6L);
        for (int i = 0; i < d / 2; ++i) {
            const long double a = v[i] * rstd * w[i], b = v[d / 2 + i] * rstd * w[d / 2 + i];
            const long double m[2][2] = {{table[i], -table[d / 2 + i]}, {table[d / 2 + i], table[i]}};
            CAPTURE(d, i);
            REQUIRE(out[i] == Approx(static_cast<double>(m[0][0] * a + m[0][1] * b)).epsilon(1e-12).margin(1e-14));
            REQUIRE(out[d / 2 + i] == Approx(static_cast<double>(m[1][0] * a + m[1][1] * b)).epsilon(1e-12).margin(1e-14));
        }
    }
}
