// Stream compaction (templates/filter): the reference filter and the check of a kernel's output.
#pragma once

#include "run/reference_registry.hpp"

#include <string>
#include <vector>

namespace kx::engine {

enum class FilterPredicate { Greater, Less, Equal, NotEqual, NonZero };

// "gt", "lt", "eq", "ne" or "nonzero"; throws InputError on anything else.
FilterPredicate filterPredicateNamed(const std::string& name);

// Whether x is kept: x > threshold, x < threshold, x == threshold, x != threshold, or x != 0
// (NonZero ignores the threshold). IEEE comparisons: a NaN is kept only by NotEqual and NonZero.
bool filterKeeps(FilterPredicate pred, double x, double threshold);

// The kept elements of in, in their original order (their number is the expected count).
std::vector<double> filterReference(const std::vector<double>& in, FilterPredicate pred, double threshold);


}  // namespace kx::engine
