#include "tutorial/prose.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <sstream>

namespace kx::engine {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> splitLines(std::string_view text) {
    std::vector<std::string> lines;
    std::string line;
    for (char c : text) {
        if (c == '\n') {
            lines.push_back(std::move(line));
            line.clear();
        } else if (c != '\r') {
            line += c;
        }
    }
    lines.push_back(std::move(line));
    return lines;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

std::size_t indentOf(const std::string& s) {
    std::size_t n = 0;
    while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
    return n;
}

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// "1. text" -> 1 with `rest` = "text"; 0 when the line is not a numbered item.
int numberedItem(const std::string& line, std::string& rest) {
    std::size_t i = 0;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i == 0 || i > 3 || i + 1 >= line.size() || line[i] != '.' || line[i + 1] != ' ') return 0;
    rest = line.substr(i + 2);
    return std::stoi(line.substr(0, i));
}

void appendPlain(std::vector<ProseSpan>& spans, std::string_view text) {
    if (text.empty()) return;
    if (!spans.empty() && spans.back().style == ProseSpan::Style::Plain) spans.back().text += text;
    else spans.push_back({ProseSpan::Style::Plain, std::string(text), ""});
}

}  // namespace

std::vector<ProseSpan> parseInline(std::string_view text) {
    std::vector<ProseSpan> spans;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '`') {
            const auto end = text.find('`', i + 1);
            if (end != std::string_view::npos) {
                spans.push_back({ProseSpan::Style::Code, std::string(text.substr(i + 1, end - i - 1)), ""});
                i = end + 1;
                continue;
            }
        } else if (c == '*' && i + 1 < text.size() && text[i + 1] == '*') {
            const auto end = text.find("**", i + 2);
            if (end != std::string_view::npos && end > i + 2) {
                spans.push_back({ProseSpan::Style::Strong, std::string(text.substr(i + 2, end - i - 2)), ""});
                i = end + 2;
                continue;
            }
        } else if ((c == '*' || c == '_') && i + 1 < text.size() && text[i + 1] != ' ') {
            // An underscore inside a word (a parameter name like BLOCK_M) is not emphasis.
            const bool wordBefore = c == '_' && i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1]));
            const auto end = text.find(c, i + 1);
            const bool wordAfter = c == '_' && end != std::string_view::npos && end + 1 < text.size() &&
                                   std::isalnum(static_cast<unsigned char>(text[end + 1]));
            if (!wordBefore && !wordAfter && end != std::string_view::npos && end > i + 1) {
                spans.push_back({ProseSpan::Style::Emphasis, std::string(text.substr(i + 1, end - i - 1)), ""});
                i = end + 1;
                continue;
            }
        } else if (c == '[') {
            const auto close = text.find("](", i + 1);
            const auto end = close == std::string_view::npos ? close : text.find(')', close + 2);
            if (end != std::string_view::npos && text.substr(i + 1, close - i - 1).find('[') == std::string_view::npos) {
                spans.push_back({ProseSpan::Style::Link, std::string(text.substr(i + 1, close - i - 1)),
                                 std::string(text.substr(close + 2, end - close - 2))});
                i = end + 1;
                continue;
            }
        }
        appendPlain(spans, text.substr(i, 1));
        ++i;
    }
    return spans;
}

std::vector<ProseBlock> parseProse(std::string_view text, const fs::path& folder, const fs::path& file, int firstLine) {
    std::vector<std::string> lines = splitLines(text);
    // Dedent by the smallest indentation of a non-blank line.
    std::size_t common = std::string::npos;
    for (const std::string& l : lines)
        if (!blank(l)) common = std::min(common, indentOf(l));
    if (common == std::string::npos) return {};
    for (std::string& l : lines) l = blank(l) ? "" : l.substr(common);

    auto fail = [&](std::size_t index, const std::string& reason) {
        throw InputError(file.string() + ":" + std::to_string(firstLine + static_cast<int>(index)) + ": " + reason);
    };

    std::vector<ProseBlock> blocks;
    std::string paragraph;  // the paragraph or item being gathered
    ProseBlock* open = nullptr;  // the block `paragraph` belongs to
    auto flush = [&] {
        if (open) open->spans = parseInline(paragraph);
        open = nullptr;
        paragraph.clear();
    };
    auto start = [&](ProseBlock::Kind kind, int level, const std::string& textOfLine) {
        flush();
        blocks.push_back({});
        blocks.back().kind = kind;
        blocks.back().level = level;
        open = &blocks.back();
        paragraph = trim(textOfLine);
    };

    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        const std::string t = trim(line);
        if (t.empty()) {
            flush();
            continue;
        }
        if (t.rfind("```", 0) == 0) {
            flush();
            ProseBlock code;
            code.kind = ProseBlock::Kind::Code;
            code.language = trim(t.substr(3));
            const std::size_t fenceIndent = indentOf(line);
            std::size_t j = i + 1;
            for (; j < lines.size() && trim(lines[j]).rfind("```", 0) != 0; ++j) {
                const std::string& body = lines[j];
                code.code += (j > i + 1 ? "\n" : "") + body.substr(std::min(fenceIndent, indentOf(body)));
            }
            if (j == lines.size()) fail(i, "code block opened with ``` is never closed");
            blocks.push_back(std::move(code));
            i = j;
            continue;
        }
        if (t[0] == '#') {
            std::size_t level = t.find_first_not_of('#');
            if (level != std::string::npos && level <= 3 && t[level] == ' ') {
                start(ProseBlock::Kind::Heading, static_cast<int>(level), t.substr(level + 1));
                flush();
                continue;
            }
        }
        if (t.rfind("![", 0) == 0 && t.back() == ')') {
            const auto close = t.find("](");
            if (close != std::string::npos) {
                flush();
                ProseBlock image;
                image.kind = ProseBlock::Kind::Image;
                image.alt = t.substr(2, close - 2);
                const fs::path relative = t.substr(close + 2, t.size() - close - 3);
                if (relative.empty() || relative.is_absolute() ||
                    std::any_of(relative.begin(), relative.end(), [](const fs::path& part) { return part == ".."; }))
                    fail(i, "image '" + relative.string() + "' must be a file in the tutorial's folder");
                image.image = folder / relative;
                std::error_code ec;
                if (!fs::is_regular_file(image.image, ec)) fail(i, "image '" + relative.string() + "' is not in " + folder.string());
                blocks.push_back(std::move(image));
                continue;
            }
        }
        if ((t[0] == '-' || t[0] == '*') && t.size() > 1 && t[1] == ' ') {
            start(ProseBlock::Kind::Bullet, 0, t.substr(2));
            continue;
        }
        std::string rest;
        if (const int n = numberedItem(t, rest); n > 0) {
            start(ProseBlock::Kind::Numbered, n, rest);
            continue;
        }
        if (open) {
            paragraph += ' ' + t;  // a continuation of the paragraph or the item
        } else {
            start(ProseBlock::Kind::Paragraph, 0, t);
        }
    }
    flush();
    return blocks;
}

namespace {

std::string spansText(const std::vector<ProseSpan>& spans) {
    std::string out;
    for (const ProseSpan& s : spans) {
        switch (s.style) {
        case ProseSpan::Style::Code: out += '`' + s.text + '`'; break;
        case ProseSpan::Style::Link: out += s.text + " <" + s.target + ">"; break;
        default: out += s.text;
        }
    }
    return out;
}

// Greedy word wrap with a hanging indent.
std::string wrap(const std::string& text, int width, const std::string& first, const std::string& rest) {
    std::istringstream in(text);
    std::string out = first, word;
    std::size_t column = first.size();
    bool lineEmpty = true;
    while (in >> word) {
        if (!lineEmpty && column + 1 + word.size() > static_cast<std::size_t>(width)) {
            out += '\n' + rest;
            column = rest.size();
            lineEmpty = true;
        }
        if (!lineEmpty) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        lineEmpty = false;
    }
    return out + '\n';
}

}  // namespace

std::string proseToText(const std::vector<ProseBlock>& blocks, int width) {
    std::string out;
    for (const ProseBlock& b : blocks) {
        switch (b.kind) {
        case ProseBlock::Kind::Heading: out += "\n" + spansText(b.spans) + "\n"; break;
        case ProseBlock::Kind::Paragraph: out += wrap(spansText(b.spans), width, "", "") + "\n"; break;
        case ProseBlock::Kind::Bullet: out += wrap(spansText(b.spans), width, "  - ", "    "); break;
        case ProseBlock::Kind::Numbered: {
            const std::string mark = "  " + std::to_string(b.level) + ". ";
            out += wrap(spansText(b.spans), width, mark, std::string(mark.size(), ' '));
            break;
        }
        case ProseBlock::Kind::Code: {
            std::istringstream in(b.code);
            for (std::string l; std::getline(in, l);) out += "      " + l + "\n";
            out += "\n";
            break;
        }
        case ProseBlock::Kind::Image: out += "  [image: " + b.alt + " (" + b.image.filename().string() + ")]\n\n"; break;
        }
    }
    return out;
}

}  // namespace kx::engine
