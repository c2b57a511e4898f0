// GLU: every output against float64. The kernel computes in fp32 (expf, erff: a few ulps) and
// rounds once, so the tolerance is the storage type's rounding plus 16 fp32 ulps of |gate * up|
// (GELU's 1 + erf cancels for negative gates, which leaves an error of that size, not of the
// result's).
#include "run/references/glu.hpp"

#include "run/references/references.hpp"
#include "util/error.hpp"

#include <cmath>

namespace kx::engine {

double gluReference(const std::string& op, double gate, double up) {
    if (op == "swiglu") return gate / (1 + std::exp(-gate)) * up;
    if (op == "geglu") return 0.5 * gate * (1 + std::erf(gate / std::sqrt(2.0))) * up;
    throw InputError("the glu reference has no gate '" + op + "'");
}

void checkGlu(const CheckContext& ctx, CorrectnessReport& r) {
    const std::string& op = ctx.choice("op");
    const long long rows = ctx.size("rows"), cols = ctx.size("cols");
    const HostArray& x = ctx.input("x");
    const HostArray& out = ctx.output("out");
    if (x.size() != static_cast<std::size_t>(2 * rows * cols) || out.size() != static_cast<std::size_t>(rows * cols))
        throw InputError("glu of " + std::to_string(rows) + " x " + std::to_string(cols) + " needs x of rows x 2 cols and out of rows x cols");
    r.total = rows * cols;
    ElementChecker checker(r, out.dtype->unitRoundoff + 16 * 0x1p-24, out.dtype->subnormalStep / 2);
    for (long long row = 0; row < rows; ++row) {
        for (long long c = 0; c < cols; ++c) {
            const double gate = x[static_cast<std::size_t>(row * 2 * cols + c)], up = x[static_cast<std::size_t>(row * 2 * cols + cols + c)];
            const double ref = gluReference(op, gate, up);
            const std::size_t i = static_cast<std::size_t>(row * cols + c);
            const double got = out[i];
            checker.check(static_cast<long long>(i), got, ref, std::max(std::fabs(gate * up), 1e-30),
                          [&] { return elementName("out", row, c); });
        }
    }
    r.method = "every output against " + op + " in float64";
    checker.finish();
}

}  // namespace kx::engine
