// Small text helpers shared by the loaders of data files (manifests, tutorials) and the readers
// of compiler output (PTX, SASS listings).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

// Runs of spaces, tabs and line breaks folded into single spaces, none at either end: the
// indentation of multi-line XML text becomes one line.
std::string foldWhitespace(std::string_view text);

// The lines of text, without their '\n' (or "\r\n"); a final line without one counts, an empty
// text has none. The views point into `text`.
std::vector<std::string_view> splitLines(std::string_view text);

// Tabs replaced by the spaces to the next multiple of tabWidth columns, and '\r' dropped: text
// as a monospaced view shows it, one byte a column.
std::string expandTabs(std::string_view text, int tabWidth);

}  // namespace kx::engine
