// RMSNorm + RoPE: every output against float64, with the storage type's rounding plus 32 fp32
// ulps (the sum of squares, rsqrtf, two products and a difference) relative to the magnitude of
// the rotation's two terms.
#include "run/references/norm_rope.hpp"

#include "run/references/references.hpp"
#include "util/error.hpp"

#include <cmath>
#include <vector>

namespace kx::engine {

void normRopeReference(const double* v, int headDim, const double* weight, const double* cosSinRow, double eps, double* out,
                       double* scale) {
    double squares = 0;
    for (int i = 0; i < headDim; ++i) squares += v[i] * v[i];
    const double rstd = 1 / std::sqrt(squares / headDim + eps);
    const int half = headDim / 2;
    for (int i = 0; i < half; ++i) {
        const double a = v[i] * rstd * weight[i], b = v[half + i] * rstd * weight[half + i];
        const double c = cosSinRow[i], s = cosSinRow[half + i];
        out[i] = a * c - b * s;
        out[half + i] = b * c + a * s;
        scale[i] = std::fabs(a * c) + std::fabs(b * s);
        scale[half + i] = std::fabs(b * c) + std::fabs(a * s);
    }
}

void checkNormRope(const CheckContext& ctx, CorrectnessReport& r) {
    const long long tokens = ctx.size("tokens"), heads = ctx.size("heads"), maxPos = ctx.size("max_pos");
    const int headDim = static_cast<int>(ctx.var("HEAD_DIM"));
    const double eps = static_cast<float>(ctx.var("EPS"));
    const HostArray& x = ctx.input("x");
    const HostArray& weight = ctx.input("weight");
    const HostArray& positions = ctx.input("positions");
    const HostArray& cosSin = ctx.input("cos_sin");
    const HostArray& y = ctx.output("y");
    const auto elements = static_cast<std::size_t>(tokens * heads * headDim);
    if (x.size() != elements || y.size() != elements || positions.size() != static_cast<std::size_t>(tokens))
        throw InputError("norm_rope needs x and y of tokens x heads x head_dim and a position per token");
    r.total = static_cast<long long>(elements);
    ElementChecker checker(r, y.dtype->unitRoundoff + 32 * 0x1p-24, y.dtype->subnormalStep / 2);
    std::vector<double> out(static_cast<std::size_t>(headDim)), scale(out.size());
    for (long long row = 0; row < tokens * heads; ++row) {
        const long long pos = static_cast<long long>(positions[static_cast<std::size_t>(row / heads)]);
        if (pos < 0 || pos >= maxPos) throw InputError("norm_rope: position " + std::to_string(pos) + " is outside the cos/sin table");
        const std::size_t base = static_cast<std::size_t>(row * headDim);
        normRopeReference(x.values.data() + base, headDim, weight.values.data(), cosSin.values.data() + pos * headDim, eps, out.data(),
                          scale.data());
        for (int i = 0; i < headDim; ++i) {
            const double got = y[base + static_cast<std::size_t>(i)];
            checker.check(static_cast<long long>(base) + i, got, out[static_cast<std::size_t>(i)],
                          std::max(scale[static_cast<std::size_t>(i)], 1e-30),
                          [&] { return elementName("y", row, i); });
        }
    }
    r.method = "every output against RMSNorm then RoPE in float64";
    checker.finish();
}

}  // namespace kx::engine
