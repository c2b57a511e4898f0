// A sweep's space: the configs of a template to explore. Some parameters (and compiler flags,
// templates/compile_flags.hpp) vary over listed values, a range or everything they allow; the
// others stay at the base config (defaults, --set values and --flag flags). A space may start from several base configs (a preselected set), each crossed
// with the varied parameters. Large spaces are sampled with a seed, so a sample is repeatable.
#pragma once

#include "templates/template.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kx::engine {

// Every value a parameter allows, as canonical text: an int's list (or each integer of its
// range), false/true for a bool, the choices of an enum. Throws InputError for a range of more
// than kMaxRangeValues integers (name a smaller range instead).
inline constexpr long long kMaxRangeValues = 4096;
std::vector<std::string> allowedValues(const ParamSpec& param);

struct SweepAxis {
    std::string param;                // a parameter, or with flag the compiler flag's key
    std::vector<std::string> values;  // canonical text, in the order given, without repeats
    bool flag = false;                // a compiler flag (Config::flags), not a parameter
};

// Parses one --vary: "BM" (every allowed value), "BM=64,128" (those values), "STAGES=2..4"
// (the allowed integers from 2 to 4), or a mix ("BK=16,64..128"). A name that is no parameter
// of the template but a compiler flag varies the flag: "maxrregcount=0,64,128" (0: no cap),
// "fast_math" (false, true), "ptxas_opt=1..3". Throws InputError naming the parameter or value,
// and what is allowed, when something is not.
SweepAxis parseVary(const Template& tmpl, const std::string& text);

struct SweepSpace {
    std::string templateId;
    std::vector<Config> bases;     // at least one
    std::vector<SweepAxis> axes;   // at most one per parameter

    // Configs in the space (bases x the product of the axes' sizes), saturating at UINT64_MAX.
    std::uint64_t size() const;
    // The config at index (bases outermost, then the axes in order, the last one fastest).
    Config at(std::uint64_t index) const;
};

// A space over `bases` (each a full config of tmpl) and the parsed --vary texts. Throws
// InputError on a malformed --vary, a parameter or flag varied twice, or no base.
SweepSpace makeSpace(const Template& tmpl, std::vector<Config> bases, const std::vector<std::string>& varies);

// The configs to sweep, without repeats, in space order: all of them when sample is 0 or not
// smaller than the space, else `sample` distinct ones drawn with the seed (the same seed gives
// the same configs). Throws InputError when all of a space larger than kMaxSweepConfigs are
// asked for.
inline constexpr std::uint64_t kMaxSweepConfigs = 1000000;
std::vector<Config> spaceConfigs(const SweepSpace& space, std::uint64_t sample = 0, std::uint64_t seed = 1);

// `sample` distinct configs of a list drawn with the seed, in list order (all of them when
// sample is 0 or not smaller than the list).
std::vector<Config> sampleConfigs(std::vector<Config> configs, std::uint64_t sample, std::uint64_t seed);

}  // namespace kx::engine
