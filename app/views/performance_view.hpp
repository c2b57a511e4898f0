// View > Performance: a small overlay in the top-right corner with the app's own frame times
// (p50, p99, the slowest, a bar per recent frame against the 60 Hz budget), the process's CPU
// use, and why the app is drawing now (a compile, a run, an animation) or that it sleeps until
// the next input. Opening it does not keep the app awake: it shows what the last frames cost.
#pragma once

#include "frame_times.hpp"
#include "views/view.hpp"

#include <functional>
#include <string>

namespace kx::app {

class PerformanceView final : public View {
public:
    // `activity` says why the app draws continuously now, or "" when it sleeps on events.
    PerformanceView(ViewContext context, const FrameTimes& frames, const FrameTimes& build, std::function<std::string()> activity);

protected:
    void drawContent() override;
    void placeWindow() override;
    ImGuiWindowFlags windowFlags() const override {
        return ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing |
               ImGuiWindowFlags_NoNav;
    }

private:
    // CPU time of the whole process per wall second, sampled at most once a second.
    void sampleCpu();

    const FrameTimes& m_frames;
    const FrameTimes& m_build;
    std::function<std::string()> m_activity;
    double m_lastWall = -1, m_lastCpu = 0;
    double m_cpuShare = -1;  // of one core, 0..; negative until two samples exist
};

}  // namespace kx::app
