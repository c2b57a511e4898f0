// Stream compaction: the count and every kept element, in order, against the inputs that pass
// the predicate.
#include "run/references/filter.hpp"
#include "run/references/references.hpp"

#include "run/reference.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace kx::engine {

FilterPredicate filterPredicateNamed(const std::string& name) {
    if (name == "gt") return FilterPredicate::Greater;
    if (name == "lt") return FilterPredicate::Less;
    if (name == "eq") return FilterPredicate::Equal;
    if (name == "ne") return FilterPredicate::NotEqual;
    if (name == "nonzero") return FilterPredicate::NonZero;
    throw InputError("unknown filter predicate '" + name + "' (gt, lt, eq, ne or nonzero)");
}

bool filterKeeps(FilterPredicate pred, double x, double threshold) {
    switch (pred) {
    case FilterPredicate::Greater: return x > threshold;
    case FilterPredicate::Less: return x < threshold;
    case FilterPredicate::Equal: return x == threshold;
    case FilterPredicate::NotEqual: return x != threshold;
    case FilterPredicate::NonZero: return x != 0;
    }
    return false;
}

std::vector<double> filterReference(const std::vector<double>& in, FilterPredicate pred, double threshold) {
    std::vector<double> kept;
    for (const double x : in)
        if (filterKeeps(pred, x, threshold)) kept.push_back(x);
    return kept;
}

void checkFilter(const CheckContext& ctx, CorrectnessReport& r) {
    const HostArray& in = ctx.input("in");
    const HostArray& out = ctx.output("out");
    const HostArray& count = ctx.output("count");
    const FilterPredicate pred = filterPredicateNamed(ctx.choice("pred"));
    if (count.size() < 1) throw InputError("the filter's count output is empty");

    // The kernel compares against the threshold as its own type receives it: rounded to the
    // float type, or (for integers) converted like a C cast, toward zero.
    const DtypeInfo& dtype = *in.dtype;
    double threshold = ctx.var("THRESHOLD");
    threshold = dtype.kind == DtypeKind::Float ? roundToDtype(threshold, dtype.name) : std::trunc(threshold);

    const std::vector<double> ref = filterReference(in.values, pred, threshold);
    const double expectedCount = static_cast<double>(ref.size());

    r.total = 1 + static_cast<long long>(ref.size());
    ElementChecker checker(r, 0);
    checker.checkExact(0, count[0], expectedCount, "count[0]");
    // A wrong count is already a failure; the elements both agree exist are still compared, so
    // the report also says whether the values went astray. A poisoned or absurd count (negative,
    // past n) compares nothing more.
    const double got = count[0];
    const long long compared =
        std::isfinite(got) && got > 0 ? static_cast<long long>(std::min({got, expectedCount, static_cast<double>(out.size())})) : 0;
    // Elements are checked under an empty name and only the first failure gets one ("out[12]"
    // in front of " = 3 (expected 2)"): naming 2^26 elements would take seconds.
    static const std::string kUnnamed;
    for (long long i = 0; i < compared; ++i)
        if (!checker.checkExact(i, out[i], ref[i], kUnnamed) && r.firstBadIndex == i && r.firstBadText.rfind(" = ", 0) == 0)
            r.firstBadText = elementName("out", i) + r.firstBadText;

    char threshText[64];
    std::snprintf(threshText, sizeof threshText, "%.9g", threshold);
    r.method = "count[0] and the first count elements of out against the inputs kept by " + ctx.choice("pred") +
               (pred == FilterPredicate::NonZero ? std::string() : std::string(" ") + threshText) + ", in order, exactly";
    checker.finish();
}

}  // namespace kx::engine
