#include "code_links.hpp"

#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::app {

namespace {

// Band colours: one hue per source line, spread by the golden ratio so neighbours differ, at this
// saturation, value and opacity; linked lines' highlight at kLinkedAlpha.
constexpr float kBandSaturation = 0.55f, kBandValue = 0.90f, kBandAlpha = 0.85f;
constexpr float kLinkedAlpha = 0.22f;

// Gutter column widths, in characters of the code font.
constexpr float kClassColumnChars = 14.0f, kLiveColumnChars = 8.0f, kControlColumnChars = 20.0f, kSpillColumnChars = 11.0f;

float charWidth() { return ImGui::CalcTextSize("M").x; }

void cellText(ImDrawList* dl, ImVec2 min, ImVec2 max, ImU32 colour, const std::string& text) {
    const float y = min.y + (max.y - min.y - ImGui::GetFontSize()) * 0.5f;
    dl->PushClipRect(min, max, true);
    dl->AddText(ImVec2(min.x + 4, y), colour, text.c_str());
    dl->PopClipRect();
}

std::string sourceText(const std::string& source, int line1) {
    std::size_t start = 0;
    for (int i = 1; i < line1 && start != std::string::npos; ++i) {
        start = source.find('\n', start);
        if (start != std::string::npos) ++start;
    }
    if (start == std::string::npos || start >= source.size()) return {};
    std::string text = source.substr(start, source.find('\n', start) - start);
    const std::size_t first = text.find_first_not_of(" \t");
    return first == std::string::npos ? std::string() : text.substr(first);
}

}  // namespace

// [SECTION] Decorators

class CodeLinks::SourceDecorator final : public CodeDecorator {
public:
    explicit SourceDecorator(const CodeLinks& links) : m_links(links) {}
    ImU32 band(int line) const override { return m_links.m_map.info(line) ? m_links.bandColour(line) : 0; }
    ImU32 highlight(int line) const override { return line == m_links.active() ? m_links.highlightColour(line) : 0; }
    int columnCount() const override { return m_links.m_map.bySource.empty() ? 0 : 1; }
    float columnWidth(int) const override { return charWidth() * kClassColumnChars; }
    void drawCell(int, int line, ImDrawList* dl, ImVec2 min, ImVec2 max) const override {
        const engine::SourceLineInfo* info = m_links.m_map.info(line);
        if (info == nullptr) return;
        const Palette& pal = m_links.m_theme.palette();
        const std::string text = engine::lineCountsSummary(info->counts, 2);
        cellText(dl, min, max, info->spills > 0 ? pal.error : pal.textDim, info->spills > 0 ? fmt::format("{} spill", info->spills) : text);
    }
    bool cellTooltip(int, int line) const override {
        const engine::SourceLineInfo* info = m_links.m_map.info(line);
        if (info == nullptr) return false;
        const Palette& pal = m_links.m_theme.palette();
        ImGui::BeginTooltip();
        ImGui::Text("Line %d became %d PTX and %d SASS instruction lines", line, static_cast<int>(info->ptxLines.size()),
                    static_cast<int>(info->sassLines.size()));
        ImGui::TextColored(Theme::toVec4(pal.textDim), "Static counts from %s: each instruction once, however often it runs",
                           info->countsFromSass ? "SASS" : "PTX");
        for (int c = 0; c < engine::kInstrCategoryCount; ++c) {
            const auto category = static_cast<engine::InstrCategory>(c);
            if (info->counts[category] > 0) ImGui::BulletText("%s: %d", engine::categoryLabel(category), info->counts[category]);
        }
        if (info->spills > 0)
            ImGui::TextColored(Theme::toVec4(pal.error), "%d spill instruction%s (STL/LDL): registers ran out here", info->spills,
                               info->spills == 1 ? "" : "s");
        ImGui::EndTooltip();
        return true;
    }

private:
    const CodeLinks& m_links;
};

// A PTX or SASS pane: each line takes the band and highlight of the source line it came from,
// and its opcode's tooltip. SassDecorator adds its columns on top.
class CodeLinks::ListingDecorator : public CodeDecorator {
public:
    ListingDecorator(const CodeLinks& links, CodePane pane) : m_links(links), m_pane(pane) {}
    ImU32 band(int line) const override {
        const int s = m_links.sourceOf(m_pane, line);
        return s > 0 ? m_links.bandColour(s) : 0;
    }
    ImU32 highlight(int line) const override {
        const int s = m_links.sourceOf(m_pane, line);
        return s > 0 && s == m_links.active() ? m_links.highlightColour(s) : 0;
    }
    bool textTooltip(int line, std::string_view text, int column) const override {
        return m_links.opcodeTooltip(m_pane, line, text, column);
    }

protected:
    const CodeLinks& m_links;
    const CodePane m_pane;
};

class CodeLinks::SassDecorator final : public ListingDecorator {
public:
    explicit SassDecorator(const CodeLinks& links) : ListingDecorator(links, CodePane::Sass) {}
    // Columns: live registers (when known), control codes (when decoded), spills (when any);
    // decided once per listing (update()), not per cell.
    void update() {
        m_columns.clear();
        const engine::SassListing* sass = m_links.sass();
        if (sass == nullptr) return;
        if (sass->hasLiveRanges) m_columns.push_back(Column::Live);
        if (sass->hasControlCodes) m_columns.push_back(Column::Control);
        if (std::any_of(sass->instructions.begin(), sass->instructions.end(), [](const auto& i) { return i.isSpill(); }))
            m_columns.push_back(Column::Spill);
    }
    int columnCount() const override { return static_cast<int>(m_columns.size()); }
    float columnWidth(int column) const override {
        switch (columns()[static_cast<std::size_t>(column)]) {
        case Column::Live: return charWidth() * kLiveColumnChars;
        case Column::Control: return charWidth() * kControlColumnChars;
        case Column::Spill: return charWidth() * kSpillColumnChars;
        }
        return 0;
    }
    void drawCell(int column, int line, ImDrawList* dl, ImVec2 min, ImVec2 max) const override {
        const engine::SassListing* sass = m_links.sass();
        const engine::SassInstruction* ins = sass ? sass->atLine(line) : nullptr;
        if (ins == nullptr) return;
        const Palette& pal = m_links.m_theme.palette();
        switch (columns()[static_cast<std::size_t>(column)]) {
        case Column::Live: {
            if (ins->liveRegisters < 0 || sass->peakLiveRegisters <= 0) return;
            // A bar as long as the live count's share of the peak, the peak itself in the warning colour.
            const bool peak = ins->liveRegisters == sass->peakLiveRegisters;
            const float w = (max.x - min.x - 6) * static_cast<float>(ins->liveRegisters) / static_cast<float>(sass->peakLiveRegisters);
            ImU32 bar = peak ? pal.warn : pal.accent;
            bar = (bar & ~IM_COL32_A_MASK) | ((peak ? 200u : 90u) << IM_COL32_A_SHIFT);
            dl->AddRectFilled(ImVec2(min.x + 3, min.y + 2), ImVec2(min.x + 3 + w, max.y - 2), bar, 2.0f);
            cellText(dl, min, max, peak ? pal.text : pal.textDim, fmt::format("{:>3}{}", ins->liveRegisters, peak ? " max" : ""));
            return;
        }
        case Column::Control:
            if (ins->control) cellText(dl, min, max, pal.textDim, ins->control->compact());
            return;
        case Column::Spill:
            if (ins->isSpill())
                cellText(dl, min, max, pal.error,
                         m_links.sourceOf(CodePane::Sass, line) > 0 ? fmt::format("spill L{}", m_links.sourceOf(CodePane::Sass, line)) : "spill");
            return;
        }
    }
    bool cellTooltip(int column, int line) const override {
        const engine::SassListing* sass = m_links.sass();
        const engine::SassInstruction* ins = sass ? sass->atLine(line) : nullptr;
        if (ins == nullptr) return false;
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34);
        switch (columns()[static_cast<std::size_t>(column)]) {
        case Column::Live:
            ImGui::Text("%d registers live here (peak %d)", ins->liveRegisters, sass->peakLiveRegisters);
            ImGui::TextUnformatted("Registers holding a value that is still to be read, after this instruction (nvdisasm's life "
                                   "ranges). The peak sets how many registers ptxas must allocate per thread, which limits occupancy.");
            if (ins->livePredicates >= 0) ImGui::Text("Predicates live: %d; uniform registers live: %d", ins->livePredicates, std::max(0, ins->liveUniform));
            break;
        case Column::Control:
            if (ins->control) describeControl(*ins->control);
            break;
        case Column::Spill:
            ImGui::TextUnformatted("Local-memory access: ptxas ran out of registers and spilled a value to memory (or an array is "
                                   "indexed at run time). Click the line to see the source line it belongs to.");
            break;
        }
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
        return true;
    }
    static void describeControl(const engine::ControlCode& c) {
        ImGui::Text("Control bits %s", c.text().c_str());
        ImGui::BulletText("stall %d cycle%s before the next instruction issues%s", c.stall, c.stall == 1 ? "" : "s",
                          c.yield ? "; may yield to another warp" : "");
        if (c.writeBarrier >= 0) ImGui::BulletText("sets scoreboard SB%d until its result is written", c.writeBarrier);
        if (c.readBarrier >= 0) ImGui::BulletText("sets scoreboard SB%d until its sources are read", c.readBarrier);
        std::string waits;
        for (int i = 0; i < 6; ++i)
            if ((c.waitMask >> i) & 1) waits += fmt::format("{}SB{}", waits.empty() ? "" : ", ", i);
        if (!waits.empty()) ImGui::BulletText("waits for %s before issuing", waits.c_str());
        std::string reuse;
        for (int i = 0; i < 4; ++i)
            if ((c.reuse >> i) & 1) reuse += fmt::format("{}{}", reuse.empty() ? "" : ", ", static_cast<char>('a' + i));
        if (!reuse.empty()) ImGui::BulletText("keeps operand%s %s in the reuse cache", reuse.size() > 1 ? "s" : "", reuse.c_str());
    }

private:
    enum class Column { Live, Control, Spill };
    const std::vector<Column>& columns() const { return m_columns; }
    std::vector<Column> m_columns;
};

// [SECTION] CodeLinks

CodeLinks::CodeLinks(const std::filesystem::path& dataRoot, const Theme& theme) : m_theme(theme) {
    try {
        m_docs = engine::OpcodeDocs::load(dataRoot);
    } catch (const std::exception& e) {
        m_docsError = e.what();
    }
    m_sourceDecorator = std::make_unique<SourceDecorator>(*this);
    m_ptxDecorator = std::make_unique<ListingDecorator>(*this, CodePane::Ptx);
    m_sassDecorator = std::make_unique<SassDecorator>(*this);
}

CodeLinks::~CodeLinks() {
    if (m_job) m_job->cancel();
}

const CodeDecorator& CodeLinks::decorator(CodePane pane) const {
    switch (pane) {
    case CodePane::Source: return *m_sourceDecorator;
    case CodePane::Ptx: return *m_ptxDecorator;
    case CodePane::Sass: return *m_sassDecorator;
    }
    return *m_sourceDecorator;
}

int CodeLinks::sourceOf(CodePane pane, int line) const {
    switch (pane) {
    case CodePane::Source: return line;
    case CodePane::Ptx: return m_map.sourceOfPtxLine(line);
    case CodePane::Sass: return m_map.sourceOfSassLine(line);
    }
    return 0;
}

const std::vector<int>* CodeLinks::linesOf(CodePane pane, int sourceLine) const {
    const engine::SourceLineInfo* info = m_map.info(sourceLine);
    if (info == nullptr || pane == CodePane::Source) return nullptr;
    return pane == CodePane::Ptx ? &info->ptxLines : &info->sassLines;
}

ImU32 CodeLinks::bandColour(int sourceLine) const {
    const float hue = std::fmod(static_cast<float>(sourceLine) * 0.618034f, 1.0f);
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(hue, kBandSaturation, kBandValue, r, g, b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, kBandAlpha));
}

ImU32 CodeLinks::highlightColour(int sourceLine) const {
    const ImU32 c = bandColour(sourceLine);
    const float alpha = sourceLine == m_selectedSource ? kLinkedAlpha * 1.5f : kLinkedAlpha;
    return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha * 255.0f) << IM_COL32_A_SHIFT);
}

void CodeLinks::refresh(const engine::CompileResult* result, const std::string& sourceFile, const std::string& source) {
    m_mailbox.drain();
    const bool usable = result != nullptr && result->ok;
    const std::string key = keyOf(result);
    if (key == m_key && source == m_source) return;
    const bool sameCompile = key == m_key;
    m_key = key;
    m_source = source;
    m_sourceFile = sourceFile;
    if (sameCompile) return;
    m_ptx = usable ? result->ptx : std::string();
    m_sass.reset();
    m_peakLine = 0;
    m_sassError.clear();
    if (m_job) m_job->cancel();
    m_job.reset();
    m_sassState = SassState::None;
    rebuildMap();
    if (!usable || result->cubin.empty()) {
        m_sassState = SassState::Unavailable;
        m_sassError = usable ? "the full compile has not finished yet" : "no compiled code";
        return;
    }
    m_sassState = SassState::Running;
    const std::string cubin = result->cubin;
    engine::Mailbox* mailbox = &m_mailbox;
    m_job = m_jobs.submit("disassemble", [this, cubin, key, sourceFile, mailbox](engine::Job& job) {
        std::string error;
        auto listing = std::make_shared<std::optional<engine::SassListing>>(engine::disassembleListing(cubin, sourceFile, &error));
        if (job.cancelled()) return;
        // Runs on the UI thread in refresh(); `this` outlives the mailbox it drains.
        mailbox->post([this, key, listing, error] {
            if (key != m_key) return;  // a newer compile replaced this one
            m_sass = std::move(*listing);
            m_sassState = m_sass ? SassState::Ready : SassState::Unavailable;
            m_sassError = m_sass ? std::string() : error;
            m_job.reset();
            rebuildMap();
        });
    });
}

std::string CodeLinks::keyOf(const engine::CompileResult* result) {
    if (result == nullptr || !result->ok) return {};
    return result->cacheKey + "|" + result->arch + (result->assembled ? "|full" : "|ptx");
}

void CodeLinks::rebuildMap() {
    m_map = engine::buildLineMap(m_ptx, m_sass ? &*m_sass : nullptr, m_sourceFile);
    m_sassDecorator->update();
    m_peakLine = 0;
    if (m_sass && m_sass->peakLiveRegisters >= 0)
        for (const engine::SassInstruction& ins : m_sass->instructions)
            if (ins.liveRegisters == m_sass->peakLiveRegisters) {
                m_peakLine = ins.listingLine;
                break;
            }
}

bool CodeLinks::opcodeTooltip(CodePane pane, int line, std::string_view text, int column) const {
    const std::string_view opcode = engine::instructionOpcode(text);
    if (opcode.empty()) return false;
    const std::size_t at = static_cast<std::size_t>(opcode.data() - text.data());
    if (column >= 0 && (static_cast<std::size_t>(column) < at || static_cast<std::size_t>(column) >= at + opcode.size())) return false;
    const Palette& pal = m_theme.palette();
    const engine::OpcodeDoc* doc = m_docs ? (pane == CodePane::Ptx ? m_docs->ptx(opcode) : m_docs->sass(opcode)) : nullptr;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34);
    ImGui::TextColored(Theme::toVec4(pal.accent), "%.*s", static_cast<int>(opcode.size()), opcode.data());
    if (doc != nullptr) {
        if (!doc->unit.empty()) {
            ImGui::SameLine();
            ImGui::TextColored(Theme::toVec4(pal.textDim), "  runs on: %s", doc->unit.c_str());
        }
        ImGui::TextUnformatted(doc->summary.c_str());
        ImGui::TextColored(Theme::toVec4(pal.textDim), "Operands: %s", doc->operands.c_str());
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s: %s", pane == CodePane::Ptx ? "PTX ISA" : "Reference", doc->section.c_str());
    } else {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", m_docs ? "No description of this opcode yet." : m_docsError.c_str());
    }
    if (pane == CodePane::Sass && m_sass) {
        if (const engine::SassInstruction* ins = m_sass->atLine(line)) {
            if (ins->control) {
                ImGui::Separator();
                SassDecorator::describeControl(*ins->control);
            }
            if (ins->liveRegisters >= 0) ImGui::Text("%d registers live (peak %d)", ins->liveRegisters, m_sass->peakLiveRegisters);
        }
    }
    if (const int s = sourceOf(pane, line); s > 0) {
        ImGui::Separator();
        ImGui::TextColored(Theme::toVec4(pal.textDim), "from source line %d: %s", s, sourceText(m_source, s).c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
    return true;
}

}  // namespace kx::app
