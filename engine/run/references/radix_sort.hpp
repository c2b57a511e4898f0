// The radix_sort template's reference: a stable sort of 32-bit unsigned keys, optionally
// carrying a value each.
#pragma once

#include <cstddef>
#include <vector>

namespace kx::engine {

struct SortedKeys {
    std::vector<double> keys;
    std::vector<double> values;  // empty when no values were given
};

// Above this many keys the reference sorts with an LSD counting sort (O(n), exact, stable: about
// 1 s for 2^26 keys) instead of std::stable_sort (O(n log n): about 10 s for 2^26 keys).
inline constexpr std::size_t kCountingSortThreshold = std::size_t{1} << 20;

// keys (integers in [0, 2^32)) sorted ascending, stably: equal keys keep their input order, and
// values (as many as keys, or none for keys only) move with their keys. Throws InputError when a
// key is not such an integer, when the lengths differ, or past 2^32 keys.
SortedKeys radixSortReference(const std::vector<double>& keys, const std::vector<double>& values);

}  // namespace kx::engine
