// A read-only line diff of two texts: side by side (A left, B right) or unified, with line
// numbers, syntax colours, removed/added/changed lines on the theme's diff backgrounds, counts
// ("+12 −7"), and "only changes" folding that keeps a few lines of context and collapses every
// longer unchanged run into one "… 120 unchanged lines" row (click it to unfold).
//
// One DiffView per shown pair. Callers pass both texts every frame; the diff is recomputed only
// when either text changes (the widget keeps copies, like CodeView), so a 9000-line PTX pair
// costs its diff once. Drawing goes through ImGuiListClipper: only visible rows are laid out.
#pragma once

#include "theme.hpp"
#include "widgets/line_diff.hpp"
#include "widgets/syntax.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kx::app {

struct DiffViewOptions {
    CodeLanguage language = CodeLanguage::Plain;
    std::string labelA;  // header of the left side / the "−" lines ("gemm_..._64x128x32")
    std::string labelB;
};

class DiffView {
public:
    // Draws a toolbar (mode, folding, context, counts) and the diff below it, filling the
    // remaining content region. id must be unique within the current window.
    void draw(const char* id, const std::string& a, const std::string& b, const Theme& theme,
              const DiffViewOptions& options);

    // The diff of the texts last drawn (for tests and captions).
    const diff::LineDiff& result() const { return m_diff; }

private:
    void recompute();
    void refold();
    void drawToolbar(const Theme& theme, const DiffViewOptions& options);
    void drawRows(const Theme& theme, const DiffViewOptions& options);
    // drawRows' parts (Geometry is defined in diff_view.cpp).
    struct Geometry;
    void drawHeader(const Theme& theme, const DiffViewOptions& options, const Geometry& geometry) const;
    bool drawFoldRow(const Theme& theme, const diff::DisplayRow& row, const Geometry& geometry) const;
    void drawUnifiedRow(const Theme& theme, CodeLanguage language, const diff::Row& row, const Geometry& geometry, float y);
    // One side's cell of a row: background, gutter number, text clipped to [x0, x1).
    void drawCell(const Theme& theme, CodeLanguage language, const std::vector<std::string_view>& lines, int line,
                  diff::RowKind kind, bool leftSide, float x0, float x1, float y, float lineH);

    std::string m_rawA, m_rawB;                 // the texts as given, to notice changes
    std::string m_a, m_b;                       // the same with tabs expanded (a column is a glyph)
    std::vector<std::string_view> m_linesA, m_linesB;  // views into m_a, m_b
    diff::LineDiff m_diff;
    std::vector<diff::Row> m_sideRows;          // side-by-side pairing of m_diff.unified
    std::vector<diff::DisplayRow> m_display;    // what is drawn, folded or not
    std::set<int> m_unfolded;                   // folds the user opened, by their first hidden row
    bool m_computed = false;

    bool m_sideBySide = true;
    bool m_onlyChanges = true;
    int m_context = 3;
    // What m_display was built for.
    bool m_builtSideBySide = true;
    bool m_builtOnlyChanges = true;
    int m_builtContext = 3;
    std::size_t m_builtUnfolded = 0;
    std::vector<SyntaxToken> m_tokens;          // scratch
};

}  // namespace kx::app
