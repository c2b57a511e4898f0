// Group-by: the kernel's raw hash table read as a set of (key, aggregate) pairs, against a
// float64 aggregation of the rows by key. Slot order does not matter; every slot is checked.
#include "run/references/group_by.hpp"

#include "run/reference.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace kx::engine {

namespace {

constexpr double kEmptyKey = -1;  // what the kernel's clear step writes to a free slot

double identityOf(const std::string& agg) {
    if (agg == "min") return std::numeric_limits<double>::infinity();
    if (agg == "max") return -std::numeric_limits<double>::infinity();
    return 0;
}

void fold(GroupAggregate& g, const std::string& agg, double v) {
    ++g.rows;
    if (agg == "sum") {
        g.value += v;
        g.absSum += std::fabs(v);
    } else if (agg == "count") {
        g.value += 1;
    } else if (agg == "min") {
        if (v < g.value) g.value = v;  // false for NaN: skipped
    } else if (v > g.value) {
        g.value = v;
    }
}

}  // namespace

std::vector<GroupAggregate> groupByReference(const std::vector<double>& keys, const std::vector<double>& values, const std::string& agg) {
    if (agg != "sum" && agg != "count" && agg != "min" && agg != "max")
        throw InputError("group_by: unknown aggregate '" + agg + "' (sum, count, min or max)");
    const bool useValues = agg != "count";
    if (useValues && values.size() != keys.size())
        throw InputError("group_by: " + std::to_string(keys.size()) + " keys but " + std::to_string(values.size()) + " values");
    std::vector<GroupAggregate> out;
    if (keys.empty()) return out;
    const auto [lo, hi] = std::minmax_element(keys.begin(), keys.end());
    const long long minKey = static_cast<long long>(*lo), maxKey = static_cast<long long>(*hi);
    GroupAggregate blank;
    blank.value = identityOf(agg);
    const double range = static_cast<double>(maxKey) - static_cast<double>(minKey) + 1;
    if (range <= 4.0 * static_cast<double>(keys.size()) + 1024) {
        // Keys in a compact range (the template's are in [0, groups)): one array slot per
        // possible key, O(n).
        std::vector<GroupAggregate> dense(static_cast<std::size_t>(range), blank);
        for (std::size_t i = 0; i < keys.size(); ++i)
            fold(dense[static_cast<std::size_t>(static_cast<long long>(keys[i]) - minKey)], agg, useValues ? values[i] : 0);
        for (std::size_t k = 0; k < dense.size(); ++k)
            if (dense[k].rows > 0) {
                dense[k].key = minKey + static_cast<long long>(k);
                out.push_back(dense[k]);
            }
    } else {
        std::map<long long, GroupAggregate> groups;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const auto key = static_cast<long long>(keys[i]);
            auto [it, inserted] = groups.try_emplace(key, blank);
            if (inserted) it->second.key = key;
            fold(it->second, agg, useValues ? values[i] : 0);
        }
        for (const auto& [key, g] : groups) out.push_back(g);
    }
    return out;
}

void checkGroupBy(const CheckContext& ctx, CorrectnessReport& r) {
    const std::string& agg = ctx.choice("agg");
    const std::vector<double>& keys = ctx.input("keys").values;
    const std::vector<double> noValues;
    const std::vector<double>& values = agg == "count" ? noValues : ctx.input("values").values;
    const HostArray& tableKeys = ctx.output("table_keys");
    const HostArray& tableVals = ctx.output("table_vals");
    if (tableKeys.size() != tableVals.size()) throw InputError("group_by: table_keys and table_vals differ in length");

    const std::vector<GroupAggregate> ref = groupByReference(keys, values, agg);
    long long maxRows = 1;
    for (const GroupAggregate& g : ref) maxRows = std::max(maxRows, g.rows);
    // A sum is maxRows fp32 additions at most, in any order; count, min and max are exact.
    const double tol = agg == "sum" ? tolerance("f32", static_cast<int>(std::min<long long>(maxRows, 1 << 30))) : 0.0;
    const auto cap = static_cast<long long>(tableKeys.size());
    r.total = 2 * cap + 1;  // every key slot, every aggregate slot, and the number of keys found
    ElementChecker checker(r, tol);
    const double identity = identityOf(agg);

    // Names are built only for failures: the table has millions of slots.
    auto exact = [&](long long i, double got, double want, const char* array, const char* note = "") {
        checker.checkExact(i, got, want, got == want ? std::string() : elementName(array, i) + note);
    };
    auto near = [&](long long i, double got, double want, double scale) {
        const bool ok = std::isfinite(got) && std::fabs(got - want) <= tol * std::max(scale, 1e-30);
        checker.check(i, got, want, scale, ok ? std::string() : elementName("table_vals", i));
    };

    std::vector<char> found(ref.size(), 0);
    long long foundCount = 0;
    for (long long s = 0; s < cap; ++s) {
        const double key = tableKeys[s];
        if (key == kEmptyKey) {
            exact(s, key, kEmptyKey, "table_keys");
            exact(s, tableVals[s], identity, "table_vals", " (an empty slot must keep the identity)");
            continue;
        }
        const auto it = std::lower_bound(ref.begin(), ref.end(), key,
                                         [](const GroupAggregate& g, double k) { return static_cast<double>(g.key) < k; });
        const bool known = it != ref.end() && static_cast<double>(it->key) == key;
        if (!known || found[it - ref.begin()]) {
            // The slot should have stayed empty: a key no row has, or a second copy of one.
            exact(s, key, kEmptyKey, "table_keys", known ? " (a key already in another slot)" : " (a key no row has)");
            continue;
        }
        found[it - ref.begin()] = 1;
        ++foundCount;
        exact(s, key, key, "table_keys");
        if (agg == "sum")
            near(s, tableVals[s], it->value, it->absSum);
        else
            exact(s, tableVals[s], it->value, "table_vals");
    }
    checker.checkExact(2 * cap, static_cast<double>(foundCount), static_cast<double>(ref.size()), "distinct keys in the table");
    r.method = "every slot of the hash table as a set: each key a distinct input key, its " + agg +
               (agg == "sum" ? " within fp32 rounding of" : " exactly equal to") +
               " the float64 aggregate of its rows, empty slots untouched, and every input key present";
    checker.finish();
}

}  // namespace kx::engine
