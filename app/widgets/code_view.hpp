// A read-only code view drawn with ImGui: line numbers in a sticky gutter, syntax colours,
// marked lines (compile errors and warnings, message on hover), and a find box (Ctrl+F).
// Long files stay cheap: only visible lines are tokenized and drawn (ImGuiListClipper).
//
// One CodeView per shown document: it keeps its own UI state (find text, scroll requests) and a
// copy of the text it last laid out, so callers simply pass the current text every frame.
#pragma once

#include "theme.hpp"
#include "widgets/syntax.hpp"

#include <string>
#include <vector>

namespace kx::app {

struct LineMark {
    int line = 0;          // 1-based
    bool error = true;     // false: warning
    std::string message;   // shown on hover
};

struct CodeViewOptions {
    CodeLanguage language = CodeLanguage::Plain;
    const std::vector<LineMark>* marks = nullptr;  // may be null
    bool dimmed = false;            // the text is outdated (a newer one is on its way)
    const char* emptyMessage = "";  // shown centred when the text is empty
};

class CodeView {
public:
    // Draws a toolbar (find box, match count, copy) and the text below it, filling the remaining
    // content region. id must be unique within the current window.
    void draw(const char* id, const std::string& text, const Theme& theme, const CodeViewOptions& options);

    // Scrolls so that line (1-based) is visible at the next draw().
    void scrollToLine(int line) { m_scrollToLine = line; }

private:
    void layout(const std::string& text, CodeLanguage language);
    void drawToolbar(const char* id, const Theme& theme);
    void updateMatches();
    void drawLines(const Theme& theme, const CodeViewOptions& options);

    // Layout of the last text seen.
    std::string m_source;            // as given, to notice changes
    CodeLanguage m_language = CodeLanguage::Plain;
    std::string m_text;              // tabs expanded, so a column is one glyph wide
    std::vector<int> m_lineStarts;   // offsets into m_text; one past the end is m_text.size()+1
    std::vector<char> m_blockCommentAtStart;  // per line: inside /* */ when the line starts
    int m_maxColumns = 0;

    // Find.
    std::string m_find;
    std::string m_findLower;         // what m_matchLines was computed for
    std::vector<int> m_matchLines;   // 0-based lines holding a match, ascending
    int m_matchIndex = -1;
    bool m_focusFind = false;

    int m_scrollToLine = -1;
    std::vector<SyntaxToken> m_tokens;  // scratch, reused across lines
};

}  // namespace kx::app
