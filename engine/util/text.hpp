// Small text helpers shared by the loaders of data files (manifests, tutorials).
#pragma once

#include <string>
#include <string_view>

namespace kx::engine {

// Runs of spaces, tabs and line breaks folded into single spaces, none at either end: the
// indentation of multi-line XML text becomes one line.
std::string foldWhitespace(std::string_view text);

}  // namespace kx::engine
