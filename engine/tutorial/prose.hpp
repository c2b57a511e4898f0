// The prose of a tutorial step: a small Markdown subset parsed into blocks a view draws.
//
// Supported: headings (#, ##, ###), paragraphs (separated by blank lines), bullet items (- or *)
// and numbered items (1.), fenced code blocks (```), images alone on a line (![alt](file.png),
// a file in the tutorial's folder), and inside text: `code`, **strong**, *emphasis* or
// _emphasis_, and [links](https://...). Nothing else is Markdown here: tables, HTML and nested
// lists are plain text.
//
// The text is dedented first (its common leading whitespace removed), so prose may be indented
// inside the XML like the rest of the file. Pure functions; thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kx::engine {

struct ProseSpan {
    enum class Style { Plain, Emphasis, Strong, Code, Link };
    Style style = Style::Plain;
    std::string text;
    std::string target;  // Link: the URL
};

struct ProseBlock {
    enum class Kind { Heading, Paragraph, Bullet, Numbered, Code, Image };
    Kind kind = Kind::Paragraph;
    int level = 0;                  // Heading: 1..3; Numbered: the item's number
    std::vector<ProseSpan> spans;   // Heading, Paragraph, Bullet, Numbered
    std::string code;               // Code: the lines, verbatim (dedented with the fence)
    std::string language;           // Code: the word after the opening fence ("cuda", "")
    std::filesystem::path image;    // Image: absolute path of the file
    std::string alt;                // Image: its alternative text
};

// Parses `text`. `folder` is where images are looked up; `file` and `firstLine` (the line of the
// text's first character in `file`) name errors. Throws InputError "file:line: reason" on an
// unclosed code fence, an image outside the folder or missing from it.
std::vector<ProseBlock> parseProse(std::string_view text, const std::filesystem::path& folder, const std::filesystem::path& file,
                                   int firstLine);

// The inline spans of one line of text (code, strong, emphasis, links). Unclosed markers are
// plain text.
std::vector<ProseSpan> parseInline(std::string_view text);

// The blocks as plain text (headings, items and code as they read), for the CLI and tests.
std::string proseToText(const std::vector<ProseBlock>& blocks, int width = 96);

}  // namespace kx::engine
