// The attention reference against closed forms (equal keys give the mean of the values; one
// visible key gives its value), the causal visibility rule at unequal lengths, and the check's
// verdicts: a result computed the kernel's way (fp32 scores, probabilities rounded to f16) passes,
// the same result with one row shifted, one masked key leaked in or a wrong log-sum-exp fails.
#include "run/references/attention.hpp"
#include "run/references/references.hpp"

#include "run/dtype.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace kx::engine;

namespace {

std::vector<double> roundedTo(const std::vector<double>& v, const char* dtype) {
    return decodeValues(encodeValues(v, dtypeNamed(dtype)), dtypeNamed(dtype));
}

struct Problem {
    long long batch = 2, heads = 4, kvHeads = 2, seqQ = 37, seqK = 53;
    int headDim = 64;
    bool causal = true;
};

CheckContext attentionContext(const Problem& p, std::mt19937_64& rng) {
    std::normal_distribution<double> normal(0, 2);
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<double> q(static_cast<std::size_t>(p.batch * p.heads * p.seqQ * p.headDim));
    std::vector<double> k(static_cast<std::size_t>(p.batch * p.kvHeads * p.seqK * p.headDim)), v(k.size());
    for (double& x : q) x = normal(rng);
    for (double& x : k) x = normal(rng);
    for (double& x : v) x = uniform(rng);
    CheckContext ctx;
    ctx.variables = {{"HEAD_DIM", p.headDim}, {"causal", p.causal ? 1 : 0}, {"LSE", 1}};
    ctx.sizes = {{"batch", p.batch}, {"heads", p.heads}, {"kv_heads", p.kvHeads}, {"seq_q", p.seqQ}, {"seq_k", p.seqK}};
    ctx.inputs["Q"] = HostArray{&dtypeNamed("f16"), roundedTo(q, "f16")};
    ctx.inputs["K"] = HostArray{&dtypeNamed("f16"), roundedTo(k, "f16")};
    ctx.inputs["V"] = HostArray{&dtypeNamed("f16"), roundedTo(v, "f16")};
    return ctx;
}

// The kernel's arithmetic on the CPU: fp32 scores, fp32 exponentials, probabilities rounded to f16
// for the product with V, the row sum of the unrounded ones.
void computeLikeTheKernel(const Problem& p, CheckContext& ctx) {
    const auto& Q = ctx.inputs["Q"].values;
    const auto& K = ctx.inputs["K"].values;
    const auto& V = ctx.inputs["V"].values;
    std::vector<double> o(Q.size()), lse(static_cast<std::size_t>(p.batch * p.heads * p.seqQ));
    const float scale = static_cast<float>(1 / std::sqrt(static_cast<double>(p.headDim)));
    for (long long b = 0; b < p.batch; ++b)
        for (long long h = 0; h < p.heads; ++h)
            for (long long i = 0; i < p.seqQ; ++i) {
                const long long row = (b * p.heads + h) * p.seqQ + i, kv = (b * p.kvHeads + h / (p.heads / p.kvHeads)) * p.seqK;
                const long long visible = attentionVisibleKeys(i, p.seqQ, p.seqK, p.causal);
                std::vector<float> s(static_cast<std::size_t>(visible));
                float max = -INFINITY;
                for (long long j = 0; j < visible; ++j) {
                    float dot = 0;
                    for (int d = 0; d < p.headDim; ++d) dot += static_cast<float>(Q[row * p.headDim + d] * K[(kv + j) * p.headDim + d]);
                    s[j] = dot * scale;
                    max = std::max(max, s[j]);
                }
                float sum = 0;
                std::vector<double> acc(static_cast<std::size_t>(p.headDim), 0.0);
                for (long long j = 0; j < visible; ++j) {
                    const float e = std::exp(s[j] - max);
                    sum += e;
                    const double rounded = roundedTo({e}, "f16")[0];
                    for (int d = 0; d < p.headDim; ++d) acc[d] += rounded * V[(kv + j) * p.headDim + d];
                }
                for (int d = 0; d < p.headDim; ++d) o[row * p.headDim + d] = visible ? acc[d] / sum : 0.0;
                lse[row] = visible ? max + std::log(sum) : -INFINITY;
            }
    ctx.outputs["O"] = HostArray{&dtypeNamed("f16"), roundedTo(o, "f16")};
    ctx.outputs["lse"] = HostArray{&dtypeNamed("f32"), lse};
}

}  // namespace

TEST_CASE("attentionReferenceRow: equal keys average the values, one key returns its value", "[reference][attention]") {
    const int d = 4;
    const std::vector<double> q = {1, -2, 0.5, 3};
    const std::vector<double> k = {0.25, 1, -1, 2, 0.25, 1, -1, 2, 0.25, 1, -1, 2};  // three equal keys
    const std::vector<double> v = {1, 2, 3, 4, -1, 0, 1, 2, 3, 1, -4, 0};
    const AttentionRow all = attentionReferenceRow(q.data(), k.data(), v.data(), 3, d, 0.5);
    for (int c = 0; c < d; ++c) REQUIRE(all.out[c] == Approx((v[c] + v[4 + c] + v[8 + c]) / 3).epsilon(1e-14));
    const double score = 0.5 * (0.25 - 2 - 0.5 + 6);
    REQUIRE(all.lse == Approx(score + std::log(3.0)).epsilon(1e-14));
    const AttentionRow one = attentionReferenceRow(q.data(), k.data(), v.data(), 1, d, 0.5);
    for (int c = 0; c < d; ++c) REQUIRE(one.out[c] == Approx(v[c]).epsilon(1e-14));
    const AttentionRow none = attentionReferenceRow(q.data(), k.data(), v.data(), 0, d, 0.5);
    REQUIRE(none.out == std::vector<double>(d, 0.0));
    REQUIRE(std::isinf(none.lse));
    REQUIRE(none.lse < 0);
}

TEST_CASE("the causal mask aligns the last query with the last key", "[reference][attention]") {
    REQUIRE(attentionVisibleKeys(0, 4, 4, true) == 1);
    REQUIRE(attentionVisibleKeys(3, 4, 4, true) == 4);
    REQUIRE(attentionVisibleKeys(0, 3, 10, true) == 8);    // more keys: the first query sees the extra ones
    REQUIRE(attentionVisibleKeys(2, 3, 10, true) == 10);
    REQUIRE(attentionVisibleKeys(0, 10, 3, true) == 0);    // more queries: the first ones see nothing
    REQUIRE(attentionVisibleKeys(7, 10, 3, true) == 1);
    REQUIRE(attentionVisibleKeys(9, 10, 3, true) == 3);
    REQUIRE(attentionVisibleKeys(0, 10, 3, false) == 3);
}

TEST_CASE("checkAttention passes the kernel's arithmetic and catches shifted rows, leaked keys and a wrong LSE",
          "[reference][attention]") {
    std::mt19937_64 rng(7);
    for (const bool causal : {false, true}) {
        for (const long long seqQ : {37LL, 80LL}) {   // 80 > seq_k: causal rows that see no key
            Problem p;
            p.causal = causal;
            p.seqQ = seqQ;
            CAPTURE(causal, seqQ);
            CheckContext ctx = attentionContext(p, rng);
            computeLikeTheKernel(p, ctx);
            {
                CorrectnessReport r;
                checkAttention(ctx, r);
                INFO(r.firstBadText);
                REQUIRE(r.passed);
                REQUIRE(r.total == p.batch * p.heads * p.seqQ * (p.headDim + 1));
            }
            // A late row of head 3 given the next row's output: off by one query.
            auto& o = ctx.outputs["O"].values;
            const std::vector<double> saved = o;
            const long long row = (1 * p.heads + 3) * p.seqQ + p.seqQ - 6;
            for (int d = 0; d < p.headDim; ++d) o[row * p.headDim + d] = saved[(row + 1) * p.headDim + d];
            CorrectnessReport shifted;
            checkAttention(ctx, shifted);
            REQUIRE_FALSE(shifted.passed);
            o = saved;
            // The last row's lse off by 1e-2.
            ctx.outputs["lse"].values.back() += 1e-2;
            CorrectnessReport badLse;
            checkAttention(ctx, badLse);
            REQUIRE_FALSE(badLse.passed);
        }
    }
    // A causal result computed without the mask: every row but the last ones sees keys it may not.
    Problem p;
    CheckContext ctx = attentionContext(p, rng);
    p.causal = false;
    computeLikeTheKernel(p, ctx);   // the context still says causal
    CorrectnessReport leaked;
    checkAttention(ctx, leaked);
    REQUIRE_FALSE(leaked.passed);
}

TEST_CASE("checkAttention refuses heads that are not a multiple of kv_heads", "[reference][attention]") {
    std::mt19937_64 rng(3);
    Problem p;
    CheckContext ctx = attentionContext(p, rng);
    computeLikeTheKernel(p, ctx);
    ctx.sizes["kv_heads"] = 3;
    CorrectnessReport r;
    REQUIRE_THROWS_WITH(checkAttention(ctx, r), Catch::Contains("multiple of kv_heads"));
}
