// Content hashes (XXH3) for cache keys and artifact identity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kx::engine {

std::uint64_t hash64(std::string_view bytes);
// 128-bit XXH3 as 32 lowercase hex digits: used for file names and cache keys.
std::string hashHex128(std::string_view bytes);

}  // namespace kx::engine
