// A configuration of a template: the value of each parameter, as canonical text.
// A value type: hashable, comparable, printable (Triton's Config, CUTLASS's procedural names).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kx::engine {

struct Config {
    std::string templateId;
    std::map<std::string, std::string> values;  // parameter name -> canonical text ("128", "true", "f16")

    // "gemm:BK=32,BM=128,..." -- stable, sorted by key; what the hash is taken over.
    std::string canonical() const;
    std::uint64_t hash() const;  // XXH3 of canonical()

    const std::string& at(const std::string& key) const;  // throws InputError when absent

    bool operator==(const Config&) const = default;
};

struct ConfigHash {
    std::size_t operator()(const Config& c) const { return static_cast<std::size_t>(c.hash()); }
};

}  // namespace kx::engine
