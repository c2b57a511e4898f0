#include "run/references/filter.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"
#include "run/reference.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace kx::engine;

namespace {

// The kernel's way: 0/1 flags, an exclusive prefix sum of them gives each kept element's slot,
// then a scatter.
std::vector<double> scatterFilter(const std::vector<double>& in, const std::string& pred, double threshold) {
    std::vector<int> flag(in.size()), slot(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const double x = in[i];
        flag[i] = pred == "gt" ? x > threshold : pred == "lt" ? x < threshold : pred == "eq" ? x == threshold
                                                                 : pred == "ne" ? x != threshold
                                                                                : x != 0.0;
    }
    int running = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        slot[i] = running;
        running += flag[i];
    }
    std::vector<double> out(running);
    for (std::size_t i = 0; i < in.size(); ++i)
        if (flag[i]) out[slot[i]] = in[i];
    return out;
}

std::vector<double> randomInputs(std::size_t n, bool integers, std::mt19937_64& rng) {
    std::vector<double> v(n);
    std::uniform_real_distribution<double> real(-1, 1);
    std::uniform_int_distribution<int> integer(-5, 4);  // a narrow range, so eq and nonzero keep some
    for (double& x : v) x = integers ? integer(rng) : roundToDtype(real(rng), "f32");
    return v;
}

// out has room for n elements, as the kernel's does; past the kept ones it holds `fill`.
CheckContext filterContext(const std::string& dtype, const std::string& pred, double threshold, const std::vector<double>& in,
                           std::vector<double> kept, double count, double fill = std::nan("")) {
    CheckContext ctx;
    ctx.choices = {{"pred", pred}, {"dtype", dtype}};
    ctx.variables = {{"THRESHOLD", threshold}};
    ctx.sizes = {{"n", static_cast<long long>(in.size())}};
    ctx.inputs["in"] = HostArray{findDtype(dtype), in};
    kept.resize(in.size(), fill);
    ctx.outputs["out"] = HostArray{findDtype(dtype), kept};
    ctx.outputs["count"] = HostArray{findDtype("i32"), {count}};
    return ctx;
}

CorrectnessReport runCheck(const CheckContext& ctx) {
    CorrectnessReport r;
    checkFilter(ctx, r);
    return r;
}

}  // namespace

TEST_CASE("filterReference matches a flag-scan-scatter filter", "[reference][filter]") {
    std::mt19937_64 rng(17);
    for (const std::size_t n : {1u, 2u, 31u, 97u, 389u}) {
        for (const bool integers : {false, true}) {
            const auto in = randomInputs(n, integers, rng);
            for (const char* pred : {"gt", "lt", "eq", "ne", "nonzero"}) {
                for (const double threshold : {0.0, integers ? 2.0 : 0.25}) {
                    CAPTURE(n, integers, pred, threshold);
                    REQUIRE(filterReference(in, filterPredicateNamed(pred), threshold) == scatterFilter(in, pred, threshold));
                }
            }
        }
    }
    REQUIRE_THROWS_AS(filterPredicateNamed("ge"), InputError);
}

TEST_CASE("filterKeeps follows IEEE comparisons", "[reference][filter]") {
    const double nan = std::nan("");
    REQUIRE_FALSE(filterKeeps(FilterPredicate::Greater, nan, 0));
    REQUIRE_FALSE(filterKeeps(FilterPredicate::Equal, nan, nan));
    REQUIRE(filterKeeps(FilterPredicate::NotEqual, nan, 0));
    REQUIRE(filterKeeps(FilterPredicate::NonZero, nan, 0));
    REQUIRE_FALSE(filterKeeps(FilterPredicate::NonZero, -0.0, 5));  // -0 == 0; the threshold is ignored
    REQUIRE(filterKeeps(FilterPredicate::NonZero, 5, 5));
}

TEST_CASE("checkFilter passes the kept elements and fails corrupted ones", "[reference][filter]") {
    std::mt19937_64 rng(23);
    for (const std::size_t n : {1u, 3u, 101u, 1000u}) {
        for (const char* dtype : {"f32", "i32"}) {
            for (const char* pred : {"gt", "lt", "eq", "ne", "nonzero"}) {
                CAPTURE(n, dtype, pred);
                const bool integers = std::string(dtype) == "i32";
                const auto in = randomInputs(n, integers, rng);
                const auto kept = filterReference(in, filterPredicateNamed(pred), 0);
                const double count = static_cast<double>(kept.size());

                const CorrectnessReport good = runCheck(filterContext(dtype, pred, 0, in, kept, count));
                REQUIRE(good.passed);
                REQUIRE(good.checked == 1 + static_cast<long long>(kept.size()));
                REQUIRE(good.total == 1 + static_cast<long long>(kept.size()));

                // Whatever lies past the count is not looked at.
                REQUIRE(runCheck(filterContext(dtype, pred, 0, in, kept, count, 12345.0)).passed);

                // A wrong count, the poisoned count (0xFF bytes: -1), and one too many.
                if (!kept.empty()) REQUIRE_FALSE(runCheck(filterContext(dtype, pred, 0, in, kept, count - 1)).passed);
                const CorrectnessReport poisonedCount = runCheck(filterContext(dtype, pred, 0, in, kept, -1));
                REQUIRE_FALSE(poisonedCount.passed);
                REQUIRE(poisonedCount.firstBadText.rfind("count[0] = -1", 0) == 0);
                if (kept.size() < n) REQUIRE_FALSE(runCheck(filterContext(dtype, pred, 0, in, kept, count + 1)).passed);

                if (!kept.empty()) {
                    // One element changed, and one never written (NaN for f32).
                    auto bad = kept;
                    bad[kept.size() / 2] += 1;
                    const CorrectnessReport wrong = runCheck(filterContext(dtype, pred, 0, in, bad, count));
                    REQUIRE_FALSE(wrong.passed);
                    REQUIRE(wrong.firstBadIndex == static_cast<long long>(kept.size() / 2));
                    REQUIRE(wrong.firstBadText.rfind("out[" + std::to_string(kept.size() / 2) + "] = ", 0) == 0);
                    if (!integers) {
                        auto poisoned = kept;
                        poisoned.back() = std::nan("");
                        REQUIRE_FALSE(runCheck(filterContext(dtype, pred, 0, in, poisoned, count)).passed);
                    }
                }
                // Two distinct kept elements swapped: the right values in the wrong order.
                if (kept.size() >= 2 && kept[0] != kept[1]) {
                    auto swapped = kept;
                    std::swap(swapped[0], swapped[1]);
                    REQUIRE_FALSE(runCheck(filterContext(dtype, pred, 0, in, swapped, count)).passed);
                }
            }
        }
    }
}

TEST_CASE("checkFilter rounds the threshold to the input's type", "[reference][filter]") {
    // 0.1 is not a float; the kernel compares with 0.1f, which is slightly above 0.1.
    const double tenthF = roundToDtype(0.1, "f32");
    REQUIRE(tenthF > 0.1);
    const std::vector<double> in = {tenthF, 0.5, -1};
    const std::vector<double> kept = {0.5};
    REQUIRE(runCheck(filterContext("f32", "gt", 0.1, in, kept, 1)).passed);
    // Integers: 2.7 arrives as 2.
    const std::vector<double> ints = {1, 2, 3};
    REQUIRE(runCheck(filterContext("i32", "gt", 2.7, ints, {3}, 1)).passed);
    REQUIRE(runCheck(filterContext("i32", "eq", 2.7, ints, {2}, 1)).passed);
}
