// Names of an enum's values, one table per enum listed in declaration order (values numbered
// from 0 without gaps). One table serves the printer and the parser, so a name cannot drift
// from its value between the two.
#pragma once

#include "util/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace kx::engine {

// names[value]; `fallback` for a value past the table (a cast from a corrupt number).
template <class Enum, std::size_t N>
constexpr const char* enumName(Enum value, const char* const (&names)[N], const char* fallback = "?") {
    const auto i = static_cast<std::size_t>(value);
    return i < N ? names[i] : fallback;
}

// The value whose name is `name`; InputError "unknown WHAT 'name' (a, b or c)" for other text.
template <class Enum, std::size_t N>
Enum enumNamed(std::string_view name, const char* const (&names)[N], std::string_view what) {
    std::string choices;
    for (std::size_t i = 0; i < N; ++i) {
        if (name == names[i]) return static_cast<Enum>(i);
        choices += i == 0 ? "" : i + 1 == N ? " or " : ", ";
        choices += names[i];
    }
    throw InputError("unknown " + std::string(what) + " '" + std::string(name) + "' (" + choices + ")");
}

}  // namespace kx::engine
