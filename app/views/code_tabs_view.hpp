// The centre: Source | PTX | SASS | Log tabs over the model's rendered source and compile result.
// The Source tab shows the PTX or the SASS beside the source; the three are linked (CodeLinks):
// hovering or clicking a line lights up the lines made from the same source line in every pane,
// in that line's colour band, and a click scrolls the other panes there ("Scroll together").
// Each pane opens at the kernel's entry rather than at the file's header comment.
#pragma once

#include "code_links.hpp"
#include "views/view.hpp"
#include "widgets/code_view.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kx::app {

enum class CodeTab { Source, Ptx, Sass, Log };

// What the Source tab shows beside the source.
enum class CodeSplit { None, Ptx, Sass };

class CodeTabsView final : public View {
public:
    explicit CodeTabsView(ViewContext context);

    // Makes tab the selected one at the next draw (scripts, menu shortcuts).
    void selectTab(CodeTab tab) { m_requestedTab = static_cast<int>(tab); }

    // Scripts and screenshots. selectSourceLine selects a source line as a click on it does
    // (and scrolls the other panes to its code); hover shows a pane's tooltip for a line as if
    // the mouse were on its opcode (0 clears it).
    void selectSourceLine(int line);
    void hover(CodePane pane, int line);
    void setSplit(CodeSplit split) { m_split = split; }
    // Scrolls the SASS panes to the peak of live registers and shows its tooltip ("Go to peak").
    void showPeak();
    // The first source line containing text (0: none), for scripts that name a line by its code.
    int findSourceLine(const std::string& text) const;
    // True once the current compile's SASS listing is there, or known to be unavailable.
    bool linksSettled() const;
    const CodeLinks& links() const { return m_links; }
    // The first line the tab of that pane showed at its last draw (0: not drawn yet).
    int topLine(CodePane pane) const {
        return (pane == CodePane::Source ? m_source : pane == CodePane::Ptx ? m_ptx : m_sass).firstVisibleLine();
    }

protected:
    void drawContent() override;
    ImGuiWindowFlags windowFlags() const override { return ImGuiWindowFlags_NoTitleBar; }

private:
    void drawSource();
    void drawSplitToolbar(bool roomy);  // roomy: wide enough for two panes
    void drawPtx(CodeView& view, const char* id);
    void drawAmdIsa(CodeView& view, const char* id);  // drawPtx on AMD arches
    void drawSass(CodeView& view, const char* id, bool legend);
    void drawLog();
    void refreshMarks();
    // After a pane was drawn: its hover and click feed the links.
    void afterPane(CodePane pane, CodeView& view);
    // A PTX or SASS pane: text drawn with o (scrolled to the kernel's entry when that is pending),
    // then its links followed (afterPane).
    void drawAssemblyPane(CodeView& view, const char* id, CodePane pane, const std::string& text, const CodeViewOptions& o,
                          bool& openAtEntryPending);
    void scrollPanesTo(int sourceLine, const CodeView* except);
    void openAtEntry(CodeView& view, bool& pending, const std::string& text);

    CodeView m_source;
    CodeView m_ptx;
    CodeView m_sass;
    CodeView m_splitAsm;  // the PTX or SASS beside the source
    CodeView m_log;
    CodeLinks m_links;
    CodeSplit m_split = CodeSplit::Sass;
    bool m_syncScroll = true;
    int m_requestedTab = -1;
    const std::string m_noText;              // what an absent document shows (by reference)
    std::vector<LineMark> m_marks;           // compile diagnostics on the source
    const void* m_marksFor = nullptr;        // the result m_marks were built from
    std::uint64_t m_marksGeneration = 0;

    // Hover of the frame before (panes report it as they draw; the highlight needs it first).
    int m_hoverSource = 0, m_hoverSourceNext = 0;
    // Open each pane at the kernel's entry when the template or arch changes.
    std::string m_entryKey;  // template id and arch the panes were opened for
    bool m_entrySource = true, m_entryPtx = true, m_entrySass = true, m_entrySplit = true;
};

}  // namespace kx::app
