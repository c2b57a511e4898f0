#include "run/reference.hpp"

#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

std::vector<double> randomVector(std::size_t n, std::mt19937_64& rng, double lo = -1, double hi = 1) {
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> v(n);
    for (double& x : v) x = dist(rng);
    return v;
}

// The textbook triple loop the blocked reference must agree with.
std::vector<double> naiveGemm(int M, int N, int K, bool bColMajor, const std::vector<double>& A, const std::vector<double>& B) {
    std::vector<double> C(static_cast<std::size_t>(M) * N, 0.0);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0;
            for (int k = 0; k < K; ++k)
                s += A[static_cast<std::size_t>(i) * K + k] *
                     (bColMajor ? B[static_cast<std::size_t>(j) * K + k] : B[static_cast<std::size_t>(k) * N + j]);
            C[static_cast<std::size_t>(i) * N + j] = s;
        }
    return C;
}

double pow2(int e) { return std::ldexp(1.0, e); }

// Round-to-nearest-even float -> bfloat16 as GPUs and most libraries write it (on the bits of a
// float), to cross-check the double-based conversion.
std::uint16_t bf16FromFloatBits(float f) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace

TEST_CASE("gemmReference matches the naive triple loop", "[reference][gemm]") {
    std::mt19937_64 rng(7);
    struct Shape { int M, N, K; };
    // Odd sizes, a single element, a product too small and one large enough to use threads.
    const Shape shapes[] = {{1, 1, 1}, {3, 5, 7}, {17, 1, 33}, {1, 19, 300}, {64, 48, 260}, {130, 140, 300}};
    for (const Shape& s : shapes) {
        for (const bool bColMajor : {false, true}) {
            CAPTURE(s.M, s.N, s.K, bColMajor);
            const auto A = randomVector(static_cast<std::size_t>(s.M) * s.K, rng);
            const auto B = randomVector(static_cast<std::size_t>(s.K) * s.N, rng);
            std::vector<double> C(static_cast<std::size_t>(s.M) * s.N, 123.0);
            gemmReference(s.M, s.N, s.K, bColMajor, A.data(), B.data(), C.data());
            const auto expected = naiveGemm(s.M, s.N, s.K, bColMajor, A, B);
            for (std::size_t i = 0; i < C.size(); ++i) REQUIRE(C[i] == Approx(expected[i]).epsilon(1e-12).margin(1e-12));

            // Sampled elements agree with the full product.
            for (int t = 0; t < 20; ++t) {
                const int row = static_cast<int>(rng() % s.M), col = static_cast<int>(rng() % s.N);
                REQUIRE(gemmReferenceAt(s.M, s.N, s.K, bColMajor, A.data(), B.data(), row, col) ==
                        Approx(C[static_cast<std::size_t>(row) * s.N + col]).epsilon(1e-12).margin(1e-12));
            }
        }
    }
}

TEST_CASE("gemmReference with K = 0 writes zeros", "[reference][gemm]") {
    std::vector<double> C(6, 5.0);
    gemmReference(2, 3, 0, false, nullptr, nullptr, C.data());
    for (double c : C) REQUIRE(c == 0.0);
}

TEST_CASE("reduceReference sums exactly enough and takes maxima", "[reference][reduce]") {
    SECTION("compensation recovers what plain summation loses") {
        const std::vector<double> cancel = {1e16, 1.0, -1e16};
        REQUIRE(reduceReference(false, cancel.data(), cancel.size()) == 1.0);
        const std::vector<double> big = {1.0, 1e100, 1.0, -1e100};
        REQUIRE(reduceReference(false, big.data(), big.size()) == 2.0);
    }
    SECTION("random data agrees with a long-double sum") {
        std::mt19937_64 rng(3);
        const auto x = randomVector(100003, rng);
        long double s = 0;
        for (double v : x) s += v;
        REQUIRE(reduceReference(false, x.data(), x.size()) == Approx(static_cast<double>(s)).epsilon(1e-14));
    }
    SECTION("maximum of all-negative data, NaNs skipped") {
        const std::vector<double> x = {-3.0, std::nan(""), -0.5, -7.0};
        REQUIRE(reduceReference(true, x.data(), x.size()) == -0.5);
    }
    SECTION("empty input gives the identities") {
        REQUIRE(reduceReference(false, nullptr, 0) == 0.0);
        REQUIRE(reduceReference(true, nullptr, 0) == -std::numeric_limits<double>::infinity());
    }
    SECTION("infinities follow IEEE rules") {
        const double inf = std::numeric_limits<double>::infinity();
        const std::vector<double> one = {1.0, inf, 2.0};
        REQUIRE(reduceReference(false, one.data(), one.size()) == inf);
        const std::vector<double> both = {inf, -inf};
        REQUIRE(std::isnan(reduceReference(false, both.data(), both.size())));
    }
}

TEST_CASE("half conversion: exact values, edges and ties", "[reference][dtype]") {
    REQUIRE(toHalfBits(0.0) == 0x0000);
    REQUIRE(toHalfBits(-0.0) == 0x8000);
    REQUIRE(toHalfBits(1.0) == 0x3c00);
    REQUIRE(toHalfBits(-2.0) == 0xc000);
    REQUIRE(toHalfBits(0.1) == 0x2e66);

    SECTION("largest finite and overflow") {
        REQUIRE(toHalfBits(65504.0) == 0x7bff);
        REQUIRE(fromHalfBits(0x7bff) == 65504.0);
        REQUIRE(toHalfBits(65519.99) == 0x7bff);  // below the halfway point to 65536
        REQUIRE(toHalfBits(65520.0) == 0x7c00);   // the tie rounds to even: infinity
        REQUIRE(toHalfBits(1e6) == 0x7c00);
        REQUIRE(toHalfBits(-1e300) == 0xfc00);
        REQUIRE(toHalfBits(std::numeric_limits<double>::infinity()) == 0x7c00);
    }
    SECTION("subnormals and underflow") {
        REQUIRE(toHalfBits(pow2(-24)) == 0x0001);            // smallest subnormal
        REQUIRE(toHalfBits(1023 * pow2(-24)) == 0x03ff);     // largest subnormal
        REQUIRE(toHalfBits(pow2(-14)) == 0x0400);            // smallest normal
        REQUIRE(toHalfBits(1023.5 * pow2(-24)) == 0x0400);   // ties up into the normals (1023 is odd)
        REQUIRE(toHalfBits(pow2(-25)) == 0x0000);            // half the smallest: tie to even zero
        REQUIRE(toHalfBits(-pow2(-25)) == 0x8000);
        REQUIRE(toHalfBits(pow2(-25) * 1.0000001) == 0x0001);
        REQUIRE(toHalfBits(3 * pow2(-26)) == 0x0001);
        REQUIRE(toHalfBits(2.5 * pow2(-24)) == 0x0002);      // tie between 2 and 3 units: even
        REQUIRE(toHalfBits(1e-300) == 0x0000);
        REQUIRE(toHalfBits(std::numeric_limits<double>::denorm_min()) == 0x0000);
        REQUIRE(fromHalfBits(0x0001) == pow2(-24));
    }
    SECTION("ties to even, rounded once") {
        REQUIRE(toHalfBits(1 + pow2(-11)) == 0x3c00);      // halfway between 1 and 1+2^-10: even
        REQUIRE(toHalfBits(1 + 3 * pow2(-11)) == 0x3c02);  // halfway between 0x3c01 and 0x3c02: even
        // Just above a tie. Going through float first would round to the tie, then to even (0x3c00).
        REQUIRE(toHalfBits(1 + pow2(-11) + pow2(-40)) == 0x3c01);
        REQUIRE(toHalfBits(2047.0 + 0.5) == 0x6800);       // 2047.5 -> 2048 (spacing 1, odd 2047)
    }
    SECTION("NaN") {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const std::uint16_t bits = toHalfBits(nan);
        REQUIRE((bits & 0x7c00) == 0x7c00);
        REQUIRE((bits & 0x03ff) != 0);
        REQUIRE(std::isnan(fromHalfBits(0x7e00)));
        REQUIRE(std::isnan(fromHalfBits(0xfc01)));
        REQUIRE(std::isinf(fromHalfBits(0xfc00)));
    }
    SECTION("every bit pattern round-trips") {
        for (std::uint32_t b = 0; b <= 0xffff; ++b) {
            const double v = fromHalfBits(static_cast<std::uint16_t>(b));
            if (std::isnan(v)) continue;
            REQUIRE(toHalfBits(v) == b);
        }
    }
}

TEST_CASE("bfloat16 conversion: exact values, edges and ties", "[reference][dtype]") {
    REQUIRE(toBf16Bits(1.0) == 0x3f80);
    REQUIRE(toBf16Bits(-2.0) == 0xc000);
    REQUIRE(toBf16Bits(-0.0) == 0x8000);
    REQUIRE(toBf16Bits(1 + pow2(-8)) == 0x3f80);      // tie: even
    REQUIRE(toBf16Bits(1 + 3 * pow2(-8)) == 0x3f82);  // tie: even
    REQUIRE(fromBf16Bits(0x7f7f) == (2 - pow2(-7)) * pow2(127));          // largest finite
    REQUIRE(toBf16Bits((2 - pow2(-8)) * pow2(127)) == 0x7f80);             // its tie with 2^128: even, infinity
    REQUIRE(toBf16Bits((2 - pow2(-7)) * pow2(127) * (1 + 1e-9)) == 0x7f7f);
    REQUIRE(toBf16Bits(pow2(-133)) == 0x0001);  // smallest subnormal
    REQUIRE(toBf16Bits(pow2(-134)) == 0x0000);  // tie to even zero
    REQUIRE(toBf16Bits(pow2(-126)) == 0x0080);  // smallest normal
    REQUIRE(std::isnan(fromBf16Bits(toBf16Bits(std::nan("")))));
    REQUIRE(toBf16Bits(-std::numeric_limits<double>::infinity()) == 0xff80);

    SECTION("agrees with the float-bits formula on random floats") {
        std::mt19937 rng(11);
        for (int i = 0; i < 200000; ++i) {
            const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
            if (std::isnan(f)) continue;
            REQUIRE(toBf16Bits(f) == bf16FromFloatBits(f));
        }
    }
    SECTION("every bit pattern round-trips") {
        for (std::uint32_t b = 0; b <= 0xffff; ++b) {
            const double v = fromBf16Bits(static_cast<std::uint16_t>(b));
            if (std::isnan(v)) continue;
            REQUIRE(toBf16Bits(v) == b);
        }
    }
}

TEST_CASE("roundToDtype", "[reference][dtype]") {
    REQUIRE(roundToDtype(1 + pow2(-30), "f64") == 1 + pow2(-30));
    REQUIRE(roundToDtype(1 + pow2(-30), "f32") == 1.0);
    REQUIRE(roundToDtype(1 + pow2(-24), "f32") == 1.0);                // tie: even
    REQUIRE(roundToDtype(1 + 3 * pow2(-24), "f32") == 1 + pow2(-22));  // tie: even
    REQUIRE(std::isinf(roundToDtype(1e39, "f32")));
    REQUIRE(roundToDtype(3.40282356e38, "f32") == static_cast<double>(std::numeric_limits<float>::max()));
    REQUIRE(std::isinf(roundToDtype(pow2(128) - pow2(103), "f32")));  // the tie with 2^128: even, infinity
    REQUIRE(roundToDtype(65504.0, "f16") == 65504.0);
    REQUIRE(std::isinf(roundToDtype(70000.0, "f16")));
    REQUIRE(roundToDtype(0.1, "f16") == fromHalfBits(0x2e66));
    REQUIRE(roundToDtype(1.00390625, "bf16") == 1.0);
    REQUIRE(std::isnan(roundToDtype(std::nan(""), "f16")));
    REQUIRE_THROWS_AS(roundToDtype(1.0, "f8"), InputError);
}

TEST_CASE("tolerance grows with the reduction length and the output's coarseness", "[reference][tolerance]") {
    for (const char* dtype : {"f32", "f16", "bf16"}) {
        CAPTURE(dtype);
        double previous = 0;
        for (int k = 1; k <= (1 << 24); k *= 2) {
            const double t = tolerance(dtype, k);
            REQUIRE(t > previous);
            REQUIRE(tolerance(dtype, k + 1) >= t);
            previous = t;
        }
        REQUIRE(tolerance(dtype, 0) == tolerance(dtype, 1));
    }
    REQUIRE(tolerance("bf16", 1024) > tolerance("f16", 1024));
    REQUIRE(tolerance("f16", 1024) > tolerance("f32", 1024));
    REQUIRE_THROWS_AS(tolerance("int8", 16), InputError);
}

TEST_CASE("tolerance passes fp32 accumulation and catches a dropped term", "[reference][tolerance]") {
    // Emulate what a correct kernel does: fp32 products and sums of dtype-rounded inputs, then
    // one rounding to dtype. Every result must pass; a result missing one product must not.
    std::mt19937_64 rng(5);
    for (const char* dtype : {"f32", "f16", "bf16"}) {
        for (const int K : {16, 256, 4096}) {
            CAPTURE(dtype, K);
            double worst = 0;
            bool caught = true;
            for (int trial = 0; trial < 50; ++trial) {
                auto a = randomVector(K, rng, trial % 2 ? 0.0 : -1.0, 1.0);  // mixed signs and all positive
                auto b = randomVector(K, rng, trial % 2 ? 0.0 : -1.0, 1.0);
                for (double& x : a) x = roundToDtype(x, dtype);
                for (double& x : b) x = roundToDtype(x, dtype);
                float acc = 0;
                double exact = 0, scale = 0;
                for (int k = 0; k < K; ++k) {
                    acc = std::fma(static_cast<float>(a[k]), static_cast<float>(b[k]), acc);
                    exact += a[k] * b[k];
                    scale += std::fabs(a[k] * b[k]);
                }
                const double got = roundToDtype(acc, dtype);
                worst = std::max(worst, std::fabs(got - exact) / scale);
                // The same sum without its largest term: a plausible indexing bug.
                double largest = 0;
                for (int k = 0; k < K; ++k) largest = std::max(largest, std::fabs(a[k] * b[k]));
                if (largest - std::fabs(got - exact) <= tolerance(dtype, K) * scale) caught = false;
            }
            REQUIRE(worst <= tolerance(dtype, K));
            // Past a few hundred terms one term of a half or bfloat16 result is smaller than the
            // result's own rounding, so no tolerance could see it go missing.
            if (K <= 256) REQUIRE(caught);
        }
    }
}
