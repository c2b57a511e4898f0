// Radix sort: keys_out (and values_out) against a stable CPU sort of the inputs, every element,
// exactly. The values are the inputs' positions (iota), so comparing them checks stability too.
#include "run/references/radix_sort.hpp"

#include "run/reference.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>

namespace kx::engine {

namespace {

std::uint32_t keyAt(const std::vector<double>& keys, std::size_t i) {
    const double x = keys[i];
    if (!(x >= 0 && x < 4294967296.0 && x == std::floor(x)))
        throw InputError("radix_sort: key " + std::to_string(i) + " (" + std::to_string(x) + ") is not a 32-bit unsigned integer");
    return static_cast<std::uint32_t>(x);
}

// (key << 32 | position) for every input, sorted: by key, equal keys by position (the stable order).
std::vector<std::uint64_t> sortedItems(const std::vector<double>& keys) {
    const std::size_t n = keys.size();
    std::vector<std::uint64_t> a(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = (static_cast<std::uint64_t>(keyAt(keys, i)) << 32) | i;
    if (n <= kCountingSortThreshold) {
        std::stable_sort(a.begin(), a.end(), [](std::uint64_t x, std::uint64_t y) { return (x >> 32) < (y >> 32); });
        return a;
    }
    // LSD counting sort, 8 key bits per pass (256 buckets: few enough to stay in cache). Each
    // pass is stable, so after the fourth the items are ordered by key, equal keys by position.
    std::vector<std::uint64_t> b(n);
    std::size_t start[257];
    for (int shift = 32; shift < 64; shift += 8) {
        std::fill(std::begin(start), std::end(start), 0);
        for (const std::uint64_t item : a) ++start[((item >> shift) & 0xff) + 1];
        std::partial_sum(std::begin(start), std::end(start), std::begin(start));
        for (const std::uint64_t item : a) b[start[(item >> shift) & 0xff]++] = item;
        a.swap(b);
    }
    return a;
}

}  // namespace

SortedKeys radixSortReference(const std::vector<double>& keys, const std::vector<double>& values) {
    if (!values.empty() && values.size() != keys.size())
        throw InputError("radix_sort: " + std::to_string(keys.size()) + " keys but " + std::to_string(values.size()) + " values");
    if (keys.size() > 0xffffffffull) throw InputError("radix_sort: the reference sorts at most 2^32 - 1 keys");
    const std::vector<std::uint64_t> items = sortedItems(keys);
    SortedKeys out;
    out.keys.resize(keys.size());
    for (std::size_t i = 0; i < items.size(); ++i) out.keys[i] = static_cast<double>(items[i] >> 32);
    if (!values.empty()) {
        out.values.resize(values.size());
        for (std::size_t i = 0; i < items.size(); ++i) out.values[i] = values[items[i] & 0xffffffffu];
    }
    return out;
}

void checkRadixSort(const CheckContext& ctx, CorrectnessReport& r) {
    const long long n = ctx.size("n");
    const bool pairs = ctx.var("pairs") != 0;
    const HostArray& keys = ctx.input("keys");
    const HostArray& keysOut = ctx.output("keys_out");
    if (static_cast<long long>(keys.size()) != n || static_cast<long long>(keysOut.size()) != n)
        throw InputError("radix_sort: keys and keys_out must hold n = " + std::to_string(n) + " elements");
    const std::vector<double> noValues;
    const std::vector<double>& values = pairs ? ctx.input("values").values : noValues;
    const HostArray* valuesOut = pairs ? &ctx.output("values_out") : nullptr;
    if (pairs && (static_cast<long long>(values.size()) != n || static_cast<long long>(valuesOut->size()) != n))
        throw InputError("radix_sort: values and values_out must hold n = " + std::to_string(n) + " elements");

    const SortedKeys ref = radixSortReference(keys.values, values);
    r.total = pairs ? 2 * n : n;
    ElementChecker checker(r, 0);
    // Names are built only for failures: a sort has tens of millions of outputs.
    auto exact = [&](long long i, double got, double want, const char* array) {
        checker.checkExact(i, got, want, got == want ? std::string() : elementName(array, i));
    };
    for (long long i = 0; i < n; ++i) exact(i, keysOut[i], ref.keys[i], "keys_out");
    if (pairs)
        for (long long i = 0; i < n; ++i) exact(i, (*valuesOut)[i], ref.values[i], "values_out");
    r.method = pairs ? "every key and value exactly against a stable CPU sort of the pairs (the values are input positions, so "
                       "equal keys must keep their order)"
                     : "every key exactly against a CPU sort of the keys";

    // CUB's sorted keys, compared with the kernel's (both exact, so they must be identical).
    if (const HostArray* base = ctx.baselineOutput("cub_radix_sort"); base && base->size() == keysOut.size()) {
        r.baselineCompared = true;
        r.baselineAgrees = true;
        for (long long i = 0; i < n; ++i)
            if ((*base)[i] != keysOut[i]) {
                r.baselineAgrees = false;
                const double diff = std::fabs((*base)[i] - keysOut[i]) / std::max(1.0, std::fabs((*base)[i]));
                if (std::isfinite(diff)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, diff);
            }
        r.method += "; every key against CUB's";
    }
    checker.finish();
}

}  // namespace kx::engine
