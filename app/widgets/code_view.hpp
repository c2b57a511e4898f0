// A read-only code view drawn with ImGui: line numbers in a sticky gutter, syntax colours,
// marked lines (compile errors and warnings, message on hover), and a find box (Ctrl+F).
// Long files stay cheap: only visible lines are tokenized and drawn (ImGuiListClipper).
//
// One CodeView per shown document: it keeps its own UI state (find text, scroll requests) and a
// copy of the text it last laid out, so callers simply pass the current text every frame.
// A CodeDecorator adds what links the document to others: colour bands, highlighted lines,
// extra gutter columns (live registers, control codes, instruction classes, later measured
// samples) and tooltips on words (opcode docs).
#pragma once

#include "theme.hpp"
#include "widgets/syntax.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kx::app {

struct LineMark {
    int line = 0;          // 1-based
    bool error = true;     // false: warning
    std::string message;   // shown on hover
};

// Per-line decorations, asked for the visible lines only, every frame: keep them cheap (look-ups
// in data computed when the document changed). Lines are 1-based.
class CodeDecorator {
public:
    virtual ~CodeDecorator() = default;
    // A colour strip at the start of the line's text (0: none): lines of different documents
    // made from the same source line share a colour.
    virtual ImU32 band(int line) const { (void)line; return 0; }
    // A background across the whole line (0: none): the lines linked to the active one.
    virtual ImU32 highlight(int line) const { (void)line; return 0; }
    // Gutter columns after the line numbers, each of a fixed width in pixels.
    virtual int columnCount() const { return 0; }
    virtual float columnWidth(int column) const { (void)column; return 0; }
    virtual void drawCell(int column, int line, ImDrawList* drawList, ImVec2 min, ImVec2 max) const {
        (void)column, (void)line, (void)drawList, (void)min, (void)max;
    }
    // While a cell is hovered: draws a tooltip (BeginTooltip ... EndTooltip) and returns true, or false.
    virtual bool cellTooltip(int column, int line) const { (void)column, (void)line; return false; }
    // While the text is hovered at a character column (0-based; -1: the line's instruction as a
    // whole, for scripted hovers): draws a tooltip with BeginTooltip and returns true, or false.
    virtual bool textTooltip(int line, std::string_view text, int column) const { (void)line, (void)text, (void)column; return false; }
};

struct CodeViewOptions {
    CodeLanguage language = CodeLanguage::Plain;
    const CodeDecorator* decorator = nullptr;      // may be null
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
    // The line under the mouse in the last draw() (1-based; 0: none), and a line clicked there
    // (returned once).
    int hoveredLine() const { return m_hoveredLine; }
    int takeClickedLine() { return std::exchange(m_clickedLine, 0); }
    // Scripts and screenshots: treat line as hovered (its tooltip shows) until cleared with 0.
    void forceHover(int line) { m_forcedHover = line; }
    // Whether line is inside the visible part, as of the last draw().
    bool lineVisible(int line) const { return line >= m_firstVisible && line <= m_lastVisible; }
    int firstVisibleLine() const { return m_firstVisible; }  // 1-based; 0 before the first draw()
    int lineCount() const { return static_cast<int>(m_lineStarts.size()); }

private:
    void layout(const std::string& text, CodeLanguage language);
    void drawToolbar(const char* id, const Theme& theme);
    void updateMatches();
    void drawLines(const Theme& theme, const CodeViewOptions& options);
    // drawLines' parts, for one visible line each (defined in code_view.cpp).
    struct Frame;
    struct VisibleLine;
    void drawLine(const Frame& frame, int index);
    void drawLineBackground(const Frame& frame, const VisibleLine& line) const;
    int drawLineGutter(const Frame& frame, const VisibleLine& line) const;
    void drawLineTooltips(const Frame& frame, const VisibleLine& line, int hoveredCell) const;

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
    int m_hoveredLine = 0, m_clickedLine = 0, m_forcedHover = 0;
    int m_firstVisible = 0, m_lastVisible = -1;
    std::vector<SyntaxToken> m_tokens;  // scratch, reused across lines
};

}  // namespace kx::app
