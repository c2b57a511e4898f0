#include "run/references/histogram.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

// Samples as the runner makes them for f32: uniform over [lo - range/16, hi + range/16), rounded
// to fp32 (so some fall outside [lo, hi) and are dropped).
std::vector<double> floatSamples(std::size_t n, double lo, double hi, std::mt19937_64& rng) {
    const double margin = (hi - lo) / 16;
    std::uniform_real_distribution<double> dist(lo - margin, hi + margin);
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<float>(dist(rng));
    return v;
}

// Brute force for lo = 0, hi = 1 and a power-of-two bin count, where fp32 binning is exact: bin
// b holds the samples in [b / bins, (b + 1) / bins), found by testing every bin's edges.
std::vector<std::uint64_t> countByEdges(int bins, const std::vector<double>& samples) {
    std::vector<std::uint64_t> counts(bins, 0);
    for (double x : samples)
        for (int b = 0; b < bins; ++b)
            if (x >= static_cast<double>(b) / bins && x < static_cast<double>(b + 1) / bins) ++counts[b];
    return counts;
}

// Brute force for integer keys: bin b holds the keys equal to b.
std::vector<std::uint64_t> countByKey(int bins, const std::vector<double>& keys) {
    std::vector<std::uint64_t> counts(bins, 0);
    for (int b = 0; b < bins; ++b)
        for (double k : keys)
            if (k == b) ++counts[b];
    return counts;
}

CheckContext histogramContext(bool intKeys, int bins, const std::vector<double>& samples, const std::vector<double>& hist) {
    CheckContext ctx;
    ctx.variables = {{"is_int", intKeys ? 1 : 0}, {"BINS", bins}, {"LO", 0}, {"HI", 1}};
    ctx.choices = {{"dtype", intKeys ? "i32" : "f32"}, {"privatize", "block"}};
    ctx.sizes = {{"n", static_cast<long long>(samples.size())}};
    ctx.inputs["samples"] = HostArray{&dtypeNamed(intKeys ? "i32" : "f32"), samples};
    ctx.outputs["hist"] = HostArray{&dtypeNamed("u32"), hist};
    return ctx;
}

std::vector<double> asDoubles(const std::vector<std::uint64_t>& counts) { return {counts.begin(), counts.end()}; }

}  // namespace

TEST_CASE("histogramReference counts f32 samples like testing every bin's edges", "[reference][histogram]") {
    std::mt19937_64 rng(11);
    for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{97}, std::size_t{331}}) {
        for (const int bins : {1, 2, 16, 64, 256}) {
            CAPTURE(n, bins);
            const auto samples = floatSamples(n, 0, 1, rng);
            REQUIRE(histogramReference(false, bins, 0.0f, 1.0f, samples.data(), n) == countByEdges(bins, samples));
        }
    }
}

TEST_CASE("histogramReference counts integer keys in their own bins and drops the rest", "[reference][histogram]") {
    std::mt19937_64 rng(12);
    for (const std::size_t n : {std::size_t{1}, std::size_t{13}, std::size_t{257}}) {
        for (const int bins : {1, 3, 100, 1000}) {
            CAPTURE(n, bins);
            // Keys a little outside [0, bins) as well, which must be dropped.
            std::uniform_int_distribution<int> dist(-2, bins + 1);
            std::vector<double> keys(n);
            for (double& k : keys) k = dist(rng);
            REQUIRE(histogramReference(true, bins, 0.0f, 1.0f, keys.data(), n) == countByKey(bins, keys));
        }
    }
}

TEST_CASE("histogramBin follows fp32 arithmetic, not exact arithmetic, at a bin edge", "[reference][histogram]") {
    // Find a float just below k / 10 whose fp32 product with scale = 10 rounds up to k: the GPU
    // (and CUB) put it in bin k, while exact arithmetic would put it in bin k - 1.
    bool found = false;
    for (int k = 1; k < 10 && !found; ++k) {
        float x = static_cast<float>(k) / 10.0f;
        for (int step = 0; step < 8 && !found; ++step, x = std::nextafter(x, 0.0f)) {
            const float scaled = x * 10.0f;
            const double exact = static_cast<double>(x) * 10.0;
            if (scaled >= static_cast<float>(k) && exact < k) {
                found = true;
                CAPTURE(k, x);
                REQUIRE(histogramBin(false, 10, 0.0f, 1.0f, x) == k);
                REQUIRE(static_cast<int>(std::floor(exact)) == k - 1);
            }
        }
    }
    REQUIRE(found);
}

TEST_CASE("histogramBin drops samples below lo, at or above hi and NaN, and caps at the last bin", "[reference][histogram]") {
    REQUIRE(histogramBin(false, 16, 0.0f, 1.0f, 0.0) == 0);
    REQUIRE(histogramBin(false, 16, 0.0f, 1.0f, 1.0) == -1);
    REQUIRE(histogramBin(false, 16, 0.0f, 1.0f, -1e-30) == -1);
    REQUIRE(histogramBin(false, 16, 0.0f, 1.0f, std::numeric_limits<double>::quiet_NaN()) == -1);
    REQUIRE(histogramBin(false, 16, 0.0f, 1.0f, std::nextafter(1.0f, 0.0f)) == 15);
    // Over [-1, 1) the largest float below 1 is 1 - 2^-24; x - lo = 2 - 2^-24 rounds (to even)
    // to 2 in fp32, which would be bin 16 of 16 without the cap.
    REQUIRE(histogramBin(false, 16, -1.0f, 1.0f, std::nextafter(1.0f, 0.0f)) == 15);
    REQUIRE(histogramBin(true, 4, 0.0f, 1.0f, 3) == 3);
    REQUIRE(histogramBin(true, 4, 0.0f, 1.0f, 4) == -1);
    REQUIRE(histogramBin(true, 4, 0.0f, 1.0f, -1) == -1);
}

TEST_CASE("checkHistogram passes correct counts and fails corrupted ones", "[reference][histogram]") {
    std::mt19937_64 rng(13);
    const int bins = 64;
    const auto samples = floatSamples(1009, 0, 1, rng);
    const auto good = asDoubles(countByEdges(bins, samples));

    {
        CorrectnessReport r;
        checkHistogram(histogramContext(false, bins, samples, good), r);
        REQUIRE(r.passed);
        REQUIRE(r.total == bins);
        REQUIRE(r.checked == bins);
        REQUIRE_FALSE(r.method.empty());
    }
    {
        auto bad = good;
        bad[17] += 1;  // one count off by one
        CorrectnessReport r;
        checkHistogram(histogramContext(false, bins, samples, bad), r);
        REQUIRE_FALSE(r.passed);
        REQUIRE(r.firstBadIndex == 17);
        REQUIRE(r.firstBadText.find("hist[17]") != std::string::npos);
    }
    {
        auto bad = good;
        bad[bins - 1] = 4294967295.0;  // a counter left at the runner's 0xFF poison
        CorrectnessReport r;
        checkHistogram(histogramContext(false, bins, samples, bad), r);
        REQUIRE_FALSE(r.passed);
        REQUIRE(r.firstBadIndex == bins - 1);
    }
    {
        // Counts that would be right if out-of-range samples were clamped into the end bins.
        auto clamped = good;
        for (double x : samples) {
            if (x < 0) clamped[0] += 1;
            if (x >= 1) clamped[bins - 1] += 1;
        }
        CorrectnessReport r;
        checkHistogram(histogramContext(false, bins, samples, clamped), r);
        REQUIRE_FALSE(r.passed);
    }
    {
        // The wrong number of bins is a manifest that does not match the reference.
        auto shortHist = good;
        shortHist.pop_back();
        CorrectnessReport r;
        REQUIRE_THROWS_AS(checkHistogram(histogramContext(false, bins, samples, shortHist), r), InputError);
    }
}

TEST_CASE("checkHistogram compares with CUB's counts when the baseline wrote them", "[reference][histogram]") {
    std::mt19937_64 rng(14);
    const int bins = 7;
    std::uniform_int_distribution<int> dist(0, bins - 1);
    std::vector<double> keys(211);
    for (double& k : keys) k = dist(rng);
    const auto good = asDoubles(countByKey(bins, keys));

    CheckContext ctx = histogramContext(true, bins, keys, good);
    ctx.baselineOutputs["cub_histogram"] = HostArray{&dtypeNamed("u32"), good};
    CorrectnessReport agree;
    checkHistogram(ctx, agree);
    REQUIRE(agree.passed);
    REQUIRE(agree.baselineCompared);
    REQUIRE(agree.baselineAgrees);

    auto differs = good;
    differs[3] += 2;
    ctx.baselineOutputs["cub_histogram"] = HostArray{&dtypeNamed("u32"), differs};
    CorrectnessReport disagree;
    checkHistogram(ctx, disagree);
    REQUIRE(disagree.baselineCompared);
    REQUIRE_FALSE(disagree.baselineAgrees);
    REQUIRE_FALSE(disagree.passed);
}
