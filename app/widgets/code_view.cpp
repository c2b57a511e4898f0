#include "widgets/code_view.hpp"

#include "util/text.hpp"
#include "widgets/opaque_fill.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

namespace kx::app {

namespace {

constexpr int kTabWidth = 4;

std::string lower(std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

ImU32 fade(ImU32 c, bool dimmed) {
    if (!dimmed) return c;
    const ImU32 a = (c >> IM_COL32_A_SHIFT) & 0xFF;
    return (c & ~IM_COL32_A_MASK) | ((a / 2) << IM_COL32_A_SHIFT);
}

}  // namespace

void CodeView::layout(const std::string& text, CodeLanguage language) {
    m_source = text;
    m_language = language;
    m_text = engine::expandTabs(text, kTabWidth);
    m_lineStarts.assign(1, 0);
    m_maxColumns = 0;
    int column = 0;
    for (std::size_t i = 0; i < m_text.size(); ++i) {
        if (m_text[i] != '\n') {
            ++column;
            continue;
        }
        m_maxColumns = std::max(m_maxColumns, column);
        column = 0;
        m_lineStarts.push_back(static_cast<int>(i + 1));
    }
    m_maxColumns = std::max(m_maxColumns, column);
    // A trailing newline does not start a line worth numbering.
    if (m_lineStarts.size() > 1 && m_lineStarts.back() == static_cast<int>(m_text.size())) m_lineStarts.pop_back();
    if (text.empty()) m_lineStarts.clear();

    // Block comments are the one piece of state that crosses lines: record it per line so any
    // visible line can be tokenized on its own.
    m_blockCommentAtStart.assign(m_lineStarts.size(), 0);
    bool inBlock = false;
    for (std::size_t i = 0; i < m_lineStarts.size(); ++i) {
        m_blockCommentAtStart[i] = inBlock ? 1 : 0;
        if (language == CodeLanguage::Plain) continue;
        const int begin = m_lineStarts[i];
        const int end = (i + 1 < m_lineStarts.size()) ? m_lineStarts[i + 1] - 1 : static_cast<int>(m_text.size());
        const std::string_view line(m_text.data() + begin, static_cast<std::size_t>(end - begin));
        if (line.find("/*") == std::string_view::npos && !inBlock) continue;
        m_tokens.clear();
        tokenizeLine(line, language, inBlock, m_tokens);
    }
    m_findLower.clear();  // force matches to be recomputed against the new text
    m_matchLines.clear();
}

void CodeView::updateMatches() {
    const std::string needle = lower(m_find);
    if (needle == m_findLower) return;
    m_findLower = needle;
    m_matchLines.clear();
    m_matchIndex = -1;
    if (needle.empty()) return;
    for (std::size_t i = 0; i < m_lineStarts.size(); ++i) {
        const int begin = m_lineStarts[i];
        const int end = (i + 1 < m_lineStarts.size()) ? m_lineStarts[i + 1] - 1 : static_cast<int>(m_text.size());
        if (lower(std::string_view(m_text.data() + begin, static_cast<std::size_t>(end - begin))).find(needle) !=
            std::string::npos)
            m_matchLines.push_back(static_cast<int>(i));
    }
}

void CodeView::drawToolbar(const char* id, const Theme& theme) {
    ImGui::PushID(id);
    const bool windowFocused = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
    const ImGuiIO& io = ImGui::GetIO();
    // 1.86's key map has no ImGuiKey_F; the GLFW backend indexes KeysDown by GLFW key code ('F').
    if (windowFocused && io.KeyCtrl && ImGui::IsKeyPressed('F')) m_focusFind = true;

    ImGui::TextColored(Theme::toVec4(theme.palette().textDim), "%d lines", static_cast<int>(m_lineStarts.size()));
    ImGui::SameLine();

    const float copyWidth = ImGui::CalcTextSize("Copy").x + ImGui::GetStyle().FramePadding.x * 2;
    const float countWidth = ImGui::CalcTextSize("000/000").x;
    const float findWidth = std::min(280.0f, ImGui::GetContentRegionAvail().x - copyWidth - countWidth - 24);
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - findWidth - copyWidth -
                         countWidth - ImGui::GetStyle().ItemSpacing.x * 2);
    if (m_focusFind) {
        ImGui::SetKeyboardFocusHere();
        m_focusFind = false;
    }
    ImGui::SetNextItemWidth(findWidth);
    const bool enter = ImGui::InputTextWithHint("##find", "Find (Ctrl+F)", &m_find, ImGuiInputTextFlags_EnterReturnsTrue);
    updateMatches();
    if (enter && !m_matchLines.empty()) {
        m_matchIndex = (m_matchIndex + (io.KeyShift ? -1 : 1) + static_cast<int>(m_matchLines.size())) %
                       static_cast<int>(m_matchLines.size());
        m_scrollToLine = m_matchLines[static_cast<std::size_t>(m_matchIndex)] + 1;
        ImGui::SetKeyboardFocusHere(-1);  // keep typing / pressing Enter in the box
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Enter: next match, Shift+Enter: previous");
    ImGui::SameLine();
    std::string count;
    if (!m_find.empty()) {
        count = m_matchLines.empty() ? "none"
                                     : fmt::format("{}/{}", m_matchIndex + 1, m_matchLines.size());
    }
    ImGui::PushStyleColor(ImGuiCol_Text, m_find.empty() || !m_matchLines.empty() ? theme.palette().textDim
                                                                                 : theme.palette().error);
    ImGui::TextUnformatted(count.c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - copyWidth);
    if (ImGui::Button("Copy")) ImGui::SetClipboardText(m_source.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy the whole text to the clipboard");
    ImGui::PopID();
}

void CodeView::draw(const char* id, const std::string& text, const Theme& theme, const CodeViewOptions& options) {
    if (text != m_source || options.language != m_language || (text.empty() && !m_lineStarts.empty()))
        layout(text, options.language);

    drawToolbar(id, theme);

    const Palette& pal = theme.palette();
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 4));
    beginOpaqueChild(id, ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar, pal.codeBg);
    if (m_lineStarts.empty()) {
        const char* msg = options.emptyMessage;
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float wrap = std::min(avail.x - 40, 520.0f);
        const ImVec2 size = ImGui::CalcTextSize(msg, nullptr, false, wrap);
        ImGui::SetCursorPos(ImVec2((avail.x - size.x) * 0.5f, std::max(20.0f, avail.y * 0.4f - size.y * 0.5f)));
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", msg);
        ImGui::PopTextWrapPos();
    } else {
        drawLines(theme, options);
    }
    ImGui::EndChild();
    ImGui::PopStyleVar();
}

// What drawLines works out once per frame and each visible line uses.
struct CodeView::Frame {
    const Theme& theme;
    const CodeViewOptions& options;
    const CodeDecorator* deco;
    ImDrawList* dl;
    ImFont* font;
    float fontSize = 0, charW = 0, lineH = 0;
    float numberW = 0, gutterW = 0, textPad = 0, contentW = 0;
    int columns = 0;
    float windowX = 0, clipRight = 0;
    ImVec2 mouse{};
    bool hovered = false;
};

// One visible line: where it is drawn and how it is marked.
struct CodeView::VisibleLine {
    int number = 0;  // 1-based
    std::string_view text;
    ImVec2 pos{};
    bool forced = false, hovered = false;
    const LineMark* mark = nullptr;
    float textX = 0, textY = 0;
};

namespace {

// The line's mark; an error wins over a warning.
const LineMark* markFor(const std::vector<LineMark>* marks, int line1) {
    if (marks == nullptr) return nullptr;
    const LineMark* found = nullptr;
    for (const LineMark& m : *marks) {
        if (m.line == line1 && (found == nullptr || m.error)) found = &m;
    }
    return found;
}

}  // namespace

void CodeView::drawLines(const Theme& theme, const CodeViewOptions& options) {
    const CodeDecorator* deco = options.decorator;
    const int lineCount = static_cast<int>(m_lineStarts.size());
    const int digits = static_cast<int>(std::to_string(lineCount).size());
    Frame f{.theme = theme, .options = options, .deco = deco, .dl = ImGui::GetWindowDrawList(), .font = ImGui::GetFont()};
    f.fontSize = ImGui::GetFontSize();
    f.charW = ImGui::CalcTextSize("M").x;
    f.lineH = std::floor(f.fontSize * 1.35f);
    f.numberW = f.charW * static_cast<float>(std::max(digits, 3)) + theme.sizes().gutterPadding * 2;
    f.columns = deco ? deco->columnCount() : 0;
    float columnsW = 0;
    for (int c = 0; c < f.columns; ++c) columnsW += deco->columnWidth(c);
    f.gutterW = f.numberW + columnsW;
    f.textPad = 8.0f;
    f.contentW = f.gutterW + f.textPad + f.charW * static_cast<float>(m_maxColumns) + 40.0f;

    if (m_scrollToLine > 0) {
        const float y = (static_cast<float>(m_scrollToLine) - 1) * f.lineH;
        ImGui::SetScrollY(std::max(0.0f, y - ImGui::GetWindowHeight() * 0.35f));
        m_scrollToLine = -1;
    }

    f.windowX = ImGui::GetWindowPos().x;
    f.clipRight = f.windowX + ImGui::GetWindowWidth();
    f.mouse = ImGui::GetIO().MousePos;
    f.hovered = ImGui::IsWindowHovered();
    m_hoveredLine = 0;
    m_firstVisible = 0;
    m_lastVisible = -1;

    // Gutter background for the whole height, so it continues below the last line.
    const float windowY = ImGui::GetWindowPos().y;
    fillOpaqueRect(f.dl, ImVec2(f.windowX, windowY), ImVec2(f.windowX + f.gutterW, windowY + ImGui::GetWindowHeight()),
                   theme.palette().gutterBg);

    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
    ImGuiListClipper clipper;
    clipper.Begin(lineCount, f.lineH);
    while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) drawLine(f, i);
    }
    clipper.End();
    ImGui::PopStyleVar();
    // Separator between gutter and text.
    f.dl->AddLine(ImVec2(f.windowX + f.gutterW, windowY), ImVec2(f.windowX + f.gutterW, windowY + ImGui::GetWindowHeight()),
                  theme.palette().border);
}

void CodeView::drawLine(const Frame& f, int i) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const int lineCount = static_cast<int>(m_lineStarts.size());
    const int begin = m_lineStarts[static_cast<std::size_t>(i)];
    const int end = (i + 1 < lineCount) ? m_lineStarts[static_cast<std::size_t>(i) + 1] - 1 : static_cast<int>(m_text.size());
    VisibleLine l{.number = i + 1, .text = std::string_view(m_text.data() + begin, static_cast<std::size_t>(end - begin)), .pos = p};
    l.forced = m_forcedHover == i + 1;
    l.hovered = l.forced || (f.hovered && f.mouse.y >= p.y && f.mouse.y < p.y + f.lineH);
    l.mark = markFor(f.options.marks, i + 1);
    l.textX = p.x + f.gutterW + f.textPad;
    l.textY = p.y + (f.lineH - f.fontSize) * 0.5f;
    if (m_firstVisible == 0) m_firstVisible = i + 1;
    m_lastVisible = i + 1;
    if (l.hovered) m_hoveredLine = i + 1;
    if (l.hovered && !l.forced && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) m_clickedLine = i + 1;

    drawLineBackground(f, l);
    // Text, token by token; whitespace between tokens is implied by their columns.
    m_tokens.clear();
    bool inBlock = m_blockCommentAtStart[static_cast<std::size_t>(i)] != 0;
    tokenizeLine(l.text, f.options.language, inBlock, m_tokens);
    for (const SyntaxToken& t : m_tokens) {
        const float x = l.textX + f.charW * static_cast<float>(t.start);
        if (x > f.clipRight) break;
        f.dl->AddText(f.font, f.fontSize, ImVec2(x, l.textY), fade(f.theme.syntax(t.cls), f.options.dimmed), l.text.data() + t.start,
                      l.text.data() + t.start + t.length);
    }
    const int hoveredCell = drawLineGutter(f, l);
    ImGui::Dummy(ImVec2(f.contentW, f.lineH));
    drawLineTooltips(f, l, hoveredCell);
}

// Backgrounds: mark, linked lines, hovered line, find hits.
void CodeView::drawLineBackground(const Frame& f, const VisibleLine& l) const {
    const Palette& pal = f.theme.palette();
    const ImVec2 p = l.pos;
    const ImU32 linked = f.deco ? f.deco->highlight(l.number) : 0;
    if (l.mark != nullptr) {
        f.dl->AddRectFilled(ImVec2(f.windowX, p.y), ImVec2(f.clipRight, p.y + f.lineH), l.mark->error ? pal.errorLineBg : pal.warnLineBg);
    } else if (linked != 0) {
        f.dl->AddRectFilled(ImVec2(f.windowX, p.y), ImVec2(f.clipRight, p.y + f.lineH), linked);
    } else if (l.hovered) {
        f.dl->AddRectFilled(ImVec2(f.windowX, p.y), ImVec2(f.clipRight, p.y + f.lineH), pal.currentLineBg);
    }
    if (m_findLower.empty()) return;
    const std::string low = lower(l.text);
    for (std::size_t at = low.find(m_findLower); at != std::string::npos; at = low.find(m_findLower, at + 1)) {
        const float x0 = l.textX + f.charW * static_cast<float>(at);
        f.dl->AddRectFilled(ImVec2(x0, p.y + 1), ImVec2(x0 + f.charW * static_cast<float>(m_findLower.size()), p.y + f.lineH - 1),
                            pal.searchHitBg, 2.0f);
    }
}

// The sticky gutter, drawn after the text so scrolled text slides under it: the number, the
// mark, the decorator's columns and the colour band at the text's start. Returns the decorator
// column under the mouse (-1: none).
int CodeView::drawLineGutter(const Frame& f, const VisibleLine& l) const {
    const Palette& pal = f.theme.palette();
    const ImVec2 p = l.pos;
    const float gx = f.windowX;
    f.dl->AddRectFilled(ImVec2(gx, p.y), ImVec2(gx + f.gutterW, p.y + f.lineH), pal.gutterBg);
    if (l.mark != nullptr) {
        f.dl->AddRectFilled(ImVec2(gx, p.y), ImVec2(gx + f.gutterW, p.y + f.lineH), l.mark->error ? pal.errorLineBg : pal.warnLineBg);
    }
    const std::string number = std::to_string(l.number);
    const float nx = gx + f.numberW - f.theme.sizes().gutterPadding - f.charW * static_cast<float>(number.size());
    f.dl->AddText(f.font, f.fontSize, ImVec2(nx, l.textY),
                  l.mark != nullptr ? (l.mark->error ? pal.error : pal.warn) : (l.hovered ? pal.textDim : pal.textFaint), number.c_str());
    if (l.mark != nullptr) {
        f.dl->AddRectFilled(ImVec2(gx, p.y), ImVec2(gx + 3, p.y + f.lineH), l.mark->error ? pal.error : pal.warn);
    }
    int hoveredCell = -1;
    float cx = gx + f.numberW;
    for (int c = 0; c < f.columns; ++c) {
        const float w = f.deco->columnWidth(c);
        f.deco->drawCell(c, l.number, f.dl, ImVec2(cx, p.y), ImVec2(cx + w, p.y + f.lineH));
        if (l.hovered && !l.forced && f.mouse.x >= cx && f.mouse.x < cx + w) hoveredCell = c;
        cx += w;
    }
    if (const ImU32 band = f.deco ? f.deco->band(l.number) : 0; band != 0)
        f.dl->AddRectFilled(ImVec2(gx + f.gutterW + 1, p.y), ImVec2(gx + f.gutterW + 5, p.y + f.lineH), band);
    return hoveredCell;
}

// The hovered line's tooltip: its mark's message, else the decorator's for the cell or the text.
void CodeView::drawLineTooltips(const Frame& f, const VisibleLine& l, int hoveredCell) const {
    const Palette& pal = f.theme.palette();
    if (f.deco != nullptr && l.hovered && l.mark == nullptr) {
        if (hoveredCell >= 0) {
            f.deco->cellTooltip(hoveredCell, l.number);
        } else if (l.forced || f.mouse.x >= f.windowX + f.gutterW) {
            // A scripted hover has no mouse: put the tooltip under the line's text.
            if (l.forced) ImGui::SetNextWindowPos(ImVec2(l.textX + f.charW * 12, l.pos.y + f.lineH + 2));
            const int column = l.forced ? -1 : static_cast<int>(std::floor((f.mouse.x - l.textX) / f.charW));
            f.deco->textTooltip(l.number, l.text, column);
        }
    }
    if (l.mark != nullptr && l.hovered) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
        ImGui::TextColored(Theme::toVec4(l.mark->error ? pal.error : pal.warn), "%s (line %d)", l.mark->error ? "error" : "warning",
                           l.mark->line);
        ImGui::TextUnformatted(l.mark->message.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

}  // namespace kx::app
