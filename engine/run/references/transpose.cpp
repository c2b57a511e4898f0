// Transpose: every output element exactly against its input element. Nothing is computed, so the
// check walks the output in order and looks up the source of each element instead of building a
// transposed copy (512 MiB of doubles at the default 8192 x 8192).
#include "run/references/transpose.hpp"
#include "run/references/references.hpp"

#include "util/error.hpp"

#include <string>

namespace kx::engine {

long long transposeSourceIndex(long long rows, long long cols, long long outIndex) {
    const long long c = outIndex / rows, r = outIndex % rows;  // out is cols x rows: row c, column r
    return r * cols + c;
}

std::vector<double> transposeReference(long long rows, long long cols, const std::vector<double>& in) {
    std::vector<double> out(static_cast<std::size_t>(rows * cols));
    for (long long i = 0; i < rows * cols; ++i) out[static_cast<std::size_t>(i)] = in[static_cast<std::size_t>(transposeSourceIndex(rows, cols, i))];
    return out;
}

void checkTranspose(const CheckContext& ctx, CorrectnessReport& r) {
    const long long rows = ctx.size("rows"), cols = ctx.size("cols");
    const HostArray& in = ctx.input("in");
    const HostArray& out = ctx.output("out");
    const auto expected = static_cast<std::size_t>(rows * cols);
    if (in.size() != expected || out.size() != expected)
        throw InputError("transpose of " + std::to_string(rows) + " x " + std::to_string(cols) + " needs " + std::to_string(expected) +
                         " elements in and out; the run has " + std::to_string(in.size()) + " in and " + std::to_string(out.size()) + " out");

    r.total = rows * cols;
    ElementChecker checker(r, 0);
    const std::string unused;
    long long i = 0;
    for (long long c = 0; c < cols; ++c) {
        for (long long row = 0; row < rows; ++row, ++i) {
            const double got = out.values[static_cast<std::size_t>(i)], ref = in.values[static_cast<std::size_t>(row * cols + c)];
            // The element's name is only read when it fails: skip formatting 67 million of them.
            checker.checkExact(i, got, ref, got == ref ? unused : elementName("out", c, row));
        }
    }
    r.method = "every one of the " + std::to_string(r.total) + " outputs exactly against the input element it must hold (out[c,r] = in[r,c])";
    checker.finish();
}

}  // namespace kx::engine
