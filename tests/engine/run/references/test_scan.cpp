#include "run/references/scan.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"
#include "run/reference.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace kx::engine;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

// Element i computed on its own from the inputs it covers (O(n^2)): a sum in long double, or
// for integers in 64 bits (the test inputs cannot overflow it) then cut to the type's width
// through the unsigned type, the way a wrapping register would hold it.
double bruteForceElement(const std::vector<double>& in, std::size_t i, ScanOp op, bool exclusive, int intBits) {
    const std::size_t end = exclusive ? i : i + 1;  // elements [0, end) are covered
    if (intBits == 0) {
        if (op == ScanOp::Sum) {
            long double s = 0;
            for (std::size_t j = 0; j < end; ++j) s += in[j];
            return static_cast<double>(s);
        }
        double v = op == ScanOp::Max ? -kInf : kInf;
        for (std::size_t j = 0; j < end; ++j) v = op == ScanOp::Max ? std::fmax(v, in[j]) : std::fmin(v, in[j]);
        return v;
    }
    if (op == ScanOp::Sum) {
        std::int64_t s = 0;
        for (std::size_t j = 0; j < end; ++j) s += static_cast<std::int64_t>(in[j]);
        if (intBits == 32) return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(s)));
        return static_cast<double>(static_cast<std::int64_t>(static_cast<std::uint64_t>(s)));
    }
    const double lowest = intBits == 32 ? -2147483648.0 : -9223372036854775808.0;
    const double highest = intBits == 32 ? 2147483647.0 : 9223372036854775807.0;
    double v = op == ScanOp::Max ? lowest : highest;
    for (std::size_t j = 0; j < end; ++j) v = op == ScanOp::Max ? std::max(v, in[j]) : std::min(v, in[j]);
    return v;
}

std::vector<double> randomInputs(std::size_t n, bool integers, std::mt19937_64& rng) {
    std::vector<double> v(n);
    std::uniform_real_distribution<double> real(-1, 1);
    std::uniform_int_distribution<int> integer(-100, 99);
    for (double& x : v) x = integers ? integer(rng) : roundToDtype(real(rng), "f32");
    return v;
}

// What a correct fp32 kernel could return: the scan accumulated in float, in order.
std::vector<double> fp32Scan(const std::vector<double>& in, bool exclusive) {
    std::vector<double> out(in.size());
    float s = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (exclusive) out[i] = s;
        s += static_cast<float>(in[i]);
        if (!exclusive) out[i] = s;
    }
    return out;
}

CheckContext scanContext(const std::string& dtype, const std::string& op, const std::string& kind, const std::vector<double>& in,
                         const std::vector<double>& out) {
    CheckContext ctx;
    ctx.choices = {{"op", op}, {"kind", kind}, {"dtype", dtype}};
    ctx.sizes = {{"n", static_cast<long long>(in.size())}};
    ctx.inputs["in"] = HostArray{findDtype(dtype), in};
    ctx.outputs["out"] = HostArray{findDtype(dtype), out};
    return ctx;
}

CorrectnessReport runCheck(const CheckContext& ctx) {
    CorrectnessReport r;
    checkScan(ctx, r);
    return r;
}

}  // namespace

TEST_CASE("scanReference matches element-by-element folds", "[reference][scan]") {
    std::mt19937_64 rng(11);
    struct Arith { const char* name; ScanArithmetic arithmetic; int bits; };
    const Arith ariths[] = {{"f32", {false, 64}, 0}, {"i32", {true, 32}, 32}, {"i64", {true, 64}, 64}};
    for (const std::size_t n : {1u, 2u, 7u, 31u, 97u, 257u, 400u}) {
        for (const Arith& a : ariths) {
            const auto in = randomInputs(n, a.arithmetic.isInteger, rng);
            for (const ScanOp op : {ScanOp::Sum, ScanOp::Max, ScanOp::Min}) {
                for (const bool exclusive : {false, true}) {
                    CAPTURE(n, a.name, static_cast<int>(op), exclusive);
                    const auto ref = scanReference(in, op, exclusive, a.arithmetic);
                    REQUIRE(ref.size() == n);
                    for (std::size_t i = 0; i < n; ++i) {
                        CAPTURE(i);
                        const double expected = bruteForceElement(in, i, op, exclusive, a.bits);
                        if (a.bits == 0 && op == ScanOp::Sum) REQUIRE(ref[i] == Approx(expected).margin(1e-12));
                        else REQUIRE(ref[i] == expected);
                    }
                }
            }
        }
    }
}

TEST_CASE("scanReference identities and integer wrap-around", "[reference][scan]") {
    const std::vector<double> one = {5};
    REQUIRE(scanReference(one, ScanOp::Sum, true, {false, 64})[0] == 0);
    REQUIRE(scanReference(one, ScanOp::Max, true, {false, 64})[0] == -kInf);
    REQUIRE(scanReference(one, ScanOp::Min, true, {false, 64})[0] == kInf);
    REQUIRE(scanReference(one, ScanOp::Max, true, {true, 32})[0] == -2147483648.0);
    REQUIRE(scanReference(one, ScanOp::Min, true, {true, 32})[0] == 2147483647.0);
    REQUIRE(scanReference(one, ScanOp::Min, true, {true, 64})[0] == 9223372036854775807.0);

    // An i32 sum past INT_MAX wraps to the negative side, as the kernel's register does.
    const std::vector<double> big = {2147483647.0, 1, 1, -3};
    const auto wrapped = scanReference(big, ScanOp::Sum, false, {true, 32});
    REQUIRE(wrapped == std::vector<double>{2147483647.0, -2147483648.0, -2147483647.0, 2147483646.0});
    // In 64 bits the same sums do not wrap.
    REQUIRE(scanReference(big, ScanOp::Sum, false, {true, 64})[1] == 2147483648.0);

    // Float max skips NaNs, like fmaxf.
    const std::vector<double> withNan = {1, std::nan(""), 3, 2};
    REQUIRE(scanReference(withNan, ScanOp::Max, false, {false, 64}) == std::vector<double>{1, 1, 3, 3});

    REQUIRE(scanOpNamed("min") == ScanOp::Min);
    REQUIRE_THROWS_AS(scanOpNamed("prod"), InputError);
}

TEST_CASE("checkScan passes fp32 prefix sums and fails corrupted ones", "[reference][scan]") {
    std::mt19937_64 rng(5);
    for (const std::size_t n : {1u, 13u, 257u, 5000u}) {
        for (const bool exclusive : {false, true}) {
            CAPTURE(n, exclusive);
            const auto in = randomInputs(n, false, rng);
            const std::string kind = exclusive ? "exclusive" : "inclusive";
            auto out = fp32Scan(in, exclusive);
            const CorrectnessReport good = runCheck(scanContext("f32", "sum", kind, in, out));
            REQUIRE(good.passed);
            REQUIRE(good.checked == static_cast<long long>(n));
            REQUIRE(good.total == static_cast<long long>(n));
            REQUIRE(good.maxRelError <= good.tolerance);

            // One element off by far more than rounding: the allowance is about 8 sqrt(k) 2^-24
            // times the prefix sum of |x| (about k / 2 here).
            const std::size_t k = n / 2;
            auto bad = out;
            bad[k] += 0.01 * static_cast<double>(k + 1);
            const CorrectnessReport wrong = runCheck(scanContext("f32", "sum", kind, in, bad));
            REQUIRE_FALSE(wrong.passed);
            REQUIRE(wrong.firstBadIndex == static_cast<long long>(k));
            REQUIRE(wrong.firstBadText.rfind("out[" + std::to_string(k) + "] = ", 0) == 0);

            // An element never written keeps its NaN poison.
            auto poisoned = out;
            poisoned[n - 1] = std::nan("");
            REQUIRE_FALSE(runCheck(scanContext("f32", "sum", kind, in, poisoned)).passed);
        }
    }
    // An inclusive result checked as exclusive is wrong (for n > 1 with nonzero data).
    const std::vector<double> in = {0.5, 0.25, -1};
    REQUIRE_FALSE(runCheck(scanContext("f32", "sum", "exclusive", in, fp32Scan(in, false))).passed);
}

TEST_CASE("checkScan is exact for integers and for max and min", "[reference][scan]") {
    std::mt19937_64 rng(9);
    for (const char* dtype : {"i32", "i64"}) {
        for (const char* op : {"sum", "max", "min"}) {
            CAPTURE(dtype, op);
            const auto in = randomInputs(211, true, rng);
            const ScanArithmetic a{true, std::string(dtype) == "i32" ? 32 : 64};
            auto out = scanReference(in, scanOpNamed(op), false, a);
            REQUIRE(runCheck(scanContext(dtype, op, "inclusive", in, out)).passed);
            out[100] += 1;  // off by one
            const CorrectnessReport r = runCheck(scanContext(dtype, op, "inclusive", in, out));
            REQUIRE_FALSE(r.passed);
            REQUIRE(r.firstBadIndex == 100);
        }
    }
    // f32 max: exact, with the exclusive scan starting at -infinity.
    const auto in = randomInputs(64, false, rng);
    auto out = scanReference(in, ScanOp::Max, true, {false, 64});
    REQUIRE(out[0] == -kInf);
    REQUIRE(runCheck(scanContext("f32", "max", "exclusive", in, out)).passed);
    out[0] = -3.4028234663852886e38;  // -FLT_MAX is not the identity
    REQUIRE_FALSE(runCheck(scanContext("f32", "max", "exclusive", in, out)).passed);
}

TEST_CASE("checkScan compares with CUB's output when it has one", "[reference][scan]") {
    std::mt19937_64 rng(3);
    const auto in = randomInputs(300, false, rng);
    const auto out = fp32Scan(in, false);
    CheckContext ctx = scanContext("f32", "sum", "inclusive", in, out);
    ctx.baselineOutputs["cub_scan"] = HostArray{findDtype("f32"), out};
    CorrectnessReport r = runCheck(ctx);
    REQUIRE(r.baselineCompared);
    REQUIRE(r.baselineAgrees);
    REQUIRE(r.passed);

    ctx.baselineOutputs["cub_scan"].values[7] += 1;
    r = runCheck(ctx);
    REQUIRE(r.baselineCompared);
    REQUIRE_FALSE(r.baselineAgrees);
    REQUIRE_FALSE(r.passed);
}

TEST_CASE("checkScan rejects a context that does not match the template", "[reference][scan]") {
    const std::vector<double> in = {1, 2, 3};
    REQUIRE_THROWS_AS(runCheck(scanContext("f32", "prod", "inclusive", in, in)), InputError);
    REQUIRE_THROWS_AS(runCheck(scanContext("f32", "sum", "both", in, in)), InputError);
    CheckContext shortOut = scanContext("f32", "sum", "inclusive", in, {1, 3});
    REQUIRE_THROWS_AS(runCheck(shortOut), InputError);
}
