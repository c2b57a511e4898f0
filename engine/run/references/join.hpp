// The join template's reference: the inner join of a build table and a probe table on their keys.
#pragma once

#include <vector>

namespace kx::engine {

struct JoinMatch {
    long long probeRow = 0;     // index into the probe keys
    double buildPayload = 0;    // the matching build row's payload
    bool operator==(const JoinMatch&) const = default;
};

// Every (probe row, build payload) with pkeys[probe row] == bkeys[build row], ascending by probe
// row, then by payload (a build key that occurs several times matches once per occurrence).
// Keys are integers; bvals holds one payload per build key. Throws InputError on mismatched
// lengths.
std::vector<JoinMatch> joinReference(const std::vector<double>& bkeys, const std::vector<double>& bvals, const std::vector<double>& pkeys);

}  // namespace kx::engine
