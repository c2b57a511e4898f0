// Compare: pinned variants side by side. Pick 2–4 pins; a metrics table with one column per
// variant (timing, resources, occupancy, instruction-mix headlines; best value of each row
// highlighted, rows where all agree dimmed), their predicted and measured points on one small
// roofline, and Source / PTX / SASS diffs of two chosen pins (A and B). Exports the table as CSV
// and Markdown into the current folder.
//
// A large floating window over the tiled panels (View > Compare, Compare > Show, Ctrl+Shift+C):
// the table and two side-by-side code columns need the whole width, which no tiled slot has.
// The table and chart data are rebuilt only when the selection, the pins or the run history
// change; diffs are computed by the DiffView once per pair of texts.
#pragma once

#include "compare_metrics.hpp"
#include "views/view.hpp"
#include "widgets/chart_scale.hpp"
#include "widgets/diff_view.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

enum class DiffTab { Source, Ptx, Sass };

class CompareView final : public View {
public:
    explicit CompareView(ViewContext context);

    bool inViewMenu() const override { return true; }

    // Chooses the diff pair by pin index (scripts, the A/B combos). Returns false when either is
    // out of range; also ticks both for the table.
    bool selectPair(int a, int b);
    // Ticks exactly these pins (indices) for the table and roofline, at most kMaxSelected; the
    // diff pair is left as it is. Returns false when one is out of range.
    bool tickOnly(const std::vector<int>& pins);
    void selectDiffTab(DiffTab tab) { m_requestedTab = static_cast<int>(tab); }
    // Writes the metrics table of the ticked pins: FILE.csv or FILE.md by extension. Returns false
    // with lastExportMessage() saying why.
    bool exportTable(const std::filesystem::path& file);
    const std::string& lastExportMessage() const { return m_exportMessage; }

protected:
    void drawContent() override;
    void placeWindow() override;
    ImGuiWindowFlags windowFlags() const override { return ImGuiWindowFlags_NoCollapse; }

private:
    struct Roof {
        bool valid = false;
        std::string device;
        double dramBw = 0;  // bytes/s
        // The compute roofs of the compared variants' units (FP32, FP16 tensor, ...), highest
        // first: FLOP/s and the label drawn on it.
        std::vector<std::pair<double, std::string>> roofs;
        chart::Scale x, y;
        // Per table column: its predicted point (at most one) and measured point (its latest run).
        std::vector<std::vector<double>> predX, predY, measX, measY;
        bool anyMeasured = false;
    };

    void syncSelection();   // drop stale picks, tick new pins up to kMaxSelected
    void rebuild();         // table and roofline data, when their inputs changed
    std::vector<SnapshotPtr> selected() const;
    void drawToolbar();
    void drawPins();
    void drawTable(float height);
    void drawRoofline(float height);
    void drawDiffs();
    ImU32 columnColour(int column) const;

    std::vector<bool> m_ticked;   // per pin, in pins() order
    std::vector<std::int64_t> m_tickedFor;  // the variant id each flag was set for
    int m_pairA = 0, m_pairB = 1; // pin indices for the diffs
    const void* m_pairAFor = nullptr;
    const void* m_pairBFor = nullptr;
    int m_requestedTab = -1;

    // What the table and chart were built for.
    struct Key {
        std::uint64_t revision = 0;
        std::vector<const void*> selected;
        bool operator==(const Key&) const = default;
    };
    std::optional<Key> m_builtFor;
    MetricTable m_table;
    // Copies of runs stored before runs said their share of the roof, with it filled in.
    std::vector<std::unique_ptr<engine::RunReport>> m_filledRuns;
    std::vector<int> m_columnPin;  // pin index of each table column
    Roof m_roof;

    DiffView m_sourceDiff, m_ptxDiff, m_sassDiff;
    // Diff PTX/SASS with variant names and NVRTC's per-file symbol hashes masked
    // (diff::normaliseNames): otherwise every symbol line differs between any two configs.
    bool m_normalise = true;
    struct Normalised {
        const void* a = nullptr;
        const void* b = nullptr;
        bool on = true;
        std::string ptxA, ptxB, sassA, sassB;
    } m_norm;
    std::string m_exportMessage;
    bool m_exportFailed = false;
};

}  // namespace kx::app
