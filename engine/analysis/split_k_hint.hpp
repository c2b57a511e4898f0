// A Split-K count that fills the device's block slots: where a template's SPLITK parameter sets
// how many work units each output tile makes (conv, conv_wgmma, gemm_mma, gemm_wgmma), the waves
// say how many slots its launch leaves idle, and another count may fill them.
#pragma once

#include "analysis/tile_layout.hpp"

#include <optional>
#include <string>

namespace kx::engine {

struct SplitKHint {
    long long splitK = 1;
    WaveModel waves;    // the launch with that count
    WaveModel current;  // the config's own
};

// Rates each allowed SPLITK (the config's other values kept; counts the constraints or the
// problem refuse left out) by the waves its launch takes on the device at the same blocks per
// SM: a count changes how many units there are, not a block's registers or shared memory. Only
// counts that take no more waves (rounds) than the config's are candidates, so that a hint never
// trades a short tail for more passes over the GPU. The busiest wins, the smaller count on a
// tie. nullopt when the template has no int SPLITK, when it does not apply to the config
// (applies="..."), or when no count is 5 points busier than the config's.
std::optional<SplitKHint> splitKHint(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes,
                                     const DeviceSpec& device, const OccupancyResult& occupancy);

// "SPLITK=44: 132 work units in 1 round, 100% of the block slots busy (this config: 30%)".
std::string splitKHintSentence(const SplitKHint& hint);

}  // namespace kx::engine
