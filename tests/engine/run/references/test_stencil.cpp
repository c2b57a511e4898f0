#include "run/references/stencil.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"
#include "run/reference.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace kx::engine;

namespace {

struct Grid {
    long long nx, ny, nz;
    long long points() const { return nx * ny * nz; }
};
// Single points, lines, planes thinner than the stencil, primes, and grids with a real interior.
const Grid kGrids[] = {{1, 1, 1}, {9, 1, 1}, {5, 7, 3}, {11, 13, 9}, {17, 10, 12}, {23, 19, 11}};

std::vector<double> randomGrid(const Grid& g, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> v(static_cast<std::size_t>(g.points()));
    for (double& x : v) x = static_cast<float>(dist(rng));
    return v;
}

// Brute force with 3-D indexing and an explicit list of (dx, dy, dz, weight) taps.
std::vector<double> tapStencil(int order, const Grid& g, const std::vector<double>& in) {
    const int radius = order / 2;
    struct Tap {
        int dx, dy, dz;
        double w;
    };
    std::vector<Tap> taps = {{0, 0, 0, stencilCoefficient(order, 0)}};
    for (int k = 1; k <= radius; ++k) {
        const double w = stencilCoefficient(order, k);
        for (int sign : {-1, 1}) {
            taps.push_back({sign * k, 0, 0, w});
            taps.push_back({0, sign * k, 0, w});
            taps.push_back({0, 0, sign * k, w});
        }
    }
    REQUIRE(taps.size() == static_cast<std::size_t>(6 * radius + 1));
    auto at = [&](long long x, long long y, long long z) { return in[static_cast<std::size_t>((z * g.ny + y) * g.nx + x)]; };
    std::vector<double> out(in.size());
    for (long long z = 0; z < g.nz; ++z)
        for (long long y = 0; y < g.ny; ++y)
            for (long long x = 0; x < g.nx; ++x) {
                const bool inside = std::min({x, y, z, g.nx - 1 - x, g.ny - 1 - y, g.nz - 1 - z}) >= radius;
                double v = at(x, y, z);
                if (inside) {
                    v = 0;
                    for (const Tap& t : taps) v += t.w * at(x + t.dx, y + t.dy, z + t.dz);
                }
                out[static_cast<std::size_t>((z * g.ny + y) * g.nx + x)] = v;
            }
    return out;
}

// What a correct fp32 kernel might return: the reference rounded to fp32.
std::vector<double> asFloat(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(v[i]);
    return out;
}

CheckContext stencilContext(int order, const Grid& g, const std::vector<double>& in, const std::vector<double>& out) {
    CheckContext ctx;
    ctx.variables = {{"RADIUS", order / 2}, {"TX", 32}, {"TY", 8}};
    ctx.choices = {{"order", std::to_string(order)}, {"strategy", "smem_zmarch"}};
    ctx.sizes = {{"nx", g.nx}, {"ny", g.ny}, {"nz", g.nz}};
    ctx.inputs["in"] = HostArray{&dtypeNamed("f32"), in};
    ctx.outputs["out"] = HostArray{&dtypeNamed("f32"), out};
    return ctx;
}

}  // namespace

TEST_CASE("stencil coefficients are the fp32 finite-difference weights", "[reference][stencil]") {
    REQUIRE(stencilCoefficient(2, 0) == -6.0);
    REQUIRE(stencilCoefficient(2, 1) == 1.0);
    REQUIRE(stencilCoefficient(8, 0) == Approx(-205.0 / 24.0).epsilon(1e-7));
    REQUIRE(stencilCoefficient(8, 4) == Approx(-1.0 / 560.0).epsilon(1e-7));
    for (int k = 0; k <= 4; ++k) REQUIRE(stencilCoefficient(8, k) == static_cast<float>(stencilCoefficient(8, k)));
    // A Laplacian of a constant is zero: 3 * C0/3 + 2 * 3 * sum Ck = 0 up to fp32 rounding.
    for (int order : {2, 8}) {
        double sum = stencilCoefficient(order, 0);
        for (int k = 1; k <= order / 2; ++k) sum += 6 * stencilCoefficient(order, k);
        REQUIRE(std::fabs(sum) < 1e-6);
    }
    REQUIRE_THROWS_AS(stencilCoefficient(4, 0), InputError);
}

TEST_CASE("stencilReference matches summing an explicit list of taps", "[reference][stencil]") {
    std::mt19937_64 rng(31);
    for (const int order : {2, 8}) {
        for (const Grid& g : kGrids) {
            CAPTURE(order, g.nx, g.ny, g.nz);
            const auto in = randomGrid(g, rng);
            const auto ref = stencilReference(order, g.nx, g.ny, g.nz, in);
            const auto brute = tapStencil(order, g, in);
            for (std::size_t i = 0; i < ref.size(); ++i) REQUIRE(ref[i] == Approx(brute[i]).epsilon(1e-12).margin(1e-12));
        }
    }
}

TEST_CASE("stencilReferenceRows gives the same values for any slab of rows", "[reference][stencil]") {
    std::mt19937_64 rng(32);
    const Grid g{12, 11, 13};
    const auto in = randomGrid(g, rng);
    const auto whole = stencilReference(8, g.nx, g.ny, g.nz, in);
    const long long r0 = 17, r1 = 101;
    std::vector<double> out(static_cast<std::size_t>((r1 - r0) * g.nx)), scale(out.size());
    stencilReferenceRows(8, g.nx, g.ny, g.nz, in.data(), r0, r1, out.data(), scale.data());
    for (std::size_t i = 0; i < out.size(); ++i) {
        REQUIRE(out[i] == whole[static_cast<std::size_t>(r0 * g.nx) + i]);
        REQUIRE(scale[i] >= std::fabs(out[i]));
    }
}

TEST_CASE("checkStencil passes fp32-rounded results and fails corrupted ones", "[reference][stencil]") {
    std::mt19937_64 rng(33);
    for (const int order : {2, 8}) {
        for (const Grid& g : kGrids) {
            CAPTURE(order, g.nx, g.ny, g.nz);
            const auto in = randomGrid(g, rng);
            const auto good = asFloat(tapStencil(order, g, in));
            {
                CorrectnessReport r;
                checkStencil(stencilContext(order, g, in, good), r);
                REQUIRE(r.passed);
                REQUIRE(r.total == g.points());
                REQUIRE(r.checked == g.points());
            }
            {
                auto bad = good;
                bad.back() = std::numeric_limits<double>::quiet_NaN();  // a point never written
                CorrectnessReport r;
                checkStencil(stencilContext(order, g, in, bad), r);
                REQUIRE_FALSE(r.passed);
                REQUIRE(r.firstBadIndex == g.points() - 1);
            }
        }
    }
}

TEST_CASE("checkStencil catches a wrong interior value and a boundary point that was not copied", "[reference][stencil]") {
    std::mt19937_64 rng(34);
    const Grid g{13, 12, 11};
    const auto in = randomGrid(g, rng);
    const auto good = asFloat(tapStencil(8, g, in));
    const long long centre = (5 * g.ny + 6) * g.nx + 6;  // interior for radius 4
    {
        // Off by much more than fp32 rounding, much less than the value.
        auto bad = good;
        bad[static_cast<std::size_t>(centre)] += 1e-3;
        CorrectnessReport r;
        checkStencil(stencilContext(8, g, in, bad), r);
        REQUIRE_FALSE(r.passed);
        REQUIRE(r.firstBadIndex == centre);
        REQUIRE(r.firstBadText.find("out[" + std::to_string(centre) + "]") != std::string::npos);
    }
    {
        // A point within the radius of a face computed as if it were interior (here: zeroed).
        auto bad = good;
        bad[1] = 0;
        CorrectnessReport r;
        checkStencil(stencilContext(8, g, in, bad), r);
        REQUIRE_FALSE(r.passed);
        REQUIRE(r.firstBadIndex == 1);
    }
    {
        // The order-2 stencil where order 8 was asked for.
        CorrectnessReport r;
        checkStencil(stencilContext(8, g, in, asFloat(tapStencil(2, g, in))), r);
        REQUIRE_FALSE(r.passed);
    }
    {
        const std::vector<double> shortOut(good.begin(), good.end() - 1);
        CorrectnessReport r;
        REQUIRE_THROWS_AS(checkStencil(stencilContext(8, g, in, shortOut), r), InputError);
    }
}
