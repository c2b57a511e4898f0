// Attention (the attention template), one query row i of one head, in float64:
//     s[j] = scale * q . k[j]        for the keys the row may see (causal: j <= i + seq_k - seq_q)
//     p[j] = exp(s[j] - max s) / l,  l = sum_j exp(s[j] - max s)
//     out[d] = sum_j p[j] v[j][d],   lse = max s + log l
// A row that sees no key gets out = 0 and lse = -inf.
#pragma once

#include "run/reference_registry.hpp"

namespace kx::engine {

struct AttentionRow {
    std::vector<double> out;    // head_dim values
    std::vector<double> scale;  // sum_j p[j] |v[j][d]|: the magnitude of the terms of out[d]
    double lse = 0;
};

// q: head_dim values; k, v: visibleKeys rows of head_dim values each (the first visibleKeys keys).
AttentionRow attentionReferenceRow(const double* q, const double* k, const double* v, long long visibleKeys, int headDim,
                                   double softmaxScale);

// Keys row `query` may see: seq_k, or for a causal mask min(seq_k, query + seq_k - seq_q + 1)
// (never below 0).
long long attentionVisibleKeys(long long query, long long seqQ, long long seqK, bool causal);

}  // namespace kx::engine
