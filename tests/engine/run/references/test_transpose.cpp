#include "run/references/transpose.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

std::vector<double> randomMatrix(long long rows, long long cols, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> m(static_cast<std::size_t>(rows * cols));
    for (double& x : m) x = static_cast<float>(dist(rng));
    return m;
}

// Brute force: walk the input in order and scatter each element to its place in the output.
std::vector<double> scatterTranspose(long long rows, long long cols, const std::vector<double>& in) {
    std::vector<double> out(in.size(), std::numeric_limits<double>::quiet_NaN());
    for (long long r = 0; r < rows; ++r)
        for (long long c = 0; c < cols; ++c) out[static_cast<std::size_t>(c * rows + r)] = in[static_cast<std::size_t>(r * cols + c)];
    return out;
}

CheckContext transposeContext(long long rows, long long cols, const std::vector<double>& in, const std::vector<double>& out) {
    CheckContext ctx;
    ctx.variables = {{"TILE", 32}, {"BLOCK_ROWS", 8}, {"elem_bytes", 4}};
    ctx.choices = {{"dtype", "f32"}, {"smem", "padded"}};
    ctx.sizes = {{"rows", rows}, {"cols", cols}};
    ctx.inputs["in"] = HostArray{&dtypeNamed("f32"), in};
    ctx.outputs["out"] = HostArray{&dtypeNamed("f32"), out};
    return ctx;
}

struct Shape {
    long long rows, cols;
};
// One element, a single row and a single column, primes, and sizes that are not multiples of any tile.
const Shape kShapes[] = {{1, 1}, {1, 37}, {41, 1}, {7, 13}, {33, 65}, {100, 3}, {257, 129}};

}  // namespace

TEST_CASE("transposeReference matches scattering every input element", "[reference][transpose]") {
    std::mt19937_64 rng(21);
    for (const Shape& s : kShapes) {
        CAPTURE(s.rows, s.cols);
        const auto in = randomMatrix(s.rows, s.cols, rng);
        REQUIRE(transposeReference(s.rows, s.cols, in) == scatterTranspose(s.rows, s.cols, in));
        // Transposing twice gives the input back.
        REQUIRE(transposeReference(s.cols, s.rows, transposeReference(s.rows, s.cols, in)) == in);
    }
}

TEST_CASE("checkTranspose passes the transpose and fails corrupted outputs", "[reference][transpose]") {
    std::mt19937_64 rng(22);
    for (const Shape& s : kShapes) {
        CAPTURE(s.rows, s.cols);
        const auto in = randomMatrix(s.rows, s.cols, rng);
        const auto good = scatterTranspose(s.rows, s.cols, in);
        {
            CorrectnessReport r;
            checkTranspose(transposeContext(s.rows, s.cols, in, good), r);
            REQUIRE(r.passed);
            REQUIRE(r.total == s.rows * s.cols);
            REQUIRE(r.checked == s.rows * s.cols);
        }
        const auto last = static_cast<long long>(good.size()) - 1;
        {
            auto bad = good;
            bad[static_cast<std::size_t>(last)] = std::nextafter(static_cast<float>(bad[static_cast<std::size_t>(last)]), 2.0f);  // one ulp off
            CorrectnessReport r;
            checkTranspose(transposeContext(s.rows, s.cols, in, bad), r);
            REQUIRE_FALSE(r.passed);
            REQUIRE(r.firstBadIndex == last);
            REQUIRE(r.firstBadText.find("out[" + std::to_string(s.cols - 1) + "," + std::to_string(s.rows - 1) + "]") != std::string::npos);
        }
        {
            auto bad = good;
            bad[0] = std::numeric_limits<double>::quiet_NaN();  // an element the kernel never wrote
            CorrectnessReport r;
            checkTranspose(transposeContext(s.rows, s.cols, in, bad), r);
            REQUIRE_FALSE(r.passed);
            REQUIRE(r.firstBadIndex == 0);
        }
        if (s.rows > 1 && s.cols > 1) {
            // The input copied instead of transposed.
            CorrectnessReport r;
            checkTranspose(transposeContext(s.rows, s.cols, in, in), r);
            REQUIRE_FALSE(r.passed);
        }
    }
}

TEST_CASE("checkTranspose rejects an output of the wrong size", "[reference][transpose]") {
    const std::vector<double> in(12, 1.0), out(11, 1.0);
    CorrectnessReport r;
    REQUIRE_THROWS_AS(checkTranspose(transposeContext(3, 4, in, out), r), InputError);
}
