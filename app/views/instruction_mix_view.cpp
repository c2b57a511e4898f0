#include "views/instruction_mix_view.hpp"

#include "compile/compiler.hpp"
#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kx::app {

using engine::InstrCategory;

namespace {

// Categories share a colour by family so the bars read as groups: math, integer, global memory,
// shared memory, local memory (error: it is the thing to fix), synchronisation, the rest.
ImU32 categoryColour(const Theme& theme, InstrCategory c) {
    const Palette& p = theme.palette();
    switch (c) {
    case InstrCategory::Fp32:
    case InstrCategory::Fp16:
    case InstrCategory::Fp64:
    case InstrCategory::SpecialFunction: return theme.syntax(SyntaxClass::Type);
    case InstrCategory::TensorCore: return p.ok;
    case InstrCategory::Integer:
    case InstrCategory::Conversion: return theme.syntax(SyntaxClass::Keyword);
    case InstrCategory::GlobalLoad:
    case InstrCategory::GlobalStore:
    case InstrCategory::AsyncCopy: return theme.syntax(SyntaxClass::Builtin);
    case InstrCategory::SharedLoad:
    case InstrCategory::SharedStore: return theme.syntax(SyntaxClass::Qualifier);
    case InstrCategory::LocalLoad:
    case InstrCategory::LocalStore: return p.error;
    case InstrCategory::Barrier:
    case InstrCategory::Shuffle:
    case InstrCategory::Atomic: return theme.syntax(SyntaxClass::Preprocessor);
    default: return theme.syntax(SyntaxClass::Comment);
    }
}

// Wider is better: 128-bit in the theme's "good" colour down to byte access in its warning colour.
ImU32 widthColour(const Theme& theme, int bits) {
    const Palette& p = theme.palette();
    if (bits >= 128) return p.ok;
    if (bits >= 64) return theme.syntax(SyntaxClass::Number);
    if (bits >= 32) return theme.syntax(SyntaxClass::Keyword);
    if (bits > 0) return p.warn;
    return p.textFaint;
}

std::string widthTeach(int bits) {
    if (bits >= 128)
        return "128-bit accesses move 16 bytes per thread per instruction (512 per warp): the fewest instructions per "
               "byte. float4 / uint4 / int4 with 16-byte alignment.";
    if (bits == 64)
        return "64-bit accesses move 8 bytes per thread: half the instructions of 32-bit for the same bytes (float2, "
               "half4).";
    if (bits == 32)
        return "32-bit accesses move one float per thread per instruction: four times the instructions of 128-bit "
               "for the same bytes, and as many address calculations.";
    if (bits > 0)
        return fmt::format("{}-bit accesses move {} byte{} per thread: many instructions per byte. Pack values (half2, "
                           "char4) or load wider and unpack in registers where alignment allows.",
                           bits, bits / 8, bits == 8 ? "" : "s");
    return "The listing does not give a per-thread size: TMA and bulk copies (one instruction moves a whole tile) or "
           "wmma fragment loads.";
}

ImVec4 dim(ImU32 colour, bool dimmed) {
    ImVec4 c = Theme::toVec4(colour);
    if (dimmed) c.w *= 0.5f;
    return c;
}

ImU32 dimU32(ImU32 colour, bool dimmed) { return ImGui::ColorConvertFloat4ToU32(dim(colour, dimmed)); }

}  // namespace

InstructionMixView::InstructionMixView(ViewContext context) : View("Instruction Mix", Slot::Centre, context) {
    // Closed until asked for (View menu, or "show instruction mix" in a script): the centre's
    // lower row already holds Occupancy and Roofline.
    setOpen(false);
}

InstructionMixView::~InstructionMixView() {
    if (m_sassJob) m_sassJob->cancel();
}

void InstructionMixView::refresh() {
    m_mailbox.drain();  // a SASS result, applied only if it is for m_key (see startSass)
    const engine::CompileResult* r = model().compileResult();
    const std::string key = r == nullptr || !r->ok ? std::string() : r->cacheKey + "|" + r->arch;
    if (key == m_key && (m_ptx.has_value() || key.empty())) return;
    m_key = key;
    m_ptx.reset();
    m_sass.reset();
    m_sassError.clear();
    m_sassState = SassState::None;
    m_kernel = -1;
    if (m_sassJob) m_sassJob->cancel();
    m_sassJob.reset();
    if (key.empty()) return;
    m_ptx = engine::analyzePtx(r->ptx);
    startSass(r->cubin);
}

void InstructionMixView::startSass(const std::string& cubin) {
    if (cubin.empty()) {
        m_sassState = SassState::Unavailable;
        m_sassError = "this compile made no CUBIN to disassemble";
        return;
    }
    m_sassState = SassState::Running;
    const std::string key = m_key;
    engine::Mailbox* mailbox = &m_mailbox;
    m_sassJob = m_jobs.submit("disassemble", [this, cubin, key, mailbox](engine::Job& job) {
        std::string error;
        std::optional<std::string> listing = engine::disassembleCubin(cubin, &error);
        if (job.cancelled()) return;
        auto mix = std::make_shared<std::optional<engine::InstructionMix>>();
        if (listing) *mix = engine::analyzeSass(*listing);
        // Runs on the UI thread in refresh(); `this` outlives the mailbox it drains.
        mailbox->post([this, key, mix, error] {
            if (key != m_key) return;  // a newer compile replaced this one
            m_sass = std::move(*mix);
            m_sassState = m_sass ? SassState::Ready : SassState::Unavailable;
            m_sassError = m_sass ? std::string() : error;
        });
    });
}

void InstructionMixView::drawContent() {
    refresh();
    const Palette& pal = theme().palette();
    const engine::CompileResult* r = model().compileResult();
    ImGui::PushTextWrapPos(0.0f);
    if (model().phase() == CompilePhase::Skipped) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "No instruction mix: %s.", model().skipReason().c_str());
    } else if (r == nullptr) {
        ImGui::TextColored(Theme::toVec4(pal.textDim), "Waiting for the first compile\u2026");
    } else if (!r->ok) {
        ImGui::TextColored(Theme::toVec4(pal.error), "Compilation failed: no PTX to count. See the Log tab.");
    }
    ImGui::PopTextWrapPos();
    if (!m_ptx || model().phase() == CompilePhase::Skipped) return;

    const bool sass = m_showSass && m_sass.has_value();
    const engine::InstructionMix& shown = sass ? *m_sass : *m_ptx;
    if (m_kernel >= static_cast<int>(shown.kernels.size())) m_kernel = -1;
    const engine::MixCounts& counts = m_kernel < 0 ? shown.counts : shown.kernels[static_cast<std::size_t>(m_kernel)].counts;
    // While a newer compile runs, keep the last mix on screen, dimmed, like the other panels.
    const bool dimmed = !model().resultIsCurrent();

    drawToolbar(shown);
    drawWarnings(shown);
    drawCategories(counts, dimmed);
    drawWidths(counts, dimmed);
}

void InstructionMixView::drawToolbar(const engine::InstructionMix& shown) {
    const Palette& pal = theme().palette();
    // PTX | SASS as two toggles; SASS explains itself when it cannot be chosen.
    if (ImGui::RadioButton("PTX", !m_showSass || !m_sass)) m_showSass = false;
    helpTooltip("The virtual ISA NVRTC emitted. ptxas still rewrites it: register allocation, spills and scheduling "
                "happen after, so local-memory spills show only in SASS.");
    ImGui::SameLine();
    const bool canSass = m_sass.has_value();
    if (!canSass) ImGui::BeginDisabled();
    const char* sassLabel = m_sassState == SassState::Running ? "SASS\u2026" : "SASS";
    if (ImGui::RadioButton(sassLabel, m_showSass && canSass)) m_showSass = true;
    if (!canSass) ImGui::EndDisabled();
    helpTooltip(m_sassState == SassState::Running       ? "Disassembling the CUBIN\u2026"
                : m_sassState == SassState::Unavailable ? "No SASS: " + m_sassError + "."
                                                        : "The machine code the GPU runs (nvdisasm / cuobjdump).");
    ImGui::SameLine();
    ImGui::Checkbox("empty", &m_showEmpty);
    helpTooltip("Also list the categories with no instruction.");
    if (shown.kernels.size() > 1) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x));
        const std::string current = m_kernel < 0 ? fmt::format("all {} kernels", shown.kernels.size())
                                                 : shown.kernels[static_cast<std::size_t>(m_kernel)].name;
        if (ImGui::BeginCombo("##mixkernel", current.c_str())) {
            if (ImGui::Selectable("all kernels", m_kernel < 0)) m_kernel = -1;
            for (std::size_t i = 0; i < shown.kernels.size(); ++i) {
                const auto& k = shown.kernels[i];
                const std::string label = fmt::format("{}{}##k{}", k.name.empty() ? "(unnamed)" : k.name, k.entry ? "" : " (.func)", i);
                if (ImGui::Selectable(label.c_str(), m_kernel == static_cast<int>(i))) m_kernel = static_cast<int>(i);
            }
            ImGui::EndCombo();
        }
    }
    const int total = m_kernel < 0 ? shown.total() : shown.kernels[static_cast<std::size_t>(m_kernel)].counts.total;
    ImGui::TextColored(Theme::toVec4(pal.textDim), "%d %s instructions, static", total,
                       shown.source == engine::MixSource::Sass ? "SASS" : "PTX");
    helpTooltip("Static counts: each instruction in the listing counts once, however often it runs. A loop body counts "
                "once, an unrolled loop once per copy. They show what the compiler generated, not what executed "
                "(Nsight Compute's Instruction Statistics gives executed counts).");
}

void InstructionMixView::drawWarnings(const engine::InstructionMix& shown) {
    const Palette& pal = theme().palette();
    std::vector<std::string> warnings = shown.warnings;
    // PTX cannot show spills: say so, pointing at the ptxas report that can.
    if (shown.source == engine::MixSource::Ptx && !m_sass) {
        const engine::CompileResult* r = model().compileResult();
        if (r != nullptr)
            for (const auto& k : r->kernels)
                if (k.spills())
                    warnings.push_back(fmt::format("ptxas reports {} bytes of spill stores and {} bytes of spill loads in {}: "
                                                   "local memory the PTX does not show",
                                                   k.spillStoreBytes, k.spillLoadBytes, k.function));
    }
    if (warnings.empty()) return;
    ImGui::PushTextWrapPos(0.0f);
    for (const std::string& w : warnings) {
        const bool local = w.find("local") != std::string::npos || w.find("spill") != std::string::npos;
        ImGui::TextColored(Theme::toVec4(local ? pal.error : pal.warn), "! %s", w.c_str());
        helpTooltip(local ? "Local memory is per-thread memory in DRAM (cached in L1/L2). The compiler uses it when a "
                            "kernel needs more registers than it may have (spills: raise the register limit, shrink "
                            "the per-thread tile) or when a per-thread array is indexed with a value known only at run "
                            "time (unroll the loop so every index is a constant)."
                          : widthTeach(128));
    }
    ImGui::PopTextWrapPos();
}

void InstructionMixView::drawCategories(const engine::MixCounts& counts, bool dimmed) {
    const Palette& pal = theme().palette();
    sectionHeader("By category");

    int maxCount = 1;
    for (int c : counts.byCategory) maxCount = std::max(maxCount, c);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float width = ImGui::GetContentRegionAvail().x;
    const float rowH = ImGui::GetTextLineHeight() + 4.0f;
    float labelW = 0;
    for (int i = 0; i < engine::kInstrCategoryCount; ++i) {
        const auto c = static_cast<InstrCategory>(i);
        if (counts[c] > 0 || m_showEmpty) labelW = std::max(labelW, ImGui::CalcTextSize(engine::categoryLabel(c)).x);
    }
    labelW = std::min(labelW + ImGui::GetStyle().ItemSpacing.x, width * 0.5f);
    const std::string widest = std::to_string(maxCount);
    const float countW = ImGui::CalcTextSize(widest.c_str()).x + ImGui::GetStyle().ItemSpacing.x;
    const float barX0 = labelW + 4.0f;
    const float barW = std::max(10.0f, width - barX0 - countW);

    for (int i = 0; i < engine::kInstrCategoryCount; ++i) {
        const auto c = static_cast<InstrCategory>(i);
        const int n = counts[c];
        if (n == 0 && !m_showEmpty) continue;
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::PushID(i);
        ImGui::InvisibleButton("row", ImVec2(width, rowH));
        ImGui::PopID();
        const bool hovered = ImGui::IsItemHovered();
        if (hovered) dl->AddRectFilled(p, ImVec2(p.x + width, p.y + rowH), pal.currentLineBg);
        const float textY = p.y + (rowH - ImGui::GetTextLineHeight()) * 0.5f;
        // Label, clipped to its column so a narrow panel never overlaps the bar.
        dl->PushClipRect(p, ImVec2(p.x + labelW, p.y + rowH), true);
        dl->AddText(ImVec2(p.x, textY), dimU32(n == 0 ? pal.textFaint : pal.textDim, dimmed), engine::categoryLabel(c));
        dl->PopClipRect();
        const float f = static_cast<float>(n) / static_cast<float>(maxCount);
        const ImVec2 b0(p.x + barX0, p.y + 3.0f);
        dl->AddRectFilled(b0, ImVec2(b0.x + barW, p.y + rowH - 3.0f), pal.headerBg, 2.0f);
        if (n > 0)
            dl->AddRectFilled(b0, ImVec2(b0.x + std::max(2.0f, barW * f), p.y + rowH - 3.0f), dimU32(categoryColour(theme(), c), dimmed),
                              2.0f);
        const std::string num = std::to_string(n);
        const float numW = ImGui::CalcTextSize(num.c_str()).x;
        const bool severe = n > 0 && (c == InstrCategory::LocalLoad || c == InstrCategory::LocalStore);
        dl->AddText(ImVec2(p.x + width - numW, textY), dimU32(severe ? pal.error : pal.text, dimmed), num.c_str());
        if (hovered) {
            const double share = counts.total > 0 ? 100.0 * n / counts.total : 0.0;
            helpTooltip(fmt::format("{}: {} instruction{} ({:.1f}% of {})\n\n{}", engine::categoryLabel(c), n, n == 1 ? "" : "s",
                                    share, counts.total, engine::categoryHelp(c)));
        }
    }
}

void InstructionMixView::drawWidths(const engine::MixCounts& counts, bool dimmed) {
    const bool any = !counts.globalLoads.empty() || !counts.globalStores.empty() || !counts.asyncCopies.empty() ||
                     !counts.sharedLoads.empty() || !counts.sharedStores.empty();
    if (!any) return;
    ImGui::Spacing();
    sectionHeader("Access widths (bits per thread)");
    drawWidthRow("Global loads", counts.globalLoads,
                 "Global loads by width. " + widthTeach(128) + " Scalar loads are normal in tails and bounds-checked "
                 "edges; in the main loop they cost instructions.",
                 dimmed);
    drawWidthRow("Global stores", counts.globalStores, "Global stores by width. Wider stores, like wider loads, need fewer instructions per byte.",
                 dimmed);
    drawWidthRow("Global->shared", counts.asyncCopies,
                 "Asynchronous copies (cp.async / LDGSTS: 4, 8 or 16 bytes per thread; TMA: whole tiles) by width. 16-byte "
                 "copies with .cg bypass L1 and are the fast path on sm_80+.",
                 dimmed);
    drawWidthRow("Shared loads", counts.sharedLoads,
                 "Shared-memory loads by width. ldmatrix (LDSM) .x4 loads four 8x8 matrices: 128 bits per thread in one "
                 "instruction, straight into tensor-core fragment layout.",
                 dimmed);
    drawWidthRow("Shared stores", counts.sharedStores, "Shared-memory stores by width.", dimmed);
}

void InstructionMixView::drawWidthRow(const char* label, const engine::WidthCounts& widths, const std::string& teach, bool dimmed) {
    if (widths.empty()) return;
    const Palette& pal = theme().palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float width = ImGui::GetContentRegionAvail().x;
    const float rowH = ImGui::GetTextLineHeight() + 4.0f;
    const float labelW = std::min(ImGui::CalcTextSize("Global->shared ").x + ImGui::GetStyle().ItemSpacing.x, width * 0.5f);
    const float barX0 = labelW + 4.0f;
    const float barW = std::max(10.0f, width - barX0);
    int total = 0;
    for (const auto& [bits, n] : widths) total += n;

    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::PushID(label);
    ImGui::InvisibleButton("widths", ImVec2(width, rowH));
    ImGui::PopID();
    const bool hovered = ImGui::IsItemHovered();
    const float textY = p.y + (rowH - ImGui::GetTextLineHeight()) * 0.5f;
    dl->PushClipRect(p, ImVec2(p.x + labelW, p.y + rowH), true);
    dl->AddText(ImVec2(p.x, textY), dimU32(pal.textDim, dimmed), label);
    dl->PopClipRect();

    // One segment per width, widest first, each as long as its share of the instructions.
    std::string hoveredText;
    float x = p.x + barX0;
    const float mouseX = ImGui::GetIO().MousePos.x;
    for (auto it = widths.rbegin(); it != widths.rend(); ++it) {
        const auto [bits, n] = *it;
        const float w = barW * static_cast<float>(n) / static_cast<float>(total);
        dl->AddRectFilled(ImVec2(x, p.y + 3.0f), ImVec2(x + w, p.y + rowH - 3.0f), dimU32(widthColour(theme(), bits), dimmed));
        if (w > 1.0f) dl->AddLine(ImVec2(x + w, p.y + 3.0f), ImVec2(x + w, p.y + rowH - 3.0f), pal.panelBg);
        if (hovered && mouseX >= x && mouseX < x + w)
            hoveredText = fmt::format("{}: {} of {} instruction{}\n\n{}", engine::widthLabel(bits), n, total, total == 1 ? "" : "s",
                                      widthTeach(bits));
        x += w;
    }
    // The legend under the bar: a colour chip and "128-bit x4" per width, wrapped as whole items
    // so a narrow panel never splits one.
    const float lineH = ImGui::GetTextLineHeight();
    const float chip = lineH * 0.55f;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float left = p.x + barX0;
    float lx = left;
    float ly = p.y + rowH;
    for (auto it = widths.rbegin(); it != widths.rend(); ++it) {
        const std::string item = fmt::format("{} \u00d7{}", engine::widthLabel(it->first), it->second);
        const float itemW = chip + 4.0f + ImGui::CalcTextSize(item.c_str()).x;
        if (lx > left && lx + itemW > p.x + width) {
            lx = left;
            ly += lineH;
        }
        const float cy = ly + (lineH - chip) * 0.5f;
        dl->AddRectFilled(ImVec2(lx, cy), ImVec2(lx + chip, cy + chip), dimU32(widthColour(theme(), it->first), dimmed), 1.0f);
        dl->AddText(ImVec2(lx + chip + 4.0f, ly), dimU32(pal.textDim, dimmed), item.c_str());
        lx += itemW + gap;
    }
    ImGui::Dummy(ImVec2(width, ly + lineH - (p.y + rowH)));
    if (hovered) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
        ImGui::TextUnformatted((hoveredText.empty() ? teach : hoveredText + "\n\n" + teach).c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

}  // namespace kx::app
