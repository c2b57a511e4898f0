// Map: every output against the operation in float64. The kernel computes in fp32 (expf and
// tanhf are within a few ulps) and rounds once to the storage type, so the tolerance is the
// storage type's rounding plus a few fp32 ulps of the operation's scale.
#include "run/references/map.hpp"

#include "run/reference.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <cmath>

namespace kx::engine {

double mapReference(const std::string& op, double x, double y, double z, double alpha) {
    if (op == "add") return x + y;
    if (op == "saxpy") return alpha * x + y;
    if (op == "scale") return alpha * x;
    if (op == "relu") return x > 0 ? x : 0.0;
    if (op == "gelu") return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    if (op == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (op == "exp") return std::exp(x);
    if (op == "fma") return x * y + z;
    throw InputError("the map reference has no operation '" + op + "'");
}

double mapScale(const std::string& op, double x, double y, double z, double alpha, double result) {
    if (op == "add") return std::fabs(x) + std::fabs(y);
    if (op == "saxpy") return std::fabs(alpha * x) + std::fabs(y);
    if (op == "fma") return std::fabs(x * y) + std::fabs(z);
    if (op == "gelu") return std::fabs(x);
    return std::fabs(result);
}

void checkMap(const CheckContext& ctx, CorrectnessReport& r) {
    const std::string& op = ctx.choice("op");
    const int arity = static_cast<int>(ctx.var("arity"));
    const HostArray& x = ctx.input("x");
    const HostArray& y = ctx.input("y");
    const HostArray& z = ctx.input("z");
    const HostArray& out = ctx.output("out");
    const long long n = ctx.size("n");
    const double alpha = ctx.var("ALPHA");  // the value of the scalar argument alpha
    r.total = n;
    // Storage rounding, plus 16 fp32 ulps for the fp32 arithmetic and the transcendental functions;
    // a result in the subnormal range of the storage type rounds to its fixed step instead.
    ElementChecker checker(r, out.dtype->unitRoundoff + 16 * 0x1p-24, out.dtype->subnormalStep / 2);
    for (long long i = 0; i < n; ++i) {
        const double xi = x[i], yi = arity >= 2 ? y[i] : 0.0, zi = arity >= 3 ? z[i] : 0.0;
        const double ref = mapReference(op, xi, yi, zi, alpha);
        checker.check(i, out[i], ref, std::max(mapScale(op, xi, yi, zi, alpha, ref), 1e-30), elementName("out", i));
    }
    r.method = "every output against " + op + " in float64";
    checker.finish();
}

}  // namespace kx::engine
