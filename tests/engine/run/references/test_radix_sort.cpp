#include "run/references/radix_sort.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

std::vector<double> randomKeys(std::size_t n, std::uint64_t range, std::mt19937_64& rng) {
    std::uniform_int_distribution<std::uint64_t> pick(0, range - 1);
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<double>(pick(rng));
    return v;
}

std::vector<double> iota(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
    return v;
}

// Insertion sort: an element moves left only past strictly greater keys, so equal keys keep
// their order. Quadratic, and nothing like the reference's code.
SortedKeys insertionSort(std::vector<double> keys, std::vector<double> values) {
    for (std::size_t i = 1; i < keys.size(); ++i)
        for (std::size_t j = i; j > 0 && keys[j - 1] > keys[j]; --j) {
            std::swap(keys[j - 1], keys[j]);
            if (!values.empty()) std::swap(values[j - 1], values[j]);
        }
    return {keys, values};
}

HostArray u32Array(std::vector<double> values) { return {&dtypeOfCType("unsigned int"), std::move(values)}; }

CheckContext sortContext(const std::vector<double>& keys, bool pairs) {
    CheckContext ctx;
    ctx.variables["pairs"] = pairs ? 1 : 0;
    ctx.sizes["n"] = static_cast<long long>(keys.size());
    ctx.inputs["keys"] = u32Array(keys);
    ctx.inputs["values"] = u32Array(pairs ? iota(keys.size()) : std::vector<double>{0});
    const SortedKeys sorted = radixSortReference(keys, pairs ? iota(keys.size()) : std::vector<double>{});
    ctx.outputs["keys_out"] = u32Array(sorted.keys);
    ctx.outputs["values_out"] = u32Array(pairs ? sorted.values : std::vector<double>{0});
    return ctx;
}

bool passes(const CheckContext& ctx) {
    CorrectnessReport report;
    checkRadixSort(ctx, report);
    return report.passed;
}

}  // namespace

TEST_CASE("radixSortReference matches an insertion sort", "[reference][radix_sort]") {
    std::mt19937_64 rng(11);
    for (const std::size_t n : {1, 2, 7, 13, 101, 257, 499}) {
        // A small key range makes many equal keys, so stability matters; the full range does not.
        for (const std::uint64_t range : {std::uint64_t{5}, std::uint64_t{1} << 32}) {
            CAPTURE(n, range);
            const auto keys = randomKeys(n, range, rng);
            const SortedKeys got = radixSortReference(keys, iota(n));
            const SortedKeys want = insertionSort(keys, iota(n));
            CHECK(got.keys == want.keys);
            CHECK(got.values == want.values);
            CHECK(radixSortReference(keys, {}).keys == want.keys);
            CHECK(radixSortReference(keys, {}).values.empty());
        }
    }
}

TEST_CASE("radixSortReference's counting sort matches a sort of (key, position) pairs", "[reference][radix_sort]") {
    std::mt19937_64 rng(12);
    const std::size_t n = kCountingSortThreshold + 13;
    for (const std::uint64_t range : {std::uint64_t{1000}, std::uint64_t{1} << 32}) {
        CAPTURE(range);
        const auto keys = randomKeys(n, range, rng);
        std::vector<std::pair<double, double>> pairs(n);
        for (std::size_t i = 0; i < n; ++i) pairs[i] = {keys[i], static_cast<double>(i)};
        std::sort(pairs.begin(), pairs.end());  // by key, then by position: the stable order
        const SortedKeys got = radixSortReference(keys, iota(n));
        bool same = true;
        for (std::size_t i = 0; i < n; ++i) same = same && got.keys[i] == pairs[i].first && got.values[i] == pairs[i].second;
        CHECK(same);
    }
}

TEST_CASE("radixSortReference rejects keys that are not 32-bit unsigned integers", "[reference][radix_sort]") {
    CHECK_THROWS(radixSortReference({1, -1}, {}));
    CHECK_THROWS(radixSortReference({1, 4294967296.0}, {}));
    CHECK_THROWS(radixSortReference({1.5}, {}));
    CHECK_THROWS(radixSortReference({1, 2}, {0}));
}

TEST_CASE("checkRadixSort passes a correct sort and fails a wrong one", "[reference][radix_sort]") {
    std::mt19937_64 rng(13);
    for (const std::size_t n : {1, 31, 300}) {
        for (const bool pairs : {false, true}) {
            CAPTURE(n, pairs);
            const auto keys = randomKeys(n, 7, rng);
            const CheckContext good = sortContext(keys, pairs);
            CorrectnessReport report;
            checkRadixSort(good, report);
            CHECK(report.passed);
            CHECK(report.total == static_cast<long long>(pairs ? 2 * n : n));
            CHECK(report.checked == report.total);

            CheckContext bad = good;
            bad.outputs["keys_out"].values[n / 2] += 1;
            CHECK_FALSE(passes(bad));

            bad = good;
            bad.outputs["keys_out"].values[n - 1] = std::numeric_limits<double>::quiet_NaN();
            CHECK_FALSE(passes(bad));

            if (pairs && n > 1) {
                // Equal keys with their values swapped: a sorted but unstable result.
                bad = good;
                const auto& out = bad.outputs["keys_out"].values;
                std::size_t i = 0;
                while (i + 1 < n && out[i] != out[i + 1]) ++i;
                REQUIRE(i + 1 < n);
                std::swap(bad.outputs["values_out"].values[i], bad.outputs["values_out"].values[i + 1]);
                CHECK_FALSE(passes(bad));
            }
        }
    }
}

TEST_CASE("checkRadixSort compares CUB's keys when the baseline wrote them", "[reference][radix_sort]") {
    std::mt19937_64 rng(14);
    const auto keys = randomKeys(100, std::uint64_t{1} << 32, rng);
    CheckContext ctx = sortContext(keys, false);
    ctx.baselineOutputs["cub_radix_sort"] = ctx.outputs["keys_out"];
    CorrectnessReport report;
    checkRadixSort(ctx, report);
    CHECK(report.passed);
    CHECK(report.baselineCompared);
    CHECK(report.baselineAgrees);

    ctx.baselineOutputs["cub_radix_sort"].values[3] += 1;
    CHECK_FALSE(passes(ctx));
}
