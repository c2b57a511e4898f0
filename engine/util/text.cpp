#include "util/text.hpp"

namespace kx::engine {

std::string foldWhitespace(std::string_view text) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = !out.empty();
        } else {
            if (space) out += ' ';
            space = false;
            out += c;
        }
    }
    return out;
}

std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

std::string expandTabs(std::string_view text, int tabWidth) {
    std::string out;
    out.reserve(text.size());
    int column = 0;
    for (char c : text) {
        if (c == '\t') {
            const int n = tabWidth - column % tabWidth;
            out.append(static_cast<std::size_t>(n), ' ');
            column += n;
        } else if (c != '\r') {
            out += c;
            column = c == '\n' ? 0 : column + 1;
        }
    }
    return out;
}

}  // namespace kx::engine
