#include "run/references/join.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

struct Tables {
    std::vector<double> bkeys, bvals, pkeys;
};

// Build keys distinct (or, with duplicates, drawn with repetition) from [0, keyRange); payloads
// 0, 1, 2, ...; probe keys random in [0, keyRange).
Tables randomTables(std::size_t nb, std::size_t np, long long keyRange, bool duplicates, std::mt19937_64& rng) {
    Tables t;
    std::uniform_int_distribution<long long> key(0, keyRange - 1);
    std::vector<long long> all(static_cast<std::size_t>(keyRange));
    for (long long k = 0; k < keyRange; ++k) all[static_cast<std::size_t>(k)] = k;
    std::shuffle(all.begin(), all.end(), rng);
    for (std::size_t i = 0; i < nb; ++i) {
        t.bkeys.push_back(static_cast<double>(duplicates ? key(rng) : all[i]));
        t.bvals.push_back(static_cast<double>(i));
    }
    for (std::size_t i = 0; i < np; ++i) t.pkeys.push_back(static_cast<double>(key(rng)));
    return t;
}

// The nested-loop join, in probe-row order, payloads ascending within a row.
std::vector<JoinMatch> nestedLoops(const Tables& t) {
    std::vector<JoinMatch> out;
    for (std::size_t p = 0; p < t.pkeys.size(); ++p) {
        std::vector<double> payloads;
        for (std::size_t b = 0; b < t.bkeys.size(); ++b)
            if (t.bkeys[b] == t.pkeys[p]) payloads.push_back(t.bvals[b]);
        std::sort(payloads.begin(), payloads.end());
        for (const double v : payloads) out.push_back({static_cast<long long>(p), v});
    }
    return out;
}

// The output a correct kernel could leave: the matches in a random order, capacity np, the rest
// poisoned (-1), and the count.
CheckContext joinContext(const Tables& t, std::mt19937_64& rng) {
    std::vector<JoinMatch> matches = joinReference(t.bkeys, t.bvals, t.pkeys);
    std::shuffle(matches.begin(), matches.end(), rng);
    const std::size_t cap = std::max(t.pkeys.size(), matches.size());
    std::vector<double> pidx(cap, -1), bval(cap, -1);
    for (std::size_t i = 0; i < matches.size(); ++i) {
        pidx[i] = static_cast<double>(matches[i].probeRow);
        bval[i] = matches[i].buildPayload;
    }
    const DtypeInfo* i32 = &dtypeOfCType("int");
    CheckContext ctx;
    ctx.sizes["nb"] = static_cast<long long>(t.bkeys.size());
    ctx.sizes["np"] = static_cast<long long>(t.pkeys.size());
    ctx.inputs["bkeys"] = {i32, t.bkeys};
    ctx.inputs["bvals"] = {i32, t.bvals};
    ctx.inputs["pkeys"] = {i32, t.pkeys};
    ctx.outputs["out_pidx"] = {i32, pidx};
    ctx.outputs["out_bval"] = {i32, bval};
    ctx.outputs["count"] = {&dtypeOfCType("unsigned int"), {static_cast<double>(matches.size())}};
    return ctx;
}

bool passes(const CheckContext& ctx) {
    CorrectnessReport report;
    checkJoin(ctx, report);
    return report.passed;
}

}  // namespace

TEST_CASE("joinReference matches a nested-loop join", "[reference][join]") {
    std::mt19937_64 rng(31);
    struct Shape { std::size_t nb, np; };
    for (const Shape s : {Shape{1, 1}, Shape{1, 7}, Shape{13, 1}, Shape{31, 97}, Shape{211, 401}}) {
        for (const bool duplicates : {false, true}) {
            // A dense key range (the array path) and a sparse one (binary search).
            for (const long long range : {static_cast<long long>(2 * s.nb + 1), 1000003LL}) {
                CAPTURE(s.nb, s.np, duplicates, range);
                const Tables t = randomTables(s.nb, s.np, range, duplicates, rng);
                CHECK(joinReference(t.bkeys, t.bvals, t.pkeys) == nestedLoops(t));
            }
        }
    }
    CHECK(joinReference({}, {}, {1, 2}).empty());
    CHECK_THROWS(joinReference({1, 2}, {0}, {1}));
}

TEST_CASE("checkJoin passes a correct join in any order and fails a wrong one", "[reference][join]") {
    std::mt19937_64 rng(32);
    for (const std::size_t nb : {1, 17, 300}) {
        for (const bool duplicates : {false, true}) {
            CAPTURE(nb, duplicates);
            const Tables t = randomTables(nb, 3 * nb + 2, static_cast<long long>(2 * nb), duplicates, rng);
            const CheckContext good = joinContext(t, rng);
            CorrectnessReport report;
            checkJoin(good, report);
            CHECK(report.passed);
            CHECK(report.checked == report.total);
            const auto matches = static_cast<long long>(good.outputs.at("count")[0]);
            if (matches == 0) continue;

            CheckContext bad = good;  // a wrong payload
            bad.outputs["out_bval"].values[0] += 1;
            CHECK_FALSE(passes(bad));

            bad = good;  // a wrong probe row
            const auto np = static_cast<long long>(t.pkeys.size());
            bad.outputs["out_pidx"].values[0] = static_cast<double>((static_cast<long long>(good.outputs.at("out_pidx")[0]) + 1) % np);
            if (t.pkeys.size() > 1) CHECK_FALSE(passes(bad));

            bad = good;  // a probe row out of range
            bad.outputs["out_pidx"].values[0] = static_cast<double>(t.pkeys.size());
            CHECK_FALSE(passes(bad));

            bad = good;  // one match too few
            bad.outputs["count"].values[0] -= 1;
            CHECK_FALSE(passes(bad));

            bad = good;  // one too many: the poisoned entry after the last match
            if (matches < static_cast<long long>(good.outputs.at("out_pidx").size())) {
                bad.outputs["count"].values[0] += 1;
                CHECK_FALSE(passes(bad));
            }

            bad = good;  // a count past the capacity
            bad.outputs["count"].values[0] = 1e9;
            CHECK_FALSE(passes(bad));

            bad = good;  // a duplicated match in place of another
            if (matches > 1) {
                bad.outputs["out_pidx"].values[1] = good.outputs.at("out_pidx")[0];
                bad.outputs["out_bval"].values[1] = good.outputs.at("out_bval")[0];
                CHECK_FALSE(passes(bad));
            }
        }
    }
}
