// The compiler flags in the Compare table: they are part of a variant like its parameters, so
// flags that differ name the columns ("A  maxrregcount=64") as differing parameters do, and a
// "Compiler flags" section lists each flag per variant. Kept apart from compare_metrics so the
// metric rows stay about what was measured and compiled.
#pragma once

#include "compare_metrics.hpp"

#include <vector>

namespace kx::app {

// Adds the section at the top of `table` (built by buildMetricTable for `variants`, in the same
// order) when any variant's flags are not the defaults, and adds the flags that differ between
// the variants to the column labels. No change when every variant has the default flags.
void addFlagRows(MetricTable& table, const std::vector<SnapshotPtr>& variants);

}  // namespace kx::app
