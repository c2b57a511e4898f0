#include "views/performance_view.hpp"

#include "theme.hpp"

#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>

namespace kx::app {

namespace {

// Frames drawn as bars, newest on the right, and the budget a 60 Hz display gives one frame.
constexpr std::size_t kBars = 180;
constexpr double kBudgetMs = 1000.0 / 60.0;

double processCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return s(u.ru_utime) + s(u.ru_stime);
}

double wallSeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

PerformanceView::PerformanceView(ViewContext context, const FrameTimes& frames, const FrameTimes& build,
                                 std::function<std::string()> activity)
    : View("Performance", Slot::Floating, context), m_frames(frames), m_build(build), m_activity(std::move(activity)) {
    setOpen(false);
}

void PerformanceView::placeWindow() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float margin = ImGui::GetFontSize();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - margin, vp->WorkPos.y + margin), ImGuiCond_Appearing, ImVec2(1, 0));
    ImGui::SetNextWindowBgAlpha(0.94f);
}

void PerformanceView::sampleCpu() {
    const double wall = wallSeconds();
    if (m_lastWall >= 0 && wall - m_lastWall < 1.0) return;
    const double cpu = processCpuSeconds();
    if (m_lastWall >= 0) m_cpuShare = (cpu - m_lastCpu) / (wall - m_lastWall);
    m_lastWall = wall;
    m_lastCpu = cpu;
}

void PerformanceView::drawContent() {
    const Palette& pal = theme().palette();
    sampleCpu();
    const double p50 = m_frames.percentileMs(50), p99 = m_frames.percentileMs(99);
    ImGui::Text("frame  p50 %.1f ms   p99 %.1f ms   max %.1f ms", p50, p99, m_frames.maxMs());
    ImGui::TextColored(Theme::toVec4(pal.textDim), "UI build p50 %.1f ms   p99 %.1f ms (before the renderer)", m_build.percentileMs(50),
                       m_build.percentileMs(99));
    ImGui::TextColored(Theme::toVec4(pal.textDim), "%zu frames drawn since start", m_frames.total());
    if (m_cpuShare >= 0) ImGui::TextColored(Theme::toVec4(pal.textDim), "CPU %.1f%% of a core (whole process, last second or more)", m_cpuShare * 100);
    const std::string why = m_activity ? m_activity() : std::string();
    if (why.empty()) ImGui::TextColored(Theme::toVec4(pal.ok), "idle: asleep until the next input");
    else ImGui::TextColored(Theme::toVec4(pal.warn), "drawing: %s", why.c_str());

    // One bar per frame, on a scale of two frame budgets; the budget line shows what 60 Hz allows.
    const std::vector<double> recent = m_frames.recent(kBars);
    const float barW = std::max(1.0f, std::floor(theme().scale() * 2.0f));
    const ImVec2 size(barW * static_cast<float>(kBars), ImGui::GetFontSize() * 4);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), pal.codeBg);
    const double top = kBudgetMs * 2;
    for (std::size_t i = 0; i < recent.size(); ++i) {
        const double ms = recent[i] * 1000.0;
        const float h = static_cast<float>(std::min(ms, top) / top) * size.y;
        const float x = p.x + size.x - barW * static_cast<float>(recent.size() - i);
        dl->AddRectFilled(ImVec2(x, p.y + size.y - h), ImVec2(x + barW, p.y + size.y), ms > kBudgetMs ? pal.warn : pal.accent);
    }
    const float budgetY = p.y + size.y * 0.5f;
    dl->AddLine(ImVec2(p.x, budgetY), ImVec2(p.x + size.x, budgetY), pal.textDim);
    dl->AddText(ImVec2(p.x + 3, budgetY - ImGui::GetFontSize()), pal.textDim, "16.7 ms");
    helpTooltip("Each bar is one frame: the time from waking up to the finished frame, without the time asleep "
                "waiting for input. The line is the 60 Hz budget; `frame-stats` in a script prints the same figures.");
}

}  // namespace kx::app
