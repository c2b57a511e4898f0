#include "views/tutorials_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>

namespace kx::app {

using namespace kx::engine;

namespace {
// The window's share of the screen, first placed over the right part of the centre.
constexpr float kWidthFraction = 0.34f;
constexpr float kHeightFraction = 0.86f;
}  // namespace

TutorialsView::TutorialsView(ViewContext context, TutorialModel& tutorials)
    : View("Tutorials", Slot::Floating, context), m_tutorials(tutorials) {
    setOpen(false);
}

void TutorialsView::placeWindow() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float w = std::floor(vp->WorkSize.x * kWidthFraction);
    const float h = std::floor(vp->WorkSize.y * kHeightFraction);
    const float x = vp->WorkPos.x + vp->WorkSize.x - theme().sizes().rightColumnWidth - w;
    ImGui::SetNextWindowPos(ImVec2(std::max(vp->WorkPos.x, x), vp->WorkPos.y + (vp->WorkSize.y - h) * 0.5f), ImGuiCond_Appearing);
    ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Appearing);
}

void TutorialsView::drawContent() {
    if (m_tutorials.welcomeDue()) {
        drawWelcome();
        return;
    }
    if (m_tutorials.current()) drawStep();
    else drawList();
}

// [SECTION] Welcome and list

void TutorialsView::drawWelcome() {
    const Palette& pal = theme().palette();
    const auto& all = m_tutorials.library().tutorials();
    m_welcomeShown = true;
    ImGui::PushFont(theme().fonts().bold);
    ImGui::TextUnformatted("Welcome to Kernel Explorer");
    ImGui::PopFont();
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(
        "Change a tile size and watch the generated source, the PTX, the registers, the occupancy and the "
        "measured time move together. The tutorials walk you from a first kernel to tensor cores, with "
        "buttons that set the app up for you and checkpoints that tell you when a step is done.");
    ImGui::Spacing();
    ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", fmt::format("{} tutorials. The first one:", all.size()).c_str());
    ImGui::PopTextWrapPos();
    const Tutorial& first = *all.front();
    ImGui::Spacing();
    if (ImGui::Button(fmt::format("Start \"{}\"", first.title).c_str())) {
        m_tutorials.dismissWelcome();
        m_tutorials.open(first.id);
    }
    ImGui::SameLine();
    if (ImGui::Button("Show all tutorials")) m_tutorials.dismissWelcome();
    ImGui::SameLine();
    if (ImGui::Button("Not now")) {
        m_tutorials.dismissWelcome();
        setOpen(false);
    }
    ImGui::Spacing();
    ImGui::TextColored(Theme::toVec4(pal.textFaint), "Help > Tutorials opens this window again.");
    // The whole path, so that a learner who knows the basics can start further along.
    ImGui::Spacing();
    sectionHeader("The learning path");
    for (const auto& t : all) {
        if (ImGui::Selectable(fmt::format("{:>2}. {}", t->order, t->title).c_str())) {
            m_tutorials.dismissWelcome();
            m_tutorials.open(t->id);
        }
        helpTooltip(t->summary);
    }
}

void TutorialsView::drawList() {
    const Palette& pal = theme().palette();
    sectionHeader("Learning path");
    for (const std::string& e : m_tutorials.loadErrors()) ImGui::TextColored(Theme::toVec4(pal.error), "%s", e.c_str());
    for (const auto& t : m_tutorials.library().tutorials()) {
        ImGui::PushID(t->id.c_str());
        const auto p = m_tutorials.progress(t->id);
        std::string status = "not started";
        if (p && p->state == "done") status = "done";
        else if (p) status = fmt::format("step {} of {}", p->step + 1, t->steps.size());
        if (ImGui::Selectable(fmt::format("{:>2}. {}", t->order, t->title).c_str(), false, ImGuiSelectableFlags_AllowDoubleClick))
            m_tutorials.open(t->id);
        ImGui::Indent();
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(Theme::toVec4(p && p->state == "done" ? pal.ok : pal.textDim), "%s", status.c_str());
        ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", t->summary.c_str());
        ImGui::PopTextWrapPos();
        ImGui::Unindent();
        ImGui::Spacing();
        ImGui::PopID();
    }
}

// [SECTION] A step

void TutorialsView::drawStep() {
    const Palette& pal = theme().palette();
    const Tutorial& t = *m_tutorials.current();
    const TutorialStep* step = m_tutorials.step();
    if (!step) return;
    const int n = static_cast<int>(t.steps.size());
    const int i = m_tutorials.stepIndex();

    if (ImGui::SmallButton("< All tutorials")) {
        m_tutorials.close();
        return;
    }
    ImGui::SameLine();
    ImGui::PushFont(theme().fonts().bold);
    ImGui::TextUnformatted(t.title.c_str());
    ImGui::PopFont();
    ImGui::ProgressBar(static_cast<float>(i + 1) / static_cast<float>(n), ImVec2(-1, 0),
                       fmt::format("Step {} of {}: {}", i + 1, n, step->title).c_str());
    if (!m_tutorials.targetsError().empty()) ImGui::TextColored(Theme::toVec4(pal.error), "%s", m_tutorials.targetsError().c_str());

    // Prose and checkpoints scroll; the Back / Next bar stays at the bottom.
    const float footer = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
    ImGui::BeginChild("##step", ImVec2(0, -footer));
    drawProse(step->prose);

    if (!step->actions.empty()) {
        ImGui::Spacing();
        for (std::size_t a = 0; a < step->actions.size(); ++a) {
            const TutorialAction& action = step->actions[a];
            const bool busy = m_tutorials.actionBusy();
            const bool thisOne = m_tutorials.actionIndex() == static_cast<int>(a);
            ImGui::BeginDisabled(busy);
            const std::string label = (thisOne ? action.label + " \u2026" : action.label) + "##action" + std::to_string(a);
            if (ImGui::Button(label.c_str())) m_tutorials.runAction(static_cast<int>(a));
            ImGui::EndDisabled();
            if (action.needsGpu()) helpTooltip("Runs the kernel on the GPU (needs an NVIDIA GPU and its driver).");
        }
        if (!m_tutorials.actionMessage().empty()) {
            ImGui::PushTextWrapPos(0);
            ImGui::TextColored(Theme::toVec4(pal.warn), "%s", m_tutorials.actionMessage().c_str());
            ImGui::PopTextWrapPos();
        }
    }
    drawCheckpoints(*step);
    if (!step->hints.empty()) {
        ImGui::Spacing();
        if (ImGui::CollapsingHeader(fmt::format("Hints ({})", step->hints.size()).c_str())) {
            ImGui::PushTextWrapPos(0);
            for (const std::string& h : step->hints) ImGui::BulletText("%s", h.c_str());
            ImGui::PopTextWrapPos();
        }
    }
    ImGui::EndChild();

    ImGui::Separator();
    ImGui::BeginDisabled(i == 0);
    if (ImGui::Button("< Back")) m_tutorials.back();
    ImGui::EndDisabled();
    ImGui::SameLine();
    const bool last = i + 1 == n;
    const auto progress = m_tutorials.progress(t.id);
    const bool done = progress && progress->state == "done";
    if (ImGui::Button(last ? (done ? "Finished" : "Finish") : "Next >")) m_tutorials.next();
    if (!m_tutorials.stepPassed()) {
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", "some checkpoints are open; you may go on anyway");
    }
}

void TutorialsView::statusMark(CheckStatus status) {
    const Palette& pal = theme().palette();
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float r = h * 0.42f;
    const ImVec2 c(p.x + h * 0.5f, p.y + h * 0.5f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 fill = status == CheckStatus::Pass ? pal.ok : status == CheckStatus::Fail ? pal.error : pal.textFaint;
    dl->AddCircleFilled(c, r, fill);
    const ImU32 ink = pal.windowBg;
    const float t = std::max(1.5f, h * 0.11f);
    if (status == CheckStatus::Pass) {
        const ImVec2 pts[3] = {ImVec2(c.x - r * 0.5f, c.y), ImVec2(c.x - r * 0.12f, c.y + r * 0.42f), ImVec2(c.x + r * 0.55f, c.y - r * 0.45f)};
        dl->AddPolyline(pts, 3, ink, 0, t);
    } else if (status == CheckStatus::Fail) {
        const float d = r * 0.45f;
        dl->AddLine(ImVec2(c.x - d, c.y - d), ImVec2(c.x + d, c.y + d), ink, t);
        dl->AddLine(ImVec2(c.x - d, c.y + d), ImVec2(c.x + d, c.y - d), ink, t);
    } else {
        dl->AddCircleFilled(c, r * 0.3f, ink);
    }
    ImGui::Dummy(ImVec2(h, h));
}

void TutorialsView::drawCheckpoints(const TutorialStep& step) {
    if (step.checkpoints.empty()) return;
    const Palette& pal = theme().palette();
    ImGui::Spacing();
    sectionHeader("Checkpoints");
    const auto& verdicts = m_tutorials.verdicts();
    for (std::size_t c = 0; c < step.checkpoints.size(); ++c) {
        const Checkpoint& cp = step.checkpoints[c];
        const CheckVerdict* v = c < verdicts.size() ? &verdicts[c] : nullptr;
        const CheckStatus status = v ? v->status : CheckStatus::Fail;
        statusMark(status);
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(cp.label.c_str());
        if (v) ImGui::TextColored(Theme::toVec4(status == CheckStatus::Fail ? pal.warn : pal.textDim), "%s", v->reason.c_str());
        if (status != CheckStatus::Pass && !cp.hint.empty()) ImGui::TextColored(Theme::toVec4(pal.textFaint), "hint: %s", cp.hint.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndGroup();
    }
    if (step.recorded) {
        const RecordedRun& r = *step.recorded;
        ImGui::Spacing();
        sectionHeader("Recorded on a real GPU");
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", fmt::format("{}, {} (a recorded run, not run here)", r.device, r.date).c_str());
        if (!r.variant.empty()) ImGui::TextUnformatted(r.variant.c_str());
        ImGui::TextUnformatted(r.summary().c_str());
        ImGui::TextColored(Theme::toVec4(pal.textFaint), "%s", r.source.c_str());
        ImGui::PopTextWrapPos();
    }
}

// [SECTION] Prose

void TutorialsView::drawSpans(const std::vector<ProseSpan>& spans) {
    const Palette& pal = theme().palette();
    const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
    bool first = true;
    for (const ProseSpan& span : spans) {
        ImFont* font = span.style == ProseSpan::Style::Strong ? theme().fonts().bold : theme().fonts().regular;
        ImU32 colour = pal.text;
        if (span.style == ProseSpan::Style::Emphasis) colour = pal.accentHover;
        if (span.style == ProseSpan::Style::Code) colour = theme().syntax(SyntaxClass::Builtin);
        if (span.style == ProseSpan::Style::Link) colour = pal.accent;
        // Words with their trailing spaces, laid out one by one so styled runs wrap like text.
        std::size_t pos = 0;
        const std::string& text = span.text;
        while (pos < text.size()) {
            std::size_t end = text.find(' ', pos);
            end = end == std::string::npos ? text.size() : text.find_first_not_of(' ', end);
            if (end == std::string::npos) end = text.size();
            const std::string word = text.substr(pos, end - pos);
            pos = end;
            ImGui::PushFont(font);
            const ImVec2 size = ImGui::CalcTextSize(word.c_str());
            if (!first) {
                ImGui::SameLine(0, 0);
                if (ImGui::GetCursorScreenPos().x + size.x > right && word.find_first_not_of(' ') != std::string::npos) ImGui::NewLine();
            }
            first = false;
            if (span.style == ProseSpan::Style::Code) {
                const ImVec2 p = ImGui::GetCursorScreenPos();
                ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), pal.codeBg);
            }
            ImGui::TextColored(Theme::toVec4(colour), "%s", word.c_str());
            ImGui::PopFont();
            if (span.style == ProseSpan::Style::Link && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", span.target.c_str());
        }
    }
}

void TutorialsView::drawProse(const std::vector<ProseBlock>& blocks) {
    const Palette& pal = theme().palette();
    m_imagesShown = 0;
    m_imageProblems.clear();
    for (const ProseBlock& b : blocks) {
        switch (b.kind) {
        case ProseBlock::Kind::Heading:
            ImGui::Spacing();
            ImGui::PushFont(theme().fonts().bold);
            drawSpans(b.spans);
            ImGui::PopFont();
            break;
        case ProseBlock::Kind::Paragraph:
            drawSpans(b.spans);
            ImGui::Spacing();
            break;
        case ProseBlock::Kind::Bullet:
        case ProseBlock::Kind::Numbered: {
            const std::string mark = b.kind == ProseBlock::Kind::Bullet ? "-" : fmt::format("{}.", b.level);
            ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", mark.c_str());
            ImGui::SameLine();
            ImGui::BeginGroup();
            drawSpans(b.spans);
            ImGui::EndGroup();
            break;
        }
        case ProseBlock::Kind::Code: {
            const int lines = 1 + static_cast<int>(std::count(b.code.begin(), b.code.end(), '\n'));
            const float h = static_cast<float>(lines) * ImGui::GetTextLineHeight() + ImGui::GetStyle().WindowPadding.y * 2;
            ImGui::PushStyleColor(ImGuiCol_ChildBg, Theme::toVec4(pal.codeBg));
            ImGui::BeginChild(ImGui::GetID(&b), ImVec2(0, h), false, ImGuiWindowFlags_AlwaysUseWindowPadding | ImGuiWindowFlags_HorizontalScrollbar);
            ImGui::TextUnformatted(b.code.c_str());
            ImGui::EndChild();
            ImGui::PopStyleColor();
            ImGui::Spacing();
            break;
        }
        case ProseBlock::Kind::Image: {
            // At its own size (times the zoom), narrowed to the window; the alt text as caption.
            const ImageTextures::Image& image = m_images.get(b.image);
            if (image.texture == ImTextureID{}) {
                ImGui::TextColored(Theme::toVec4(pal.warn), "[%s: %s]", b.alt.c_str(), image.error.c_str());
                m_imageProblems.push_back(image.error);
                break;
            }
            float w = static_cast<float>(image.width) * theme().scale(), h = static_cast<float>(image.height) * theme().scale();
            const float room = ImGui::GetContentRegionAvail().x;
            if (w > room && room > 0) {
                h *= room / w;
                w = room;
            }
            ImGui::Image(image.texture, ImVec2(w, h));
            if (!b.alt.empty()) {
                ImGui::PushTextWrapPos(0.0f);
                ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", b.alt.c_str());
                ImGui::PopTextWrapPos();
            }
            ImGui::Spacing();
            ++m_imagesShown;
            break;
        }
        }
    }
}

}  // namespace kx::app
