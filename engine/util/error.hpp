// The exception types for what users see: bad input (unknown names, values out of range,
// malformed files) and output that could not be written. Callers show what() to the user as is;
// the CLI exits 2 on InputError and 1 on OutputError.
#pragma once

#include <stdexcept>
#include <string>

namespace kx::engine {

class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// A write that failed (a full disk, no permission, a closed pipe): "cannot write FILE: reason".
class OutputError : public std::runtime_error {
public:
    explicit OutputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace kx::engine
