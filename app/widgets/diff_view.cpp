#include "widgets/diff_view.hpp"

#include "util/text.hpp"
#include "widgets/opaque_fill.hpp"

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::app {

namespace {

constexpr int kTabWidth = 4;
constexpr int kMaxContext = 20;

}  // namespace

void DiffView::recompute() {
    m_a = engine::expandTabs(m_rawA, kTabWidth);
    m_b = engine::expandTabs(m_rawB, kTabWidth);
    m_linesA = diff::splitLines(m_a);
    m_linesB = diff::splitLines(m_b);
    m_diff = diff::computeLineDiff(m_linesA, m_linesB);
    m_sideRows = diff::sideBySide(m_diff.unified);
    m_unfolded.clear();
    m_computed = true;
    m_builtUnfolded = static_cast<std::size_t>(-1);  // force refold
}

void DiffView::refold() {
    m_builtSideBySide = m_sideBySide;
    m_builtOnlyChanges = m_onlyChanges;
    m_builtContext = m_context;
    m_builtUnfolded = m_unfolded.size();
    const std::vector<diff::Row>& rows = m_sideBySide ? m_sideRows : m_diff.unified;
    m_display.clear();
    if (!m_onlyChanges) {
        m_display.reserve(rows.size());
        for (int i = 0; i < static_cast<int>(rows.size()); ++i) m_display.push_back({i, 0, 0});
        return;
    }
    // Folds the user opened are replaced by the rows they hid. Fold names (first hidden row)
    // depend on the mode and context, so opened folds are forgotten when those change.
    for (const diff::DisplayRow& d : diff::foldUnchanged(rows, m_context)) {
        if (d.row < 0 && m_unfolded.count(d.first) != 0) {
            for (int k = d.first; k < d.first + d.hidden; ++k) m_display.push_back({k, 0, 0});
        } else {
            m_display.push_back(d);
        }
    }
}

void DiffView::draw(const char* id, const std::string& a, const std::string& b, const Theme& theme,
                    const DiffViewOptions& options) {
    ImGui::PushID(id);
    if (!m_computed || a != m_rawA || b != m_rawB) {
        m_rawA = a;
        m_rawB = b;
        recompute();
    }
    drawToolbar(theme, options);
    if (m_builtSideBySide != m_sideBySide || m_builtContext != m_context) m_unfolded.clear();
    if (m_builtSideBySide != m_sideBySide || m_builtOnlyChanges != m_onlyChanges || m_builtContext != m_context ||
        m_builtUnfolded != m_unfolded.size())
        refold();

    const Palette& pal = theme.palette();
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    if (beginOpaqueChild("##diff", ImVec2(0, 0), true, 0, pal.codeBg)) drawRows(theme, options);
    ImGui::EndChild();
    ImGui::PopStyleVar();
    ImGui::PopID();
}

void DiffView::drawToolbar(const Theme& theme, const DiffViewOptions& options) {
    const Palette& pal = theme.palette();
    if (ImGui::RadioButton("Side by side", m_sideBySide)) m_sideBySide = true;
    ImGui::SameLine();
    if (ImGui::RadioButton("Unified", !m_sideBySide)) m_sideBySide = false;
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    ImGui::Checkbox("Only changes", &m_onlyChanges);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Collapse unchanged runs, keeping lines of context around each change.");
    if (m_onlyChanges) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        ImGui::SliderInt("context", &m_context, 0, kMaxContext);
    }
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    if (m_diff.identical()) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "identical (%zu lines)", m_linesA.size());
    } else {
        ImGui::TextColored(Theme::toVec4(pal.ok), "+%d", m_diff.added);
        ImGui::SameLine(0, ImGui::GetFontSize() * 0.5f);
        ImGui::TextColored(Theme::toVec4(pal.error), "\u2212%d", m_diff.removed);
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%d lines only in B (%s)\n%d lines only in A (%s)\nA has %zu lines, B %zu", m_diff.added,
                              options.labelB.c_str(), m_diff.removed, options.labelA.c_str(), m_linesA.size(),
                              m_linesB.size());
        }
    }
}

void DiffView::drawCell(const Theme& theme, CodeLanguage language, const std::vector<std::string_view>& lines, int line,
                        diff::RowKind kind, bool leftSide, float x0, float x1, float y, float lineH) {
    const Palette& pal = theme.palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* font = ImGui::GetFont();
    const float fontSize = ImGui::GetFontSize();
    const float charW = ImGui::CalcTextSize("M").x;
    const int digits = static_cast<int>(std::to_string(std::max(lines.size(), std::size_t{100})).size());
    const float gutterW = charW * static_cast<float>(digits) + theme.sizes().gutterPadding;
    const float textY = y + (lineH - fontSize) * 0.5f;

    // Left side: only-in-A lines are "removed"; right side: only-in-B lines are "added".
    ImU32 bg = 0;
    if (kind == diff::RowKind::Removed || (kind == diff::RowKind::Changed && leftSide)) bg = pal.diffRemovedBg;
    if (kind == diff::RowKind::Added || (kind == diff::RowKind::Changed && !leftSide)) bg = pal.diffAddedBg;
    if (line == 0) {
        // The side has no line here: hatch-free blank, a shade darker so the gap reads as a gap.
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + lineH), pal.gutterBg);
        return;
    }
    if (bg != 0) dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + lineH), bg);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + gutterW, y + lineH), pal.gutterBg);
    if (bg != 0) dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + gutterW, y + lineH), bg);
    const std::string number = std::to_string(line);
    dl->AddText(font, fontSize, ImVec2(x0 + gutterW - theme.sizes().gutterPadding * 0.5f - charW * static_cast<float>(number.size()), textY),
                kind == diff::RowKind::Same ? pal.textFaint : pal.textDim, number.c_str());

    const std::string_view text = lines[static_cast<std::size_t>(line - 1)];
    const float textX = x0 + gutterW + charW;
    dl->PushClipRect(ImVec2(textX, y), ImVec2(x1 - 2, y + lineH), true);
    m_tokens.clear();
    bool inBlock = false;  // per line: a block comment spanning lines is rare in generated code
    tokenizeLine(text, language, inBlock, m_tokens);
    for (const SyntaxToken& t : m_tokens) {
        const float x = textX + charW * static_cast<float>(t.start);
        if (x > x1) break;
        dl->AddText(font, fontSize, ImVec2(x, textY), theme.syntax(t.cls), text.data() + t.start,
                    text.data() + t.start + t.length);
    }
    dl->PopClipRect();
}

// Where drawRows draws, worked out once per frame.
struct DiffView::Geometry {
    ImDrawList* dl = nullptr;
    float fontSize = 0, lineH = 0, charW = 0;
    float left = 0, width = 0, right = 0, mid = 0;
    float numW = 0;  // a line number's width in the unified gutter
};

// Sticky header naming the sides.
void DiffView::drawHeader(const Theme& theme, const DiffViewOptions& options, const Geometry& g) const {
    const Palette& pal = theme.palette();
    ImDrawList* dl = g.dl;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(ImVec2(g.left, p.y), ImVec2(g.right, p.y + g.lineH), pal.headerBg);
    const float ty = p.y + (g.lineH - g.fontSize) * 0.5f;
    if (m_sideBySide) {
        dl->PushClipRect(ImVec2(g.left, p.y), ImVec2(g.mid - 4, p.y + g.lineH), true);
        dl->AddText(ImVec2(g.left + g.charW, ty), pal.error, ("from  " + options.labelA).c_str());
        dl->PopClipRect();
        dl->AddText(ImVec2(g.mid + g.charW, ty), pal.ok, ("to  " + options.labelB).c_str());
    } else {
        dl->PushClipRect(ImVec2(g.left, p.y), ImVec2(g.right, p.y + g.lineH), true);
        dl->AddText(ImVec2(g.left + g.charW, ty), pal.text,
                    fmt::format("\u2212 from  {}     + to  {}", options.labelA, options.labelB).c_str());
        dl->PopClipRect();
    }
    ImGui::Dummy(ImVec2(g.width, g.lineH));
}

// A fold of unchanged lines as one clickable row; true when clicked.
bool DiffView::drawFoldRow(const Theme& theme, const diff::DisplayRow& d, const Geometry& g) const {
    const Palette& pal = theme.palette();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::PushID(d.first);
    const bool clicked = ImGui::InvisibleButton("##fold", ImVec2(g.width, g.lineH));
    const bool hovered = ImGui::IsItemHovered();
    ImGui::PopID();
    g.dl->AddRectFilled(ImVec2(g.left, p.y), ImVec2(g.right, p.y + g.lineH), hovered ? pal.headerBg : pal.diffFoldBg);
    const std::string text = fmt::format("\u2026 {} unchanged line{}", d.hidden, d.hidden == 1 ? "" : "s");
    g.dl->AddText(ImVec2(g.left + g.charW * 2, p.y + (g.lineH - g.fontSize) * 0.5f), pal.textDim, text.c_str());
    if (hovered) ImGui::SetTooltip("Click to show them");
    return clicked;
}

// Unified: both numbers in the gutter, a +/− marker, the line from whichever side has it.
void DiffView::drawUnifiedRow(const Theme& theme, CodeLanguage language, const diff::Row& r, const Geometry& g, float y) {
    const Palette& pal = theme.palette();
    ImDrawList* dl = g.dl;
    const float left = g.left, right = g.right, lineH = g.lineH, charW = g.charW, numW = g.numW;
    const bool fromA = r.kind == diff::RowKind::Removed;
    const ImU32 bg = r.kind == diff::RowKind::Removed ? pal.diffRemovedBg
                     : r.kind == diff::RowKind::Added ? pal.diffAddedBg
                                                      : 0;
    if (bg != 0) dl->AddRectFilled(ImVec2(left, y), ImVec2(right, y + lineH), bg);
    const float ty = y + (lineH - g.fontSize) * 0.5f;
    const float gutterW = numW * 2 + charW * 4;
    dl->AddRectFilled(ImVec2(left, y), ImVec2(left + gutterW, y + lineH), pal.gutterBg);
    if (bg != 0) dl->AddRectFilled(ImVec2(left, y), ImVec2(left + gutterW, y + lineH), bg);
    if (r.lineA > 0) {
        const std::string n = std::to_string(r.lineA);
        dl->AddText(ImVec2(left + charW + numW - charW * static_cast<float>(n.size()), ty), pal.textFaint, n.c_str());
    }
    if (r.lineB > 0) {
        const std::string n = std::to_string(r.lineB);
        dl->AddText(ImVec2(left + charW * 2 + numW * 2 - charW * static_cast<float>(n.size()), ty), pal.textFaint, n.c_str());
    }
    const char* marker = r.kind == diff::RowKind::Removed ? "\u2212" : r.kind == diff::RowKind::Added ? "+" : " ";
    dl->AddText(ImVec2(left + gutterW - charW * 1.2f, ty), fromA ? pal.error : pal.ok, marker);
    const int line = fromA ? r.lineA : r.lineB;
    const std::vector<std::string_view>& lines = fromA ? m_linesA : m_linesB;
    // Reuse the cell painter without its gutter: numbers are already drawn.
    const std::string_view text = lines[static_cast<std::size_t>(line - 1)];
    m_tokens.clear();
    bool inBlock = false;
    tokenizeLine(text, language, inBlock, m_tokens);
    const float textX = left + gutterW + charW;
    dl->PushClipRect(ImVec2(textX, y), ImVec2(right - 2, y + lineH), true);
    for (const SyntaxToken& t : m_tokens) {
        const float x = textX + charW * static_cast<float>(t.start);
        if (x > right) break;
        dl->AddText(ImGui::GetFont(), g.fontSize, ImVec2(x, ty), theme.syntax(t.cls), text.data() + t.start, text.data() + t.start + t.length);
    }
    dl->PopClipRect();
}

void DiffView::drawRows(const Theme& theme, const DiffViewOptions& options) {
    const Palette& pal = theme.palette();
    Geometry g;
    g.dl = ImGui::GetWindowDrawList();
    g.fontSize = ImGui::GetFontSize();
    g.lineH = std::floor(g.fontSize * 1.35f);
    g.charW = ImGui::CalcTextSize("M").x;
    g.left = ImGui::GetWindowPos().x;
    g.width = ImGui::GetWindowContentRegionMax().x;
    g.right = g.left + g.width;
    g.mid = std::floor(g.left + g.width * 0.5f);

    drawHeader(theme, options, g);
    if (m_linesA.empty() && m_linesB.empty()) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "  Both texts are empty.");
        return;
    }

    const std::vector<diff::Row>& rows = m_sideBySide ? m_sideRows : m_diff.unified;
    g.numW = g.charW * static_cast<float>(std::to_string(std::max({m_linesA.size(), m_linesB.size(), std::size_t{100}})).size());
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(m_display.size()), g.lineH);
    int clickedFold = -1;
    while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const diff::DisplayRow& d = m_display[static_cast<std::size_t>(i)];
            const ImVec2 p = ImGui::GetCursorScreenPos();
            if (d.row < 0) {
                if (drawFoldRow(theme, d, g)) clickedFold = d.first;
                continue;
            }
            const diff::Row& r = rows[static_cast<std::size_t>(d.row)];
            if (m_sideBySide) {
                drawCell(theme, options.language, m_linesA, r.lineA, r.kind, true, g.left, g.mid, p.y, g.lineH);
                drawCell(theme, options.language, m_linesB, r.lineB, r.kind, false, g.mid, g.right, p.y, g.lineH);
                g.dl->AddLine(ImVec2(g.mid, p.y), ImVec2(g.mid, p.y + g.lineH), pal.border);
            } else {
                drawUnifiedRow(theme, options.language, r, g, p.y);
            }
            ImGui::Dummy(ImVec2(g.width, g.lineH));
        }
    }
    clipper.End();
    ImGui::PopStyleVar();
    if (clickedFold >= 0) m_unfolded.insert(clickedFold);
}

}  // namespace kx::app
