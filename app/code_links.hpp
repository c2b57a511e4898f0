// What links the Source, PTX and SASS panes of the Code view: the line map of the current compile
// (engine/analysis/line_map.hpp), its annotated SASS listing (disassembled on a worker thread, as
// nvdisasm takes a moment), the opcode docs, and the active source line (hovered, else selected).
// It hands each pane a CodeDecorator: colour bands by source line, the active line's code
// highlighted in every pane, gutter columns (instruction classes per source line; live registers
// with the peak marked, control codes and spill links per SASS instruction) and opcode docs on
// hover. Measured per-line data (PC samples, stall reasons) would be one more column here.
#pragma once

#include "analysis/line_map.hpp"
#include "analysis/opcode_docs.hpp"
#include "compile/compiler.hpp"
#include "jobs/job_queue.hpp"
#include "theme.hpp"
#include "widgets/code_view.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace kx::app {

enum class CodePane { Source, Ptx, Sass };

class CodeLinks {
public:
    CodeLinks(const std::filesystem::path& dataRoot, const Theme& theme);
    ~CodeLinks();
    CodeLinks(const CodeLinks&) = delete;
    CodeLinks& operator=(const CodeLinks&) = delete;

    // Once per frame: takes a finished disassembly, and starts over when the result changed.
    // result may be null; sourceFile is the compile's file name, source the rendered text.
    void refresh(const engine::CompileResult* result, const std::string& sourceFile, const std::string& source);

    const CodeDecorator& decorator(CodePane pane) const;

    // The source line a pane's line came from (0: none); the pane lines a source line became.
    int sourceOf(CodePane pane, int line) const;
    const std::vector<int>* linesOf(CodePane pane, int sourceLine) const;

    // Hover is reset every frame by the panes that report it; the selection stays.
    void setHovered(CodePane pane, int line) { if (line > 0) m_hoveredSource = sourceOf(pane, line); }
    void clearHovered() { m_hoveredSource = 0; }
    void select(int sourceLine) { m_selectedSource = sourceLine; }
    int selected() const { return m_selectedSource; }
    int active() const { return m_hoveredSource > 0 ? m_hoveredSource : m_selectedSource; }

    const engine::LineMap& map() const { return m_map; }
    const engine::SassListing* sass() const { return m_sass ? &*m_sass : nullptr; }
    bool disassembling() const { return m_job != nullptr && m_sassState == SassState::Running; }
    // Whether the data above belongs to result (refresh() saw it) and its disassembly ended.
    bool settledFor(const engine::CompileResult* result) const { return keyOf(result) == m_key && !disassembling(); }
    const std::string& sassError() const { return m_sassError; }  // why there is no listing
    const std::string& docsError() const { return m_docsError; }  // why opcode docs are missing
    const engine::OpcodeDocs* docs() const { return m_docs ? &*m_docs : nullptr; }
    // The listing line of the peak of live registers (0: unknown).
    int peakLine() const { return m_peakLine; }

    // The colour of a source line's band, and its highlight (stronger when selected).
    ImU32 bandColour(int sourceLine) const;
    ImU32 highlightColour(int sourceLine) const;

private:
    enum class SassState { None, Running, Ready, Unavailable };
    class SourceDecorator;
    class ListingDecorator;
    class SassDecorator;

    void rebuildMap();
    static std::string keyOf(const engine::CompileResult* result);
    // The opcode tooltip of a PTX or SASS line; column -1: always, else only over the opcode.
    bool opcodeTooltip(CodePane pane, int line, std::string_view text, int column) const;

    const Theme& m_theme;
    std::optional<engine::OpcodeDocs> m_docs;
    std::string m_docsError;

    std::string m_key;           // the compile result the data below belongs to
    std::string m_ptx, m_source, m_sourceFile;
    engine::LineMap m_map;
    std::optional<engine::SassListing> m_sass;
    SassState m_sassState = SassState::None;
    std::string m_sassError;
    int m_peakLine = 0;
    int m_hoveredSource = 0, m_selectedSource = 0;

    std::unique_ptr<SourceDecorator> m_sourceDecorator;
    std::unique_ptr<ListingDecorator> m_ptxDecorator;
    std::unique_ptr<SassDecorator> m_sassDecorator;

    std::shared_ptr<engine::Job> m_job;
    // Declared last: the queue joins its worker before the mailbox it posts to goes away.
    engine::Mailbox m_mailbox;
    engine::JobQueue m_jobs{1, engine::WorkerPriority::Background};  // nvdisasm: the frames go first
};

}  // namespace kx::app
