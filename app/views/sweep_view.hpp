// Sweep: explore a space of the editor's template at once. Tick the parameters (and compiler
// flags) to vary and edit their values, start from the editor's config or a preselected set,
// sample the space or not, Start (Stop keeps what finished); while the sweep runs off the UI
// thread, a heatmap of two parameters fills in (colour = TFLOP/s, GB/s, % of baseline or time when
// measured; occupancy, registers or the predicted roof when compiling only), pruned, failed and
// spilling cells marked with the reason on hover; a scatter of time (or registers) against
// occupancy; a sortable table of every config. Clicking a cell or a row loads that config into
// the editor. Export CSV or PNG, keep the best in the session.
//
// A large floating window (Run > Sweep configs, Ctrl+Shift+W), like Compare. Everything drawn is
// derived by SweepModel::update(); the view only lays it out.
#pragma once

#include "sweep_model.hpp"
#include "views/view.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kx::app {

struct RegionPng;

class SweepView final : public View {
public:
    SweepView(ViewContext context, SweepModel& sweeps);
    bool inViewMenu() const override { return true; }
    const std::string& lastMessage() const { return m_message; }
    // Saves the heatmap and the scatter beside it, as drawn in the next frame, as a PNG.
    void requestPng(std::filesystem::path file);
    bool pngPending() const;

protected:
    void drawContent() override;
    void placeWindow() override;

private:
    void drawSetup();
    void drawSpaceOptions();
    void drawProgress();
    void drawHeatmap(float width, float height);
    void drawHeatmapPickers();
    void drawHeatCell(const HeatMap& heatmap, const HeatCell& cell, ImVec2 min, ImVec2 max, ImVec2 pitch, int best);
    void drawScatter(float width, float height);
    void drawTable(float height);
    void sortRows(ImGuiTableSortSpecs* specs);
    void drawActions();
    // The point's figures and outcome, for tooltips.
    std::string describe(int point) const;
    ImU32 rampColour(double t) const;  // 0..1 to the heatmap's colour ramp

    SweepModel& m_sweeps;
    std::shared_ptr<RegionPng> m_capture;  // shared with the draw-list callback
    ImVec2 m_chartsMin{};                  // top left of the heatmap, for the PNG
    std::string m_message;
    bool m_messageIsError = false;
    std::string m_csvPath = "sweep.csv";
    int m_keepCount = 3;
    bool m_scatterRegisters = false;        // x of the scatter: registers instead of occupancy
    std::vector<int> m_order;               // table rows, sorted
    std::uint64_t m_orderRevision = ~0ull;
};

}  // namespace kx::app
