#include "run/references/group_by.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

using namespace kx::engine;

namespace {

struct Rows {
    std::vector<double> keys, values;
};

Rows randomRows(std::size_t n, long long keyRange, std::mt19937_64& rng) {
    std::uniform_int_distribution<long long> key(0, keyRange - 1);
    std::uniform_real_distribution<double> value(-1, 1);
    Rows r;
    for (std::size_t i = 0; i < n; ++i) {
        r.keys.push_back(static_cast<double>(key(rng)));
        r.values.push_back(static_cast<double>(static_cast<float>(value(rng))));
    }
    return r;
}

// For each distinct key (a std::set), one scan over all rows: quadratic and plain.
std::vector<GroupAggregate> bruteForce(const Rows& rows, const std::string& agg) {
    std::set<double> distinct(rows.keys.begin(), rows.keys.end());
    std::vector<GroupAggregate> out;
    for (const double k : distinct) {
        GroupAggregate g;
        g.key = static_cast<long long>(k);
        std::vector<double> mine;
        for (std::size_t i = 0; i < rows.keys.size(); ++i)
            if (rows.keys[i] == k) mine.push_back(rows.values[i]);
        g.rows = static_cast<long long>(mine.size());
        for (const double v : mine) g.absSum += std::fabs(v);
        if (agg == "count") g.value = static_cast<double>(mine.size());
        if (agg == "sum")
            for (const double v : mine) g.value += v;
        if (agg == "min") g.value = *std::min_element(mine.begin(), mine.end());
        if (agg == "max") g.value = *std::max_element(mine.begin(), mine.end());
        out.push_back(g);
    }
    return out;
}

// A table as a correct kernel could leave it: capacity 2 x groups (at least 3), each group in a
// random slot, the rest EMPTY with the identity.
struct Table {
    std::vector<double> keys, vals;
};

Table makeTable(const std::vector<GroupAggregate>& groups, const std::string& agg, std::mt19937_64& rng) {
    const std::size_t cap = std::max<std::size_t>(3, 2 * groups.size());
    const double identity = agg == "min" ? std::numeric_limits<double>::infinity()
                            : agg == "max" ? -std::numeric_limits<double>::infinity()
                                           : 0.0;
    Table t{std::vector<double>(cap, -1), std::vector<double>(cap, identity)};
    std::vector<std::size_t> slots(cap);
    for (std::size_t i = 0; i < cap; ++i) slots[i] = i;
    std::shuffle(slots.begin(), slots.end(), rng);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        t.keys[slots[g]] = static_cast<double>(groups[g].key);
        // The kernel's sum is fp32.
        t.vals[slots[g]] = agg == "sum" ? static_cast<double>(static_cast<float>(groups[g].value)) : groups[g].value;
    }
    return t;
}

CheckContext groupContext(const Rows& rows, const Table& table, const std::string& agg) {
    CheckContext ctx;
    ctx.choices["agg"] = agg;
    ctx.sizes["n"] = static_cast<long long>(rows.keys.size());
    ctx.inputs["keys"] = {&dtypeOfCType("int"), rows.keys};
    ctx.inputs["values"] = {&dtypeOfCType("float"), rows.values};
    ctx.outputs["table_keys"] = {&dtypeOfCType("int"), table.keys};
    ctx.outputs["table_vals"] = {&dtypeOfCType(agg == "count" ? "unsigned int" : "float"), table.vals};
    return ctx;
}

bool passes(const CheckContext& ctx) {
    CorrectnessReport report;
    checkGroupBy(ctx, report);
    return report.passed;
}

}  // namespace

TEST_CASE("groupByReference matches a per-key scan", "[reference][group_by]") {
    std::mt19937_64 rng(21);
    for (const std::size_t n : {1, 2, 13, 101, 307}) {
        // A dense key range (the array path) and a sparse one (the std::map path).
        for (const long long keyRange : {7LL, 1000000007LL}) {
            const Rows rows = randomRows(n, keyRange, rng);
            for (const std::string agg : {"sum", "count", "min", "max"}) {
                CAPTURE(n, keyRange, agg);
                const auto got = groupByReference(rows.keys, agg == "count" ? std::vector<double>{} : rows.values, agg);
                const auto want = bruteForce(rows, agg);
                REQUIRE(got.size() == want.size());
                for (std::size_t g = 0; g < got.size(); ++g) {
                    CHECK(got[g].key == want[g].key);
                    CHECK(got[g].rows == want[g].rows);
                    CHECK(got[g].value == Approx(want[g].value).margin(1e-12));
                    if (agg == "sum") CHECK(got[g].absSum == Approx(want[g].absSum).margin(1e-12));
                }
            }
        }
    }
}

TEST_CASE("groupByReference skips NaN in min and max and rejects bad input", "[reference][group_by]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> keys = {5, 5, 5, 9};
    const std::vector<double> values = {nan, 2, -3, nan};
    const auto mins = groupByReference(keys, values, "min");
    REQUIRE(mins.size() == 2);
    CHECK(mins[0].value == -3);
    CHECK(mins[1].value == std::numeric_limits<double>::infinity());
    CHECK(groupByReference(keys, values, "max")[0].value == 2);
    CHECK(std::isnan(groupByReference(keys, values, "sum")[0].value));
    CHECK_THROWS(groupByReference(keys, values, "mean"));
    CHECK_THROWS(groupByReference(keys, {1, 2}, "sum"));
    CHECK(groupByReference({}, {}, "sum").empty());
}

TEST_CASE("checkGroupBy passes a correct table and fails a wrong one", "[reference][group_by]") {
    std::mt19937_64 rng(22);
    for (const std::size_t n : {1, 29, 400}) {
        const Rows rows = randomRows(n, 37, rng);
        for (const std::string agg : {"sum", "count", "min", "max"}) {
            CAPTURE(n, agg);
            const auto groups = groupByReference(rows.keys, rows.values, agg);
            const Table table = makeTable(groups, agg, rng);
            const CheckContext good = groupContext(rows, table, agg);
            CorrectnessReport report;
            checkGroupBy(good, report);
            CHECK(report.passed);
            CHECK(report.checked == report.total);
            CHECK(report.total == 2 * static_cast<long long>(table.keys.size()) + 1);

            const auto slotOfFirst = static_cast<std::size_t>(
                std::find(table.keys.begin(), table.keys.end(), static_cast<double>(groups[0].key)) - table.keys.begin());
            const auto firstEmpty = static_cast<std::size_t>(std::find(table.keys.begin(), table.keys.end(), -1.0) - table.keys.begin());
            REQUIRE(firstEmpty < table.keys.size());

            CheckContext bad = good;  // a wrong aggregate
            bad.outputs["table_vals"].values[slotOfFirst] += agg == "sum" ? 0.01 : 1;
            CHECK_FALSE(passes(bad));

            bad = good;  // a NaN aggregate
            bad.outputs["table_vals"].values[slotOfFirst] = std::numeric_limits<double>::quiet_NaN();
            CHECK_FALSE(passes(bad));

            bad = good;  // a key lost
            bad.outputs["table_keys"].values[slotOfFirst] = -1;
            bad.outputs["table_vals"].values[slotOfFirst] = good.outputs.at("table_vals").values[firstEmpty];
            CHECK_FALSE(passes(bad));

            bad = good;  // a key twice
            bad.outputs["table_keys"].values[firstEmpty] = static_cast<double>(groups[0].key);
            bad.outputs["table_vals"].values[firstEmpty] = good.outputs.at("table_vals").values[slotOfFirst];
            CHECK_FALSE(passes(bad));

            bad = good;  // a key no row has
            bad.outputs["table_keys"].values[firstEmpty] = 1000;
            CHECK_FALSE(passes(bad));

            bad = good;  // an empty slot written to
            bad.outputs["table_vals"].values[firstEmpty] = 0.5;
            CHECK_FALSE(passes(bad));
        }
    }
}

TEST_CASE("checkGroupBy allows fp32 rounding in a sum, and no more", "[reference][group_by]") {
    std::mt19937_64 rng(23);
    const Rows rows = randomRows(500, 3, rng);
    const auto groups = groupByReference(rows.keys, rows.values, "sum");
    Table table = makeTable(groups, "sum", rng);
    const auto slot = static_cast<std::size_t>(std::find(table.keys.begin(), table.keys.end(), static_cast<double>(groups[0].key)) -
                                               table.keys.begin());
    const double ulp = std::ldexp(1.0, -23) * std::max(1.0, std::fabs(groups[0].value));
    table.vals[slot] = groups[0].value + 4 * ulp;  // a few fp32 roundings off: fine
    CHECK(passes(groupContext(rows, table, "sum")));
    table.vals[slot] = groups[0].value + 0.1 * groups[0].absSum;  // far off
    CHECK_FALSE(passes(groupContext(rows, table, "sum")));
}
