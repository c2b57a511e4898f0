#include "views/code_tabs_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>

namespace kx::app {

void CodeTabsView::drawContent() {
    refreshMarks();
    if (!ImGui::BeginTabBar("##codetabs")) return;
    const struct {
        CodeTab tab;
        const char* label;
    } tabs[] = {{CodeTab::Source, "Source"}, {CodeTab::Ptx, "PTX"}, {CodeTab::Log, "Log"}};
    for (const auto& t : tabs) {
        ImGuiTabItemFlags flags = 0;
        if (m_requestedTab == static_cast<int>(t.tab)) flags |= ImGuiTabItemFlags_SetSelected;
        // Tab labels carry a count when there is something to look at (errors in the log).
        std::string label = t.label;
        const engine::CompileResult* r = model().compileResult();
        if (t.tab == CodeTab::Log && r != nullptr && model().resultIsCurrent() && !r->diagnostics.empty()) {
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
            case CodeTab::Ptx: drawPtx(); break;
            case CodeTab::Log: drawLog(); break;
            }
            ImGui::EndTabItem();
        }
    }
    m_requestedTab = -1;
    ImGui::EndTabBar();
}

void CodeTabsView::refreshMarks() {
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

void CodeTabsView::drawSource() {
    const engine::PreparedVariant* v = model().variant();
    CodeViewOptions o;
    o.language = CodeLanguage::Cuda;
    o.marks = &m_marks;
    o.emptyMessage = v ? "The template rendered no source." : "No source: pick a template and an architecture.";
    if (v == nullptr && !model().prepareError().empty()) o.emptyMessage = model().prepareError().c_str();
    m_source.draw("source", v ? v->source : m_noText, theme(), o);
}

void CodeTabsView::drawPtx() {
    const engine::CompileResult* r = model().compileResult();
    CodeViewOptions o;
    o.language = CodeLanguage::Ptx;
    std::string message;
    const bool skipped = model().phase() == CompilePhase::Skipped;
    if (skipped) {
        message = "No PTX: " + model().skipReason() + ".";
        r = nullptr;
    } else if (r == nullptr) {
        message = "Compiling\u2026";
    } else if (model().resultIsCurrent() && !r->ok) {
        message = "Compilation failed: see the Log tab and the marked source lines.";
        r = nullptr;
    }
    // While a newer compile runs, keep the last PTX on screen, dimmed, instead of flashing empty.
    o.dimmed = r != nullptr && !model().resultIsCurrent();
    o.emptyMessage = message.c_str();
    m_ptx.draw("ptx", r ? r->ptx : m_noText, theme(), o);
}

void CodeTabsView::drawLog() {
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
