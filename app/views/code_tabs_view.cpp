#include "views/code_tabs_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kx::app {

namespace {
constexpr float kSourceShare = 0.42f;  // of the Source tab's width, when the assembly sits beside it
// Narrower than this (in font heights), the source alone is more readable than two cramped panes.
constexpr float kMinSplitWidth = 70.0f;

constexpr const char* kCompileFailed = "Compilation failed: see the Log tab and the marked source lines.";

// What a pane of compiler output (PTX, ISA) says instead of text, or "" when it has text to show:
// the compile was skipped, has no result yet, or its current result failed.
std::string paneMessage(const ExplorerModel& model, const char* output, bool haveResult, bool currentFailed, const char* compiling) {
    if (model.phase() == CompilePhase::Skipped) return fmt::format("No {}: {}.", output, model.skipReason());
    if (!haveResult) return compiling;
    return currentFailed ? kCompileFailed : "";
}

}  // namespace

CodeTabsView::CodeTabsView(ViewContext context)
    : View("Code", Slot::Centre, context), m_links(context.model.dataRoot(), context.theme) {}

void CodeTabsView::drawContent() {
    refreshMarks();
    const engine::PreparedVariant* v = model().variant();
    m_links.refresh(model().compileResult(), v ? v->request.fileName : std::string(), v ? v->source : m_noText);
    // The template or arch changed: open every pane at the kernel's entry again.
    const std::string entryKey = (model().currentTemplate() ? model().currentTemplate()->id() : std::string()) + "|" +
                                 (model().currentArch() ? model().currentArch()->name : std::string());
    if (entryKey != m_entryKey) {
        m_entryKey = entryKey;
        m_entrySource = m_entryPtx = m_entrySass = m_entrySplit = true;
        m_links.select(0);
    }
    m_links.clearHovered();
    m_links.setHovered(CodePane::Source, m_hoverSource);
    m_hoverSourceNext = 0;

    if (!ImGui::BeginTabBar("##codetabs")) return;
    const struct {
        CodeTab tab;
        const char* label;
    } tabs[] = {{CodeTab::Source, "Source"}, {CodeTab::Ptx, "PTX"}, {CodeTab::Sass, "SASS"}, {CodeTab::Log, "Log"}};
    for (const auto& t : tabs) {
        ImGuiTabItemFlags flags = 0;
        if (m_requestedTab == static_cast<int>(t.tab)) flags |= ImGuiTabItemFlags_SetSelected;
        // Tab labels carry a count when there is something to look at (errors in the log).
        std::string label = t.label;
        // AMD arches: the PTX tab shows clang's AMD ISA, and there is no SASS.
        if (t.tab == CodeTab::Sass && model().compilesHip()) continue;
        if (t.tab == CodeTab::Ptx && model().compilesHip()) label = "AMD ISA";
        const engine::CompileResult* r = model().compileResult();
        if (t.tab == CodeTab::Log && r != nullptr && model().resultIsCurrent() && !r->diagnostics.empty() && !model().compilesHip()) {
            std::size_t errors = 0;
            for (const auto& d : r->diagnostics) errors += d.severity != "warning" ? 1 : 0;
            label = errors > 0 ? fmt::format("Log ({} error{})", errors, errors == 1 ? "" : "s")
                               : fmt::format("Log ({} warning{})", r->diagnostics.size(),
                                             r->diagnostics.size() == 1 ? "" : "s");
        }
        label += std::string("###") + t.label;
        if (ImGui::BeginTabItem(label.c_str(), nullptr, flags)) {
            switch (t.tab) {
            case CodeTab::Source: drawSource(); break;
            case CodeTab::Ptx: drawPtx(m_ptx, "ptx"); break;
            case CodeTab::Sass: drawSass(m_sass, "sass", true); break;
            case CodeTab::Log: drawLog(); break;
            }
            ImGui::EndTabItem();
        }
    }
    m_requestedTab = -1;
    ImGui::EndTabBar();
    m_hoverSource = m_hoverSourceNext;
}

void CodeTabsView::refreshMarks() {
    if (model().compilesHip()) {  // clang's diagnostics on the HIP source
        const engine::HipCompileResult* h = model().hipResultIsCurrent() ? model().hipResult() : nullptr;
        if (h == m_marksFor && model().generation() == m_marksGeneration) return;
        m_marksFor = h;
        m_marksGeneration = model().generation();
        m_marks.clear();
        if (h != nullptr)
            for (const auto& d : h->diagnostics)
                if (d.line > 0) m_marks.push_back({d.line, d.severity != "warning", d.message});
        return;
    }
    const engine::CompileResult* r = model().resultIsCurrent() ? model().compileResult() : nullptr;
    if (r == m_marksFor && model().generation() == m_marksGeneration) return;
    m_marksFor = r;
    m_marksGeneration = model().generation();
    m_marks.clear();
    if (r == nullptr) return;
    for (const auto& d : r->diagnostics) {
        if (d.line <= 0) continue;
        m_marks.push_back({d.line, d.severity != "warning", d.message});
    }
}

void CodeTabsView::openAtEntry(CodeView& view, bool& pending, const std::string& text) {
    if (!pending || text.empty()) return;
    pending = false;
    view.scrollToLine(engine::kernelEntryLine(text));
}

void CodeTabsView::drawAssemblyPane(CodeView& view, const char* id, CodePane pane, const std::string& text, const CodeViewOptions& o,
                                    bool& openAtEntryPending) {
    openAtEntry(view, openAtEntryPending, text);
    view.draw(id, text, theme(), o);
    afterPane(pane, view);
}

void CodeTabsView::afterPane(CodePane pane, CodeView& view) {
    if (const int hovered = view.hoveredLine(); hovered > 0) {
        const int s = m_links.sourceOf(pane, hovered);
        if (s > 0) m_hoverSourceNext = s;
    }
    const int clicked = view.takeClickedLine();
    if (clicked <= 0) return;
    const int s = m_links.sourceOf(pane, clicked);
    if (s <= 0) return;
    m_links.select(s == m_links.selected() && pane == CodePane::Source ? 0 : s);  // a second click clears
    if (m_syncScroll && m_links.selected() > 0) scrollPanesTo(s, &view);
}

void CodeTabsView::scrollPanesTo(int sourceLine, const CodeView* except) {
    auto scroll = [&](CodeView& view, CodePane pane) {
        if (&view == except) return;
        if (pane == CodePane::Source) {
            view.scrollToLine(sourceLine);
            return;
        }
        const std::vector<int>* lines = m_links.linesOf(pane, sourceLine);
        if (lines != nullptr && !lines->empty()) view.scrollToLine(lines->front());
    };
    scroll(m_source, CodePane::Source);
    scroll(m_ptx, CodePane::Ptx);
    scroll(m_sass, CodePane::Sass);
    if (m_split != CodeSplit::None) scroll(m_splitAsm, m_split == CodeSplit::Ptx ? CodePane::Ptx : CodePane::Sass);
}

void CodeTabsView::selectSourceLine(int line) {
    m_links.select(line);
    m_entrySource = m_entryPtx = m_entrySass = m_entrySplit = false;  // the selection decides where panes look
    if (line > 0) scrollPanesTo(line, nullptr);
}

void CodeTabsView::hover(CodePane pane, int line) {
    m_ptx.forceHover(pane == CodePane::Ptx ? line : 0);
    m_sass.forceHover(pane == CodePane::Sass ? line : 0);
    const bool splitShows = (pane == CodePane::Ptx && m_split == CodeSplit::Ptx) || (pane == CodePane::Sass && m_split == CodeSplit::Sass);
    m_splitAsm.forceHover(splitShows ? line : 0);
    m_source.forceHover(pane == CodePane::Source ? line : 0);
}

void CodeTabsView::showPeak() {
    const int peak = m_links.peakLine();
    if (peak <= 0) return;
    m_entrySass = m_entrySplit = false;
    m_sass.scrollToLine(peak);
    if (m_split == CodeSplit::Sass) m_splitAsm.scrollToLine(peak);
    hover(CodePane::Sass, peak);
}

int CodeTabsView::findSourceLine(const std::string& text) const {
    const engine::PreparedVariant* v = model().variant();
    if (v == nullptr || text.empty()) return 0;
    const std::size_t at = v->source.find(text);
    if (at == std::string::npos) return 0;
    return 1 + static_cast<int>(std::count(v->source.begin(), v->source.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

bool CodeTabsView::linksSettled() const {
    const engine::CompileResult* r = model().compileResult();
    return r != nullptr && model().resultIsCurrent() && (!r->ok || (r->assembled && m_links.settledFor(r)));
}

void CodeTabsView::drawSplitToolbar(bool roomy) {
    const Palette& pal = theme().palette();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Beside the source:");
    ImGui::SameLine();
    int split = static_cast<int>(m_split);
    ImGui::RadioButton("PTX", &split, static_cast<int>(CodeSplit::Ptx));
    ImGui::SameLine();
    ImGui::RadioButton("SASS", &split, static_cast<int>(CodeSplit::Sass));
    ImGui::SameLine();
    ImGui::RadioButton("nothing", &split, static_cast<int>(CodeSplit::None));
    m_split = static_cast<CodeSplit>(split);
    ImGui::SameLine(0, 24);
    ImGui::Checkbox("Scroll together", &m_syncScroll);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Clicking a line scrolls the other panes to the code of the same source line");
    ImGui::SameLine(0, 24);
    if (!roomy && m_split != CodeSplit::None) {
        // A hint, not a warning: the default window is narrower than the split wants, and the
        // source alone is what the panel should show then.
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s beside it needs a wider panel (Ctrl+M)",
                           m_split == CodeSplit::Ptx ? "PTX" : "SASS");
    } else if (m_links.selected() > 0) {
        const engine::SourceLineInfo* info = m_links.map().info(m_links.selected());
        ImGui::TextColored(Theme::toVec4(pal.text), "Line %d: %d PTX, %d SASS lines", m_links.selected(),
                           info ? static_cast<int>(info->ptxLines.size()) : 0, info ? static_cast<int>(info->sassLines.size()) : 0);
    } else if (!m_links.map().hasPtx && model().compileResult() != nullptr) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "(no line information in this compile)");
    } else {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "Click a line to link it; hover for the same in colour");
    }
}

void CodeTabsView::drawSource() {
    const engine::PreparedVariant* v = model().variant();
    CodeViewOptions o;
    o.language = CodeLanguage::Cuda;
    o.marks = &m_marks;
    o.decorator = &m_links.decorator(CodePane::Source);
    o.emptyMessage = v ? "The template rendered no source." : "No source: pick a template and an architecture.";
    if (v == nullptr && !model().prepareError().empty()) o.emptyMessage = model().prepareError().c_str();
    const std::string& text = v ? v->source : m_noText;
    const bool roomy = ImGui::GetContentRegionAvail().x >= kMinSplitWidth * ImGui::GetFontSize();
    drawSplitToolbar(roomy);
    openAtEntry(m_source, m_entrySource, text);
    if (m_split == CodeSplit::None || !roomy) {
        m_source.draw("source", text, theme(), o);
        afterPane(CodePane::Source, m_source);
        return;
    }
    const float width = ImGui::GetContentRegionAvail().x;
    // The assembly pane gets the larger share: its gutter columns take room of their own.
    ImGui::BeginChild("##sourcepane", ImVec2(width * kSourceShare - 4, 0), false);
    m_source.draw("source", text, theme(), o);
    ImGui::EndChild();
    afterPane(CodePane::Source, m_source);
    ImGui::SameLine();
    ImGui::BeginChild("##asmpane", ImVec2(0, 0), false);
    if (m_split == CodeSplit::Ptx) drawPtx(m_splitAsm, "splitptx");
    else drawSass(m_splitAsm, "splitsass", false);
    ImGui::EndChild();
}

void CodeTabsView::drawPtx(CodeView& view, const char* id) {
    if (model().compilesHip()) {
        drawAmdIsa(view, id);
        return;
    }
    const engine::CompileResult* r = model().compileResult();
    CodeViewOptions o;
    o.language = CodeLanguage::Ptx;
    o.decorator = &m_links.decorator(CodePane::Ptx);
    const std::string message = paneMessage(model(), "PTX", r != nullptr, model().resultIsCurrent() && r && !r->ok, "Compiling\u2026");
    if (!message.empty()) r = nullptr;
    // While a newer compile runs, keep the last PTX on screen, dimmed, instead of flashing empty.
    o.dimmed = r != nullptr && !model().resultIsCurrent();
    o.emptyMessage = message.c_str();
    drawAssemblyPane(view, id, CodePane::Ptx, r ? r->ptx : m_noText, o, &view == &m_ptx ? m_entryPtx : m_entrySplit);
}

void CodeTabsView::drawSass(CodeView& view, const char* id, bool legend) {
    const Palette& pal = theme().palette();
    const engine::CompileResult* r = model().compileResult();
    const engine::SassListing* sass = m_links.sass();
    CodeViewOptions o;
    o.language = CodeLanguage::Plain;
    o.decorator = &m_links.decorator(CodePane::Sass);
    std::string message;
    if (model().phase() == CompilePhase::Skipped) {
        message = "No SASS: " + model().skipReason() + ".";
        sass = nullptr;
    } else if (r != nullptr && model().resultIsCurrent() && !r->ok) {
        message = kCompileFailed;
        sass = nullptr;
    } else if (sass == nullptr) {
        message = m_links.disassembling() || r == nullptr || !r->assembled ? "Disassembling\u2026" : "No SASS: " + m_links.sassError() + ".";
    }
    if (legend && sass != nullptr) {
        // The legend of the gutter columns, always in view: they are new to most readers.
        ImGui::TextColored(Theme::toVec4(pal.textDim), "Gutter:");
        ImGui::SameLine();
        if (sass->hasLiveRanges) {
            ImGui::Text("live registers (peak %d)", sass->peakLiveRegisters);
            ImGui::SameLine();
            if (ImGui::SmallButton("Go to peak") && m_links.peakLine() > 0) view.scrollToLine(m_links.peakLine());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("The instruction where the most registers are live: what sets the register count");
            ImGui::SameLine(0, 16);
        }
        if (sass->hasControlCodes) {
            ImGui::TextColored(Theme::toVec4(pal.textDim), "control: S stall, Y yield, W/R scoreboard on write/read, B waits on (hover)");
            if (ImGui::IsItemHovered()) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
                ImGui::TextUnformatted(
                    "Each Volta-and-later instruction carries scheduling directions from the compiler, decoded from its encoding:\n"
                    "S  cycles the warp stalls before issuing its next instruction\n"
                    "Y  the scheduler may switch to another warp here\n"
                    "W  scoreboard (0-5) released when a variable-latency result (memory, MUFU, S2R) is written\n"
                    "R  scoreboard released when the sources have been read\n"
                    "B  scoreboards this instruction waits for: a dependency on a load shows here\n"
                    "A '.' is an unused field. Hover an instruction for its whole decoding and its opcode's docs.");
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
        }
    }
    o.dimmed = sass != nullptr && !model().resultIsCurrent();
    o.emptyMessage = message.c_str();
    drawAssemblyPane(view, id, CodePane::Sass, sass ? sass->text : m_noText, o, &view == &m_sass ? m_entrySass : m_entrySplit);
}

// AMD arches: clang's assembly of the HIP source, with its metadata and kernel-info remarks.
void CodeTabsView::drawAmdIsa(CodeView& view, const char* id) {
    const engine::HipCompileResult* r = model().hipResult();
    CodeViewOptions o;
    o.language = CodeLanguage::Plain;
    const std::string message =
        paneMessage(model(), "ISA", r != nullptr, model().hipResultIsCurrent() && r && !r->ok, "Compiling with clang\u2026");
    if (!message.empty()) r = nullptr;
    o.dimmed = r != nullptr && !model().hipResultIsCurrent();
    o.emptyMessage = message.c_str();
    view.draw(id, r ? r->isa : m_noText, theme(), o);
}

void CodeTabsView::drawLog() {
    if (const engine::HipCompileResult* h = model().hipResult(); h != nullptr && model().compilesHip()) {
        CodeViewOptions o;
        o.language = CodeLanguage::Plain;
        o.dimmed = !model().hipResultIsCurrent();
        const bool skipped = model().phase() == CompilePhase::Skipped;
        o.emptyMessage = skipped ? model().skipReason().c_str() : "clang printed nothing.";
        m_log.draw("log", skipped ? m_noText : h->log, theme(), o);
        return;
    }
    const engine::CompileResult* r = model().compileResult();
    CodeViewOptions o;
    o.language = CodeLanguage::Plain;
    o.dimmed = r != nullptr && !model().resultIsCurrent();
    std::string text;
    if (r != nullptr) {
        text = r->log.empty() ? std::string() : r->log;
    }
    o.emptyMessage = r == nullptr ? "No compile yet." : "The compiler printed nothing.";
    if (model().phase() == CompilePhase::Skipped) {
        text.clear();
        o.emptyMessage = model().skipReason().c_str();
    }
    m_log.draw("log", text, theme(), o);
}

}  // namespace kx::app
