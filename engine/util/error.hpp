// The one exception type for bad input (unknown names, values out of range, malformed files).
// Callers show what() to the user as is; the CLI exits 2 on it.
#pragma once

#include <stdexcept>
#include <string>

namespace kx::engine {

class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace kx::engine
