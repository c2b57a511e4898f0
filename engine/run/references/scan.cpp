// Prefix scan: every output against the float64 (floats) or exact (integers) running sum,
// maximum or minimum of the input.
#include "run/references/scan.hpp"
#include "run/references/references.hpp"

#include "run/reference.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kx::engine {

namespace {

// The low `bits` bits of v, sign-extended: what a bits-wide register holds after wrapping.
std::int64_t wrapTo(std::uint64_t v, int bits) {
    if (bits >= 64) return static_cast<std::int64_t>(v);
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
    v &= mask;
    return static_cast<std::int64_t>((v ^ sign) - sign);
}

std::vector<double> scanIntegers(const std::vector<double>& in, ScanOp op, bool exclusive, int bits) {
    const std::int64_t lowest = bits >= 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
    const std::int64_t highest = bits >= 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
    std::int64_t running = op == ScanOp::Sum ? 0 : op == ScanOp::Max ? lowest : highest;
    std::vector<double> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::int64_t x = static_cast<std::int64_t>(in[i]);
        if (exclusive) out[i] = static_cast<double>(running);
        switch (op) {
        // Unsigned addition wraps by definition; the low bits are the two's complement sum.
        case ScanOp::Sum: running = wrapTo(static_cast<std::uint64_t>(running) + static_cast<std::uint64_t>(x), bits); break;
        case ScanOp::Max: running = std::max(running, x); break;
        case ScanOp::Min: running = std::min(running, x); break;
        }
        if (!exclusive) out[i] = static_cast<double>(running);
    }
    return out;
}

std::vector<double> scanFloats(const std::vector<double>& in, ScanOp op, bool exclusive) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> out(in.size());
    // Neumaier's compensated sum: s + c is the exact running sum to about twice float64's
    // precision, so the stored s + c is the exact prefix sum rounded once.
    double s = 0, c = 0, extreme = op == ScanOp::Max ? -inf : inf;
    bool nonFinite = false;  // an inf or NaN makes the compensation meaningless: plain IEEE sums then
    double plain = 0;
    auto current = [&] { return op == ScanOp::Sum ? (nonFinite ? plain : s + c) : extreme; };
    for (std::size_t i = 0; i < in.size(); ++i) {
        const double x = in[i];
        if (exclusive) out[i] = current();
        if (op == ScanOp::Sum) {
            const double t = s + x;
            c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
            s = t;
            plain += x;
            if (!std::isfinite(plain)) nonFinite = true;
        } else if (!std::isnan(x)) {
            extreme = op == ScanOp::Max ? std::max(extreme, x) : std::min(extreme, x);
        }
        if (!exclusive) out[i] = current();
    }
    return out;
}

}  // namespace

ScanOp scanOpNamed(const std::string& name) { return enumNamed<ScanOp>(name, {"sum", "max", "min"}, "scan operation"); }

std::vector<double> scanReference(const std::vector<double>& in, ScanOp op, bool exclusive, ScanArithmetic arithmetic) {
    return arithmetic.isInteger ? scanIntegers(in, op, exclusive, arithmetic.intBits) : scanFloats(in, op, exclusive);
}

void checkScan(const CheckContext& ctx, CorrectnessReport& r) {
    const HostArray& in = ctx.input("in");
    const HostArray& out = ctx.output("out");
    const ScanOp op = scanOpNamed(ctx.choice("op"));
    const std::string& kind = ctx.choice("kind");
    if (kind != "inclusive" && kind != "exclusive") throw InputError("unknown scan kind '" + kind + "' (inclusive or exclusive)");
    const bool exclusive = kind == "exclusive";
    const long long n = ctx.size("n");
    if (in.size() != static_cast<std::size_t>(n) || out.size() != static_cast<std::size_t>(n))
        throw InputError("the scan's in and out must hold n = " + std::to_string(n) + " elements");

    const DtypeInfo& dtype = *out.dtype;
    ScanArithmetic arithmetic;
    arithmetic.isInteger = dtype.kind != DtypeKind::Float;
    arithmetic.intBits = 8 * dtype.bytes;
    const std::vector<double> ref = scanReference(in.values, op, exclusive, arithmetic);
    const bool rounded = !arithmetic.isInteger && op == ScanOp::Sum;

    // A rounded sum's allowance at element i: tolerance(f32, terms_i) * (the prefix sum of |x|).
    // The checker holds one tolerance, the one for n terms, so each element's scale carries the
    // ratio tolerance(terms_i) / tolerance(n) <= 1; maxRelError then reads against tolerance(n).
    std::vector<double> scale;
    const int maxTerms = static_cast<int>(std::min<long long>(std::max<long long>(n, 1), 1LL << 30));
    const double tolN = rounded ? tolerance("f32", maxTerms) : 0;
    if (rounded) {
        // A plain float64 sum of non-negative terms is accurate to n * 2^-53 relative: plenty
        // for a scale.
        // tolerance(f32, t) = a + b sqrt(t) (reference.hpp); a and b are read off two calls
        // rather than calling it for each of up to 2^26 elements.
        const double b = tolerance("f32", 4) - tolerance("f32", 1), a = tolerance("f32", 1) - b;
        scale.resize(static_cast<std::size_t>(n));
        double absPrefix = 0;
        for (long long i = 0; i < n; ++i) {
            if (!exclusive) absPrefix += std::fabs(in[i]);
            const double terms = static_cast<double>(std::max<long long>(exclusive ? i : i + 1, 1));
            scale[i] = absPrefix * std::min(1.0, (a + b * std::sqrt(terms)) / tolN);
            if (exclusive) absPrefix += std::fabs(in[i]);
        }
    }

    r.total = n;
    ElementChecker checker(r, tolN);
    // Elements are checked under an empty name and only the first failure gets one ("out[12]"
    // in front of " = 3.1 (expected 2.9)"): naming 2^26 elements would take seconds.
    static const std::string kUnnamed;
    for (long long i = 0; i < n; ++i) {
        const bool ok = rounded ? checker.check(i, out[i], ref[i], scale[i], kUnnamed) : checker.checkExact(i, out[i], ref[i], kUnnamed);
        if (!ok && r.firstBadIndex == i) r.firstBadText = elementName("out", i) + r.firstBadText;
    }
    r.method = std::string("every output against the ") + (arithmetic.isInteger ? "exact" : "float64") + " " + kind + " " +
               ctx.choice("op") + "-scan of the input";

    if (const HostArray* base = ctx.baselineOutput("cub_scan"); base && base->size() == out.size()) {
        r.baselineCompared = true;
        r.baselineAgrees = true;
        for (long long i = 0; i < n; ++i) {
            const double diff = std::fabs(out[i] - (*base)[i]);
            if (rounded) {
                const double rel = diff / std::max(scale[i], 1e-30);
                if (!(rel <= 2 * tolN)) r.baselineAgrees = false;
                if (std::isfinite(rel)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, rel);
            } else if (!(out[i] == (*base)[i])) {
                r.baselineAgrees = false;
                if (std::isfinite(diff)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, diff / std::max(std::fabs(ref[i]), 1.0));
            }
        }
        r.method += "; every output against CUB's";
    }
    checker.finish();
}

}  // namespace kx::engine
