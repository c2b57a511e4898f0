// The centre: Source | PTX | Log tabs over the model's rendered source and compile result.
#pragma once

#include "views/view.hpp"
#include "widgets/code_view.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kx::app {

enum class CodeTab { Source, Ptx, Log };

class CodeTabsView final : public View {
public:
    explicit CodeTabsView(ViewContext context) : View("Code", Slot::Centre, context) {}

    // Makes tab the selected one at the next draw (scripts, menu shortcuts).
    void selectTab(CodeTab tab) { m_requestedTab = static_cast<int>(tab); }

protected:
    void drawContent() override;
    ImGuiWindowFlags windowFlags() const override { return ImGuiWindowFlags_NoTitleBar; }

private:
    void drawSource();
    void drawPtx();
    void drawLog();
    void refreshMarks();

    CodeView m_source;
    CodeView m_ptx;
    CodeView m_log;
    int m_requestedTab = -1;
    const std::string m_noText;              // what an absent document shows (by reference)
    std::vector<LineMark> m_marks;           // compile diagnostics on the source
    const void* m_marksFor = nullptr;        // the result m_marks were built from
    std::uint64_t m_marksGeneration = 0;
};

}  // namespace kx::app
