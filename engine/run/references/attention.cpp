// Attention: every row against float64 while the problem is small; past fullCheckOps, a seeded
// sample of rows (always including each sampled head's first and last query, where the causal
// mask is thinnest and widest) against float64 and every output against the composed baseline.
//
// Tolerance. The kernel rounds each probability to the storage type before the second product
// (relative error u each), while its row sum l adds the unrounded ones; both bound the error of
// out[d] by u * sum_j p[j] |v[j][d]|. Rounding out itself adds u |out[d]| <= the same. Scores
// come from fp32 sums of exact products and exp2 is MUFU's (about 2 ulp); 2^-12 relative covers
// those. So |got - ref| <= (2u + 2^-12) * scale[d]. The log-sum-exp has a checker of its own.
#include "run/references/attention.hpp"

#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

namespace kx::engine {

long long attentionVisibleKeys(long long query, long long seqQ, long long seqK, bool causal) {
    if (!causal) return seqK;
    return std::clamp(query + seqK - seqQ + 1, 0LL, seqK);
}

AttentionRow attentionReferenceRow(const double* q, const double* k, const double* v, long long visibleKeys, int headDim,
                                   double softmaxScale) {
    AttentionRow row;
    row.out.assign(static_cast<std::size_t>(headDim), 0.0);
    row.scale.assign(static_cast<std::size_t>(headDim), 0.0);
    if (visibleKeys <= 0) {
        row.lse = -INFINITY;
        return row;
    }
    std::vector<double> s(static_cast<std::size_t>(visibleKeys));
    double max = -INFINITY;
    for (long long j = 0; j < visibleKeys; ++j) {
        double dot = 0;
        for (int d = 0; d < headDim; ++d) dot += q[d] * k[j * headDim + d];
        s[static_cast<std::size_t>(j)] = softmaxScale * dot;
        max = std::max(max, s[static_cast<std::size_t>(j)]);
    }
    double sum = 0;
    for (double& x : s) sum += (x = std::exp(x - max));
    for (long long j = 0; j < visibleKeys; ++j) {
        const double p = s[static_cast<std::size_t>(j)] / sum;
        for (int d = 0; d < headDim; ++d) {
            const double vjd = v[j * headDim + d];
            row.out[static_cast<std::size_t>(d)] += p * vjd;
            row.scale[static_cast<std::size_t>(d)] += p * std::fabs(vjd);
        }
    }
    row.lse = max + std::log(sum);
    return row;
}

void checkAttention(const CheckContext& ctx, CorrectnessReport& r) {
    const long long batch = ctx.size("batch"), heads = ctx.size("heads"), kvHeads = ctx.size("kv_heads");
    const long long seqQ = ctx.size("seq_q"), seqK = ctx.size("seq_k");
    const int headDim = static_cast<int>(ctx.var("HEAD_DIM"));
    const bool causal = ctx.var("causal") != 0, writeLse = ctx.var("LSE") != 0;
    if (kvHeads <= 0 || heads % kvHeads != 0)
        throw InputError("attention needs heads (" + std::to_string(heads) + ") to be a multiple of kv_heads (" + std::to_string(kvHeads) +
                         "): each key/value head serves heads / kv_heads query heads");
    const double softmaxScale = static_cast<float>(1 / std::sqrt(static_cast<double>(headDim)));  // the float the kernel gets
    const HostArray& Q = ctx.input("Q");
    const HostArray& K = ctx.input("K");
    const HostArray& V = ctx.input("V");
    const HostArray& O = ctx.output("O");
    const std::size_t qElements = static_cast<std::size_t>(batch * heads * seqQ * headDim);
    const std::size_t kvElements = static_cast<std::size_t>(batch * kvHeads * seqK * headDim);
    if (Q.size() != qElements || O.size() != qElements || K.size() != kvElements || V.size() != kvElements)
        throw InputError("attention needs Q and O of batch x heads x seq_q x head_dim, K and V of batch x kv_heads x seq_k x head_dim");
    const HostArray* lse = writeLse ? &ctx.output("lse") : nullptr;

    // The log-sum-exp is all fp32 (the scaled maximum, a sum of up to seq_k exponentials, log2):
    // 2^-16 relative to 1 + |lse| leaves room for a long sum's rounding and nothing more.
    ElementChecker lseChecker(r, 0x1p-16);
    const double tol = 2 * O.dtype->unitRoundoff + 0x1p-12;
    ElementChecker checker(r, tol, O.dtype->subnormalStep / 2);
    r.total = static_cast<long long>(qElements) + (writeLse ? batch * heads * seqQ : 0);
    const long long group = heads / kvHeads;

    auto checkRow = [&](long long b, long long h, long long i) {
        const long long rowIndex = (b * heads + h) * seqQ + i;
        const long long kvRow = (b * kvHeads + h / group) * seqK;
        const AttentionRow ref = attentionReferenceRow(Q.values.data() + rowIndex * headDim, K.values.data() + kvRow * headDim,
                                                       V.values.data() + kvRow * headDim, attentionVisibleKeys(i, seqQ, seqK, causal),
                                                       headDim, softmaxScale);
        for (int d = 0; d < headDim; ++d) {
            const long long index = rowIndex * headDim + d;
            checker.check(index, O[static_cast<std::size_t>(index)], ref.out[static_cast<std::size_t>(d)],
                          ref.scale[static_cast<std::size_t>(d)], [&] {
                              return "O[" + std::to_string(b) + "," + std::to_string(h) + "," + std::to_string(i) + "," + std::to_string(d) + "]";
                          });
        }
        if (lse)
            lseChecker.check(static_cast<long long>(qElements) + rowIndex, (*lse)[static_cast<std::size_t>(rowIndex)], ref.lse,
                          1 + std::fabs(ref.lse), [&] { return elementName("lse", (b * heads + h), i); });
    };

    const double ops = static_cast<double>(batch * heads) * static_cast<double>(seqQ) * static_cast<double>(seqK) * headDim;
    if (ops <= ctx.fullCheckOps) {
        for (long long b = 0; b < batch; ++b)
            for (long long h = 0; h < heads; ++h)
                for (long long i = 0; i < seqQ; ++i) checkRow(b, h, i);
        r.method = "every output against float64 attention";
    } else {
        std::mt19937_64 rng(ctx.seed + 0xa77e);
        std::uniform_int_distribution<long long> pickHead(0, batch * heads - 1), pickRow(0, seqQ - 1);
        const int sampledRows = std::max(64, ctx.sampledOutputs / 16);
        for (int n = 0; n < sampledRows; n += 3) {
            const long long bh = pickHead(rng);
            for (long long i : {0LL, seqQ - 1, pickRow(rng)}) checkRow(bh / heads, bh % heads, i);
        }
        r.method = std::to_string(sampledRows) + " sampled rows against float64 attention";
    }
    // Both baselines (cuDNN's fused attention, and the composed sequence) round their
    // probabilities to the storage type as the kernel does; two tolerances of the largest |v|
    // bound the difference of two correct results.
    double maxAbsV = 0;
    for (double v : V.values) maxAbsV = std::max(maxAbsV, std::fabs(v));
    for (const auto& [id, words] : {std::pair<const char*, const char*>{"cudnn_attention", "cuDNN's attention"},
                                    std::pair<const char*, const char*>{"attention_composed", "the composed baseline"}}) {
        const HostArray* base = ctx.baselineOutput(id);
        if (!base || base->size() != O.size()) continue;
        if (!r.baselineCompared) r.baselineAgrees = true;
        r.baselineCompared = true;
        for (std::size_t i = 0; i < O.size(); ++i) {
            const double diff = std::fabs(O[i] - (*base)[i]) / std::max(maxAbsV, 1e-30);
            if (!(diff <= 2 * tol)) r.baselineAgrees = false;
            if (std::isfinite(diff)) r.baselineMaxRelDiff = std::max(r.baselineMaxRelDiff, diff);
        }
        r.method += std::string("; every output against ") + words;
    }
    checker.finish();
}

}  // namespace kx::engine
