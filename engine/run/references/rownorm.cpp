// Row ops: every row (or, past fullCheckOps elements, a seeded sample of rows) against float64.
// The kernel keeps fp32 statistics and rounds once to the storage type, so the tolerance is the
// storage type's rounding plus 128 fp32 ulps (sums of a few hundred terms per thread, __expf)
// relative to the magnitude of each output's terms; outputs in the storage type's subnormal
// range are judged on its fixed step.
#include "run/references/rownorm.hpp"

#include "run/references/philox.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace kx::engine {

void rownormReferenceRow(const std::string& op, const double* x, long long cols, const double* gamma, const double* beta,
                         double eps, double* out, double* scale) {
    if (op == "softmax") {
        double max = -INFINITY;
        for (long long c = 0; c < cols; ++c) max = std::max(max, x[c]);
        double sum = 0;
        for (long long c = 0; c < cols; ++c) sum += std::exp(x[c] - max);
        for (long long c = 0; c < cols; ++c) {
            out[c] = std::exp(x[c] - max) / sum;
            scale[c] = out[c] * (1 + std::fabs(x[c] - max));  // exp's error grows with its argument
        }
        return;
    }
    if (op != "layernorm" && op != "rmsnorm") throw InputError("the rownorm reference has no operation '" + op + "'");
    const bool layer = op == "layernorm";
    double mean = 0;
    if (layer) {
        for (long long c = 0; c < cols; ++c) mean += x[c];
        mean /= static_cast<double>(cols);
    }
    double squares = 0;
    for (long long c = 0; c < cols; ++c) squares += (x[c] - mean) * (x[c] - mean);
    const double rstd = 1 / std::sqrt(squares / static_cast<double>(cols) + eps);
    for (long long c = 0; c < cols; ++c) {
        const double b = layer ? beta[c] : 0.0;
        out[c] = (x[c] - mean) * rstd * gamma[c] + b;
        scale[c] = (std::fabs(x[c]) + std::fabs(mean)) * rstd * std::fabs(gamma[c]) + std::fabs(b);
    }
}

void checkRownorm(const CheckContext& ctx, CorrectnessReport& r) {
    const std::string& op = ctx.choice("op");
    const std::string& fuse = ctx.choice("fuse");
    const long long rows = ctx.size("rows"), cols = ctx.size("cols");
    const HostArray& x = ctx.input("x");
    const HostArray& y = ctx.output("y");
    const double eps = static_cast<float>(ctx.var("EPS"));
    const float p = static_cast<float>(ctx.var("DROP_P"));
    const std::uint64_t seed = 20261125, offset = 4096;  // the manifest's seed and offset scalars
    const bool residual = fuse == "residual", dropout = fuse == "dropout";
    const double* gamma = op == "softmax" ? nullptr : ctx.input("gamma").values.data();
    const double* beta = op == "layernorm" ? ctx.input("beta").values.data() : nullptr;
    const auto elements = static_cast<std::size_t>(rows * cols);
    if (x.size() != elements || y.size() != elements)
        throw InputError("rownorm of " + std::to_string(rows) + " x " + std::to_string(cols) + " needs " + std::to_string(elements) +
                         " elements in x and y");

    // Rows to check: all of them, or a seeded sample of large problems.
    std::vector<long long> checkedRows;
    // About 20 float64 operations an element (exp, the statistics, the check itself).
    const bool sampled = 20.0 * static_cast<double>(elements) > ctx.fullCheckOps;
    if (sampled) {
        std::mt19937_64 rng(ctx.seed);
        const long long want = std::min<long long>(rows, std::max<long long>(64, ctx.sampledOutputs * 64LL / std::max(cols, 1LL)));
        for (long long k = 0; k < want; ++k) checkedRows.push_back(static_cast<long long>(rng() % static_cast<std::uint64_t>(rows)));
    } else {
        for (long long row = 0; row < rows; ++row) checkedRows.push_back(row);
    }

    const double tolerance = y.dtype->unitRoundoff + 128 * 0x1p-24, floor = y.dtype->subnormalStep / 2;
    ElementChecker checker(r, tolerance, floor);
    std::vector<double> in(static_cast<std::size_t>(cols)), ref(in.size()), scale(in.size());
    // The unfused baseline's y on the same rows: both round fp32 results once to the storage
    // type, so they may differ by two tolerances (and two half steps where outputs are
    // subnormal); dropout must drop the same elements in both (a misplaced drop differs by the
    // whole value).
    const HostArray* base = ctx.baselineOutput("unfused_rowwise");
    if (base && base->size() != y.size()) base = nullptr;
    if (base) r.baselineCompared = r.baselineAgrees = true;
    auto compareBaseline = [&](std::size_t i, double termScale) {
        if (!base) return;
        const double excess = std::max(0.0, std::fabs(y[i] - (*base)[i]) - 2 * floor);
        const double rel = excess / std::max(termScale, 1e-30);
        if (!(rel <= 2 * tolerance)) r.baselineAgrees = false;
        if (std::isfinite(rel)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, rel);
    };
    for (const long long row : checkedRows) {
        const std::size_t base = static_cast<std::size_t>(row * cols);
        if (residual) {
            // h = x + residual, rounded once; the norm works on h as the kernel stored it.
            const HostArray& res = ctx.input("residual");
            const HostArray& h = ctx.output("h");
            for (long long c = 0; c < cols; ++c) {
                const std::size_t i = base + static_cast<std::size_t>(c);
                checker.check(static_cast<long long>(i), h[i], x[i] + res[i], std::fabs(x[i]) + std::fabs(res[i]), [&] { return elementName("h", row, c); });
                in[static_cast<std::size_t>(c)] = h[i];
            }
        } else {
            std::copy(x.values.begin() + static_cast<std::ptrdiff_t>(base), x.values.begin() + static_cast<std::ptrdiff_t>(base + in.size()), in.begin());
        }
        rownormReferenceRow(op, in.data(), cols, gamma, beta, eps, ref.data(), scale.data());
        for (long long c = 0; c < cols; ++c) {
            const std::size_t i = base + static_cast<std::size_t>(c);
            const auto k = static_cast<std::size_t>(c);
            compareBaseline(i, std::max(scale[k], 1e-30) / (dropout ? 1.0 - p : 1.0));
            if (dropout) {
                if (dropoutDrops(seed, offset + i, p)) {
                    checker.checkExact(static_cast<long long>(i), y[i], 0.0, y[i] == 0.0 ? std::string() : elementName("y", row, c) + " (dropped)");
                    continue;
                }
                ref[k] /= 1.0 - p;
                scale[k] /= 1.0 - p;
            }
            checker.check(static_cast<long long>(i), y[i], ref[k], std::max(scale[k], 1e-30), [&] { return elementName("y", row, c); });
        }
    }
    r.total = static_cast<long long>(elements) * (residual ? 2 : 1);
    r.method = std::string(sampled ? std::to_string(checkedRows.size()) + " seeded random rows" : "every row") + " against " + op +
               (residual ? " of x + residual (and h itself)" : "") + (dropout ? " with Philox4x32-10 dropout (p = 0.1)" : "") +
               " in float64" + (base ? "; the unfused baseline's y on the same rows" : "");
    checker.finish();
}

}  // namespace kx::engine
