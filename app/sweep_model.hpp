// The Sweep view's model: which parameters of the editor's template vary and over which values,
// the sweep in flight (engine/sweep) and its points, and what the view draws from them,
// computed here once per change (the heatmap's cells, the scatter's series), never in the draw.
//
// The sweep runs on a JobQueue worker (compiles on their own pool inside it, one core left for
// the UI); update() takes the points that finished on the UI thread. Without a GPU, or when
// asked, it compiles only and the figures are predicted. Not thread-safe: call everything from
// the UI thread.
#pragma once

#include "frame_times.hpp"
#include "jobs/job_queue.hpp"
#include "sweep/preselected.hpp"
#include "sweep/space.hpp"
#include "sweep/sweep.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

class ExplorerModel;

// What colours the heatmap and sorts "best".
enum class SweepMetric { Tflops, Gbps, PctOfBaseline, TimeMs, Occupancy, Registers, PredictedTflops, BusyShare };
inline constexpr SweepMetric kSweepMetrics[] = {SweepMetric::Tflops,    SweepMetric::Gbps,      SweepMetric::PctOfBaseline,
                                                SweepMetric::TimeMs,    SweepMetric::Occupancy, SweepMetric::Registers,
                                                SweepMetric::PredictedTflops, SweepMetric::BusyShare};
const char* metricLabel(SweepMetric metric);     // "TFLOP/s (measured)", "occupancy (predicted)"
const char* metricKey(SweepMetric metric);       // "tflops", "occupancy": script names
bool metricMeasured(SweepMetric metric);         // needs a run
bool metricHigherIsBetter(SweepMetric metric);
// The point's value of the metric; nullopt when it has none (not measured, pruned...).
std::optional<double> metricValue(const engine::SweepPoint& point, SweepMetric metric);

// A config's value of a sweep axis: a parameter's, or a compiler flag's ("64", "true").
std::string axisValue(const engine::Config& config, const std::string& param);

struct HeatCell {
    int point = -1;                 // the cell's best point (by the metric), else its first; -1: empty
    int count = 0;                  // points in the cell (parameters other than the axes vary too)
    std::optional<double> value;    // the best point's metric
    bool spills = false;
};

struct HeatMap {
    std::string xParam, yParam;
    std::vector<std::string> xValues, yValues;  // in the order swept
    std::vector<HeatCell> cells;                // row-major: y * xValues.size() + x
    double lo = 0, hi = 0;                      // metric range over the cells with a value
    const HeatCell& at(std::size_t x, std::size_t y) const { return cells[y * xValues.size() + x]; }
};

class SweepModel {
public:
    explicit SweepModel(ExplorerModel& explorer);
    ~SweepModel();
    SweepModel(const SweepModel&) = delete;
    SweepModel& operator=(const SweepModel&) = delete;

    // --- Setup: the editor's template, arch and config are the base ------------------------
    // The values of each varied parameter, as `kx sweep --vary` takes them ("64,128", "2..4");
    // a parameter absent or with empty text stays at the editor's value.
    // Follows the editor: another template clears it.
    std::map<std::string, std::string>& varyText() {
        syncSetup();
        return m_varyText;
    }
    // Every allowed value of the parameter, as vary text. For a compiler flag (a key of
    // engine::compileFlagKeys(), varied like a parameter) the values worth trying: false,true;
    // ptxas_opt 0..3; maxrregcount 0 (no cap),32,64,128,255.
    std::string allValuesText(const std::string& param) const;
    bool compileOnly = false;
    // A named set of the template's preselected.xml that covers the arch ("" for none): the
    // sweep starts from each of its configs (laid over the editor's) instead of the editor's
    // config alone, crossed with the varied parameters.
    std::string preselected;
    std::vector<std::string> preselectedNames() const;  // the sets covering the editor's arch
    std::string preselectedHelp(const std::string& name) const;
    // Starts the space from set `name` (one of preselectedNames(), or "" for the editor's config);
    // a set that names its problem sets the Run panel's sizes to it, as `kx sweep --preselected` runs there.
    void choosePreselected(const std::string& name);
    // Draw this many configs of the space at random (0: all of them), repeatably with the seed.
    std::uint64_t sample = 0;
    std::uint64_t seed = 1;
    // Configs the space holds with the current vary text and preselected set; 0 when the text
    // does not parse.
    std::uint64_t spaceSize() const;
    // Configs Start sweeps: the space, or the sample drawn from it.
    std::uint64_t configsToSweep() const;
    const std::string& setupError() const { return m_setupError; }  // why spaceSize() is 0

    // --- The sweep ------------------------------------------------------------------------
    // Starts a sweep of the space on a worker. Throws engine::InputError (bad values, nothing
    // to compile for) without starting anything. Runs on the GPU when the runner has one and
    // compileOnly is false.
    void start();
    void stop();  // between configs: what finished is kept, the rest is not reached
    bool running() const;
    bool measuring() const { return m_measuring; }  // the sweep in view runs on a GPU
    engine::SweepCounts counts() const;
    double elapsedSeconds() const;
    const std::string& templateId() const { return m_templateId; }
    const std::string& archName() const { return m_archName; }
    // Every point of the sweep in view, in sweep order.
    const std::vector<engine::SweepPoint>& points() const { return m_points; }
    std::uint64_t revision() const { return m_revision; }  // bumped when points() or the heatmap change

    // --- What the view draws ---------------------------------------------------------------
    std::string xParam, yParam;   // the heatmap's axes (varied parameters)
    SweepMetric metric = SweepMetric::Tflops;
    const HeatMap& heatmap() const { return m_heatmap; }
    // What the heatmap's axes can be: the parameters and compiler flags whose value differs
    // between the sweep's configs (a varied one, or one a preselected set changes), in the
    // template's order, flags last.
    const std::vector<std::string>& axisChoices() const { return m_axisChoices; }
    // The best point by the metric; -1 when no point has a value.
    int bestPoint() const;
    FrameTimes& frameTimes() { return m_frames; }

    // --- Actions -----------------------------------------------------------------------------
    // Puts the point's template, arch and config in the editor.
    void loadIntoEditor(int point);
    // Keeps the n best compiled points (by the metric) in the session as variants.
    int keepBest(int n);
    std::string csv() const;
    // Throws engine::InputError when the file cannot be written.
    void exportCsv(const std::filesystem::path& file) const;

    // Once per frame on the UI thread: takes finished points, re-derives the heatmap.
    void update();

private:
    void syncSetup();     // follows the editor's template and arch
    void rebuildHeatmap();
    void rebuildAxisChoices();
    engine::SweepSpace space() const;
    // The template's preselected sets, read once per template (the file's error, if any, kept).
    const std::vector<engine::PreselectedSet>& preselectedSets() const;

    ExplorerModel& m_explorer;
    std::string m_templateId, m_archName;
    std::map<std::string, std::string> m_varyText;
    mutable std::string m_setupError;
    mutable std::string m_preselectedTemplate;  // whose sets m_preselectedSets holds
    mutable std::vector<engine::PreselectedSet> m_preselectedSets;
    mutable std::string m_preselectedError;
    std::vector<engine::SweepPoint> m_points;
    std::uint64_t m_revision = 0;
    std::uint64_t m_heatmapRevision = ~0ull;
    std::string m_heatmapKey;
    HeatMap m_heatmap;
    std::vector<std::string> m_axisChoices;
    FrameTimes m_frames;
    bool m_measuring = false;
    std::chrono::steady_clock::time_point m_started{};
    std::optional<double> m_finishedSeconds;

    std::unique_ptr<engine::Compiler> m_compiler;
    std::unique_ptr<engine::RunnerPool> m_runners;
    std::shared_ptr<engine::Sweep> m_sweep;
    std::shared_ptr<engine::Job> m_job;
    // Background: the sweep's compiles (and its runners' host side) yield to the frames. Last:
    // joins before the sweep and compiler go.
    engine::JobQueue m_jobs{1, engine::WorkerPriority::Background};
};

}  // namespace kx::app
