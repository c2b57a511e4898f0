// The group_by template's reference: per distinct key, the sum, count, minimum or maximum of the
// values of its rows.
#pragma once

#include <string>
#include <vector>

namespace kx::engine {

struct GroupAggregate {
    long long key = 0;
    double value = 0;     // the aggregate: the exact (float64) sum, the count, the minimum or the maximum
    long long rows = 0;   // rows with this key
    double absSum = 0;    // sum of |value| over the rows: the scale of a sum's rounding error
};

// One entry per distinct key of keys (integers), ascending by key. agg is "sum", "count",
// "min" or "max"; values holds one value per key (it may be empty for count). min and max skip
// NaN values (like fminf and the kernel's compare-and-swap loop); a group with only NaNs gives
// +infinity (min) or -infinity (max). Throws InputError on another agg or mismatched lengths.
std::vector<GroupAggregate> groupByReference(const std::vector<double>& keys, const std::vector<double>& values, const std::string& agg);

}  // namespace kx::engine
