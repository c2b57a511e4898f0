// Reduction: one fp32 result against the float64 sum (compensated) or maximum of every input.
#include "run/reference.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>

namespace kx::engine {

void checkReduce(const CheckContext& ctx, CorrectnessReport& r) {
    const std::vector<double>& data = ctx.input("in").values;
    const HostArray& out = ctx.output("out");
    if (out.size() < 1) throw InputError("the runner returned no output");
    const bool isMax = ctx.var("is_max") != 0;
    r.total = 1;
    const double ref = reduceReference(isMax, data.data(), data.size());
    double scale = std::fabs(ref);
    if (!isMax) {
        std::vector<double> absData(data.size());
        std::transform(data.begin(), data.end(), absData.begin(), [](double v) { return std::fabs(v); });
        scale = reduceReference(false, absData.data(), absData.size());
    }
    // The output is one fp32 number accumulated from n terms.
    ElementChecker checker(r, tolerance("f32", static_cast<int>(std::min<size_t>(data.size(), 1u << 30))));
    checker.check(0, out[0], ref, scale, "out[0]");
    checker.finish();
    r.method = "the result against the float64 reference over all " + std::to_string(data.size()) + " inputs";
}

}  // namespace kx::engine
