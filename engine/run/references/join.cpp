// Join: the kernel's output pairs (out_pidx, out_bval; count of them) as a set, against the
// inner join computed on the CPU. Both lists are put in probe-row order and compared pair by
// pair, after the counts.
#include "run/references/join.hpp"

#include "run/reference.hpp"
#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

namespace kx::engine {

std::vector<JoinMatch> joinReference(const std::vector<double>& bkeys, const std::vector<double>& bvals, const std::vector<double>& pkeys) {
    if (bkeys.size() != bvals.size())
        throw InputError("join: " + std::to_string(bkeys.size()) + " build keys but " + std::to_string(bvals.size()) + " payloads");
    std::vector<JoinMatch> out;
    if (bkeys.empty() || pkeys.empty()) return out;
    // The build rows sorted by (key, payload): one probe's matches are a contiguous run.
    std::vector<std::pair<double, double>> build(bkeys.size());
    for (std::size_t i = 0; i < bkeys.size(); ++i) build[i] = {bkeys[i], bvals[i]};
    std::sort(build.begin(), build.end());
    const auto minKey = static_cast<long long>(build.front().first), maxKey = static_cast<long long>(build.back().first);
    const double range = static_cast<double>(maxKey) - static_cast<double>(minKey) + 1;
    if (range <= 4.0 * static_cast<double>(build.size()) + 1024) {
        // Keys in a compact range (the template's are in [0, 2 nb)): start[k - minKey] is the
        // first build row with key k, so a probe costs O(1 + matches).
        std::vector<std::size_t> start(static_cast<std::size_t>(range) + 1, 0);
        for (const auto& b : build) ++start[static_cast<std::size_t>(static_cast<long long>(b.first) - minKey) + 1];
        std::partial_sum(start.begin(), start.end(), start.begin());
        for (std::size_t p = 0; p < pkeys.size(); ++p) {
            const auto k = static_cast<long long>(pkeys[p]);
            if (k < minKey || k > maxKey) continue;
            const auto slot = static_cast<std::size_t>(k - minKey);
            for (std::size_t j = start[slot]; j < start[slot + 1]; ++j) out.push_back({static_cast<long long>(p), build[j].second});
        }
    } else {
        for (std::size_t p = 0; p < pkeys.size(); ++p) {
            auto it = std::lower_bound(build.begin(), build.end(), std::make_pair(pkeys[p], -std::numeric_limits<double>::infinity()));
            for (; it != build.end() && it->first == pkeys[p]; ++it) out.push_back({static_cast<long long>(p), it->second});
        }
    }
    return out;
}

void checkJoin(const CheckContext& ctx, CorrectnessReport& r) {
    const std::vector<JoinMatch> ref = joinReference(ctx.input("bkeys").values, ctx.input("bvals").values, ctx.input("pkeys").values);
    const HostArray& pidx = ctx.output("out_pidx");
    const HostArray& bval = ctx.output("out_bval");
    const HostArray& count = ctx.output("count");
    if (count.size() < 1) throw InputError("join: the runner returned no count");
    if (pidx.size() != bval.size()) throw InputError("join: out_pidx and out_bval differ in length");
    const auto np = static_cast<long long>(ctx.input("pkeys").size());

    // The pairs the kernel says it wrote: count of them, at most the output's capacity.
    const double got = count[0];
    const long long filled = got >= 0 && got <= static_cast<double>(pidx.size()) ? static_cast<long long>(got) : 0;
    r.total = 1 + 2 * static_cast<long long>(ref.size());
    ElementChecker checker(r, 0);
    checker.checkExact(0, got, static_cast<double>(ref.size()), "count");

    // The kernel's pairs in probe-row order, by a counting sort on the row (rows are in
    // [0, np)); a row outside that range fails on the spot. Equal rows (a build key that occurs
    // twice) are ordered by payload, as the reference orders them.
    // 32-bit counters and indices: np and count are below 2^31 (kernel sizes are ints), and
    // 2^26 probe rows would otherwise take a gigabyte here.
    auto validRow = [&](double row) { return row >= 0 && row < static_cast<double>(np) && row == std::floor(row); };
    std::vector<std::uint32_t> start(static_cast<std::size_t>(np) + 1, 0);
    for (long long i = 0; i < filled; ++i) {
        if (validRow(pidx[i]))
            ++start[static_cast<std::size_t>(pidx[i]) + 1];
        else
            checker.checkExact(i, pidx[i], -1, elementName("out_pidx", i) + " (not a probe row)");
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<std::uint32_t> order(start.back());  // indices into the kernel's output
    {
        std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
        for (long long i = 0; i < filled; ++i)
            if (validRow(pidx[i])) order[next[static_cast<std::size_t>(pidx[i])]++] = static_cast<std::uint32_t>(i);
    }
    for (long long p = 0; p < np; ++p)
        if (start[p + 1] - start[p] > 1)
            std::sort(order.begin() + start[p], order.begin() + start[p + 1],
                      [&](std::uint32_t a, std::uint32_t b) { return bval[a] < bval[b]; });

    // Pair by pair; names are built only for failures (tens of millions of pairs).
    const std::size_t common = std::min(order.size(), ref.size());
    for (std::size_t j = 0; j < common; ++j) {
        const long long i = order[j];
        const double row = pidx[i], payload = bval[i];
        const double wantRow = static_cast<double>(ref[j].probeRow), wantPayload = ref[j].buildPayload;
        checker.checkExact(i, row, wantRow, row == wantRow ? std::string() : elementName("out_pidx", i) + " (in probe-row order)");
        const std::string payloadName =
            payload == wantPayload ? std::string() : elementName("out_bval", i) + " (probe row " + std::to_string(static_cast<long long>(row)) + ")";
        checker.checkExact(i, payload, wantPayload, payloadName);
    }
    r.method = "the count, then every output pair against the CPU inner join, both in probe-row order (the kernel's order is "
               "whatever its atomics gave)";
    checker.finish();
}

}  // namespace kx::engine
