// Histogram: exact bin counts, binned by the same rule (and the same fp32 arithmetic) as the
// histogram template's kernel and CUB's DeviceHistogram::HistogramEven.
#pragma once

#include "run/reference_registry.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kx::engine {

// The bin of one sample, or -1 when it is dropped.
//   intKeys: the sample is an integer key k, counted in bin k when 0 <= k < bins.
//   otherwise: x = the sample as an fp32 value is counted when lo <= x < hi (a NaN never), in bin
//   (int)((x - lo) * scale) with scale = bins / (hi - lo), each operation rounded to fp32 as the
//   GPU rounds it (one IEEE operation, to nearest), the product truncated toward zero and capped
//   at bins - 1. That is CUB's rule for floating-point levels; the cap only matters for ranges
//   whose rounding can lift a sample just below hi to bin `bins` (never for lo = 0, hi = 1).
// Requires bins >= 1.
int histogramBin(bool intKeys, int bins, float lo, float hi, double sample);

// counts[b] = how many of samples[0..n) histogramBin puts in bin b; bins counts.
std::vector<std::uint64_t> histogramReference(bool intKeys, int bins, float lo, float hi, const double* samples, std::size_t n);


}  // namespace kx::engine
