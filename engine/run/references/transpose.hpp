// Transpose: out (cols x rows) = in (rows x cols) transposed, both row-major. Exact: a transpose
// moves bits.
#pragma once

#include "run/reference_registry.hpp"

#include <vector>

namespace kx::engine {

// Where output element outIndex (row c, column r of the cols x rows output) comes from in the
// rows x cols input: r * cols + c. Requires rows, cols >= 1 and 0 <= outIndex < rows * cols.
long long transposeSourceIndex(long long rows, long long cols, long long outIndex);

// The whole transposed matrix (cols x rows), for tests and small problems; in holds rows * cols
// values.
std::vector<double> transposeReference(long long rows, long long cols, const std::vector<double>& in);


}  // namespace kx::engine
