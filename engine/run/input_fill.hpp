// How a template's input arguments are filled: the manifest's `fill` attribute of an <arg>.
//
//   uniform(lo, hi)    reals in [lo, hi), rounded to the argument's dtype (the default for floats: uniform(-1, 1))
//   normal(mean, sd)   normally distributed reals, rounded to the dtype
//   randint(lo, hi)    integers in [lo, hi) (the default for integers: randint(0, 1000))
//   unique(lo, hi)     distinct integers in [lo, hi), in random order (needs hi - lo >= count)
//   iota(start)        start, start + 1, ...
//   const(v)           every element v
//
// Any of them may be followed by " sorted" (ascending order). The arguments are expressions over
// the template's variables and problem sizes ("randint(0, BINS)", "unique(0, 2*n)").
#pragma once

#include "run/dtype.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kx::engine {

struct FillSpec {
    std::string kind;          // uniform, normal, randint, unique, iota, const
    std::vector<double> args;  // evaluated
    bool sorted = false;
};

// Parses and evaluates `text` (empty: the dtype's default). Throws InputError that quotes the
// text and says what is wrong (unknown distribution, wrong argument count, lo >= hi, a float
// distribution for an integer dtype is allowed and rounds; an integer range outside the dtype is not).
FillSpec parseFill(const std::string& text, const DtypeInfo& dtype, const std::map<std::string, double>& variables);

// count values from the seed, exactly representable in dtype (floats rounded to it). The same
// spec, dtype, count and seed give the same values on every host.
std::vector<double> generateFill(const FillSpec& spec, const DtypeInfo& dtype, std::size_t count, std::uint64_t seed);

}  // namespace kx::engine
