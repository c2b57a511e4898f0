// A configuration of a template: the value of each parameter, as canonical text, and the
// compiler flags it is built with. A value type: hashable, comparable, printable (Triton's
// Config, CUTLASS's procedural names).
#pragma once

#include "templates/compile_flags.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace kx::engine {

struct Config {
    std::string templateId;
    std::map<std::string, std::string> values;  // parameter name -> canonical text ("128", "true", "f16")
    CompileFlags flags;                         // the defaults unless the user changed them

    // "gemm:BK=32,BM=128,..." -- stable, sorted by key; what the hash is taken over. Non-default
    // flags follow a '|': "gemm:BK=32,...|maxrregcount=64", so a config with the default flags
    // keeps the text (and hash) it had before flags existed.
    std::string canonical() const;
    std::uint64_t hash() const;  // XXH3 of canonical()

    const std::string& at(const std::string& key) const;  // throws InputError when absent

    bool operator==(const Config&) const = default;
};

struct ConfigHash {
    std::size_t operator()(const Config& c) const { return static_cast<std::size_t>(c.hash()); }
};

}  // namespace kx::engine
