#include "sweep_model.hpp"

#include "explorer_model.hpp"
#include "analysis/roofline_scene.hpp"
#include "sweep/space.hpp"
#include "sweep/sweep_record.hpp"
#include "templates/compile_flags.hpp"
#include "util/data_paths.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <thread>

namespace kx::app {
using namespace kx::engine;

// [SECTION] Metrics

const char* metricLabel(SweepMetric m) {
    return enumName(m, {"TFLOP/s (measured)", "GB/s (measured)", "% of baseline (measured)", "time, ms (measured)",
                        "occupancy (predicted)", "registers per thread", "roofline TFLOP/s (predicted)",
                        "waves' block slots busy, % (predicted)"},
                    "");
}

const char* metricKey(SweepMetric m) {
    return enumName(m, {"tflops", "gbps", "baseline", "time", "occupancy", "registers", "predicted", "busy"}, "");
}

bool metricMeasured(SweepMetric m) {
    return m == SweepMetric::Tflops || m == SweepMetric::Gbps || m == SweepMetric::PctOfBaseline || m == SweepMetric::TimeMs;
}

bool metricHigherIsBetter(SweepMetric m) { return m != SweepMetric::TimeMs && m != SweepMetric::Registers; }

std::optional<double> metricValue(const SweepPoint& p, SweepMetric m) {
    switch (m) {
    case SweepMetric::Tflops: return p.measured() ? std::optional(p.run->tflops) : std::nullopt;
    case SweepMetric::Gbps: return p.measured() ? std::optional(p.run->gbps) : std::nullopt;
    case SweepMetric::PctOfBaseline: return p.pctOfBaseline() > 0 ? std::optional(p.pctOfBaseline()) : std::nullopt;
    case SweepMetric::TimeMs: return p.measured() ? std::optional(p.run->medianMs) : std::nullopt;
    case SweepMetric::Occupancy:
        return p.prediction && p.resources && p.status != PointStatus::CompileFailed ? std::optional(100.0 * p.prediction->occupancy)
                                                                                      : std::nullopt;
    case SweepMetric::Registers: return p.resources ? std::optional<double>(p.resources->registers) : std::nullopt;
    case SweepMetric::PredictedTflops:
        return p.prediction && p.prediction->rooflineTflops > 0 ? std::optional(p.prediction->rooflineTflops) : std::nullopt;
    case SweepMetric::BusyShare:
        return p.prediction && p.prediction->waves > 0 ? std::optional(100.0 * p.prediction->busyShare) : std::nullopt;
    }
    return std::nullopt;
}

// [SECTION] Setup

SweepModel::SweepModel(ExplorerModel& explorer) : m_explorer(explorer) {}

SweepModel::~SweepModel() {
    if (m_sweep) m_sweep->cancel();
    if (m_runners) m_runners->forDevice(0).stop();  // a run in flight must not hold up closing
}

std::string axisValue(const Config& config, const std::string& param) {
    if (const auto it = config.values.find(param); it != config.values.end()) return it->second;
    if (!compileFlagKey(param).empty()) return config.flags.value(compileFlagKey(param));
    return "";
}

void SweepModel::syncSetup() {
    const Template* t = m_explorer.currentTemplate();
    const std::string id = t ? t->id() : "";
    if (id != m_templateId && !running()) {
        // Another template: its parameters, nothing varied yet, the first two int ones as axes.
        m_templateId = id;
        m_varyText.clear();
        xParam.clear();
        yParam.clear();
        preselected.clear();
    }
    if (!running() && m_explorer.currentArch()) m_archName = m_explorer.currentArch()->name;
}

std::string SweepModel::allValuesText(const std::string& param) const {
    const Template* t = m_explorer.currentTemplate();
    const ParamSpec* p = t ? t->manifest().findParam(param) : nullptr;
    if (!p && compileFlagKey(param) == "maxrregcount") return "0,32,64,128,255";  // 241 values: a spread of caps
    if (!p && compileFlagKey(param) == "ptxas_opt") return "0..3";
    if (!p && !compileFlagKey(param).empty()) return "false,true";
    if (!p) return "";
    if (p->type == ParamType::Int && p->allowed.empty()) return std::to_string(p->minValue) + ".." + std::to_string(p->maxValue);
    std::string text;
    for (const std::string& v : allowedValues(*p)) text += (text.empty() ? "" : ",") + v;
    return text;
}

const std::vector<PreselectedSet>& SweepModel::preselectedSets() const {
    if (m_preselectedTemplate != m_templateId) {
        m_preselectedTemplate = m_templateId;
        m_preselectedSets.clear();
        m_preselectedError.clear();
        if (const Template* t = m_explorer.currentTemplate()) {
            try {
                m_preselectedSets = loadPreselected(*t);
            } catch (const InputError& e) {
                m_preselectedError = e.what();
            }
        }
    }
    return m_preselectedSets;
}

std::vector<std::string> SweepModel::preselectedNames() const {
    std::vector<std::string> names;
    const Arch* arch = m_explorer.currentArch();
    for (const PreselectedSet& s : preselectedSets())
        if (arch && s.coversArch(arch->name)) names.push_back(s.name);
    return names;
}

std::string SweepModel::preselectedHelp(const std::string& name) const {
    for (const PreselectedSet& s : preselectedSets())
        if (s.name == name)
            return s.sizes.empty() ? fmt::format("{} ({} configs)", s.help, s.configs.size())
                                   : fmt::format("{} ({} configs; tuned at {}: choosing it sets the Run panel's sizes)", s.help,
                                                 s.configs.size(), preselectedSizesText(s));
    return m_preselectedError;
}

void SweepModel::choosePreselected(const std::string& name) {
    syncSetup();  // a template chosen since the last frame would clear the set afterwards
    preselected = name;
    const Template* t = m_explorer.currentTemplate();
    const Arch* arch = m_explorer.currentArch();
    if (name.empty() || !t || !arch) return;
    for (const PreselectedSet& s : preselectedSets())
        if (s.name == name && s.coversArch(arch->name)) m_explorer.runs().usePresetSizes(*t, s);
}

SweepSpace SweepModel::space() const {
    const Template* t = m_explorer.currentTemplate();
    const Arch* arch = m_explorer.currentArch();
    if (!t || !arch) throw InputError("choose a template and an arch first");
    std::vector<std::string> varies;
    for (const auto& [param, text] : m_varyText)
        if (!text.empty()) varies.push_back(param + "=" + text);
    std::vector<Config> bases;
    if (!preselected.empty()) {
        if (!m_preselectedError.empty() || preselectedSets().empty())
            throw InputError(m_preselectedError.empty() ? t->id() + " has no preselected sets" : m_preselectedError);
        bases = preselectedConfigs(findPreselected(preselectedSets(), *t, preselected, arch->name), m_explorer.config());
    } else {
        bases.push_back(m_explorer.config());
    }
    return makeSpace(*t, std::move(bases), varies);
}

std::uint64_t SweepModel::spaceSize() const {
    try {
        m_setupError.clear();
        return space().size();
    } catch (const InputError& e) {
        m_setupError = e.what();
        return 0;
    }
}

std::uint64_t SweepModel::configsToSweep() const {
    const std::uint64_t size = spaceSize();
    return sample > 0 ? std::min(size, sample) : size;
}

// [SECTION] The sweep

void SweepModel::start() {
    if (running()) return;
    syncSetup();
    const auto tmpl = m_explorer.library().find(m_templateId);
    const Arch* arch = m_explorer.currentArch();
    if (!tmpl || !arch) throw InputError("choose a template and an arch first");
    const SweepSpace s = space();
    std::vector<Config> configs = spaceConfigs(s, sample, seed);

    SweepOptions options;
    RunModel& runs = m_explorer.runs();
    options.sizes = tmpl->withSizes(runs.sizesTemplate() == tmpl->id() ? runs.sizeText() : std::map<std::string, std::string>{});
    // One core stays with the UI.
    options.compileThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()) - (std::thread::hardware_concurrency() > 1 ? 1 : 0));
    // The predicted roofline: the datasheet of the GPU the runner reported, when there is one of
    // its model, else the arch's device (kx sweep chooses the same way).
    const DeviceSpec* own =
        runs.runnerState() == RunnerState::Ready ? deviceForGpuName(m_explorer.archDatabase(), *arch, runs.deviceName()) : nullptr;
    options.rooflineDevice = own ? std::optional<DeviceSpec>(*own) : rooflineDeviceFor(m_explorer.archDatabase(), *arch);
    options.run.reps = runs.reps;
    options.run.arches = &m_explorer.archDatabase();
    options.run.timeoutSeconds = runs.timeoutSeconds;
    m_measuring = !compileOnly && runs.runnerState() == RunnerState::Ready;
    if (m_measuring) {
        options.devices = {0};
        if (!m_runners) m_runners = std::make_unique<RunnerPool>();
    }
    auto sweep = std::make_shared<Sweep>(tmpl, *arch, std::move(configs), options);  // throws for an arch it cannot compile for
    if (!m_compiler) m_compiler = std::make_unique<Compiler>(cacheRoot() / "nvrtc");

    m_sweep = sweep;
    m_points = sweep->points();
    m_archName = arch->name;
    m_started = std::chrono::steady_clock::now();
    m_finishedSeconds.reset();
    m_frames.clear();
    // Axes: the first two parameters that differ between the configs, unless chosen already.
    rebuildAxisChoices();
    const std::vector<std::string>& varied = m_axisChoices;
    auto usable = [&](const std::string& p) { return std::find(varied.begin(), varied.end(), p) != varied.end(); };
    if (!usable(xParam)) xParam = varied.size() > 0 ? varied[0] : "";
    if (!usable(yParam) || yParam == xParam) yParam = varied.size() > 1 ? (varied[0] == xParam ? varied[1] : varied[0]) : "";
    if (!m_measuring && metricMeasured(metric)) metric = SweepMetric::Occupancy;
    if (m_measuring && !metricMeasured(metric)) metric = SweepMetric::Tflops;
    ++m_revision;

    Compiler* compiler = m_compiler.get();
    RunnerPool* runners = m_measuring ? m_runners.get() : nullptr;
    m_job = m_jobs.submit("sweep", [sweep, compiler, runners](Job&) { sweep->run(*compiler, runners); });
}

void SweepModel::stop() {
    if (m_sweep) m_sweep->cancel();
}

bool SweepModel::running() const { return m_job && !m_job->finished(); }

SweepCounts SweepModel::counts() const { return m_sweep ? m_sweep->counts() : SweepCounts{}; }

double SweepModel::elapsedSeconds() const {
    if (m_finishedSeconds) return *m_finishedSeconds;
    return m_sweep ? std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count() : 0;
}

void SweepModel::update() {
    syncSetup();
    if (m_sweep) {
        // Finished points replace their pending slots; compiled points waiting for a GPU show
        // their resources already through the snapshot below, taken only while compiling.
        bool changed = false;
        for (SweepPoint& p : m_sweep->takeFinished()) {
            if (p.index < m_points.size()) m_points[p.index] = std::move(p);
            changed = true;
        }
        if (changed) ++m_revision;
        if (!running() && !m_finishedSeconds) {
            m_finishedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
            ++m_revision;
        }
    }
    const std::string key = xParam + "|" + yParam + "|" + metricKey(metric);
    if (m_heatmapRevision != m_revision || key != m_heatmapKey) {
        rebuildHeatmap();
        m_heatmapRevision = m_revision;
        m_heatmapKey = key;
    }
}

void SweepModel::rebuildAxisChoices() {
    m_axisChoices.clear();
    const auto tmpl = m_explorer.library().find(m_templateId);
    if (!tmpl || m_points.empty()) return;
    auto differs = [&](const std::string& key) {
        const std::string first = axisValue(m_points.front().config, key);
        return std::any_of(m_points.begin(), m_points.end(), [&](const SweepPoint& p) { return axisValue(p.config, key) != first; });
    };
    for (const ParamSpec& p : tmpl->manifest().params)
        if (differs(p.name)) m_axisChoices.push_back(p.name);
    for (const CompileFlagKey& f : compileFlagKeys())
        if (differs(f.key)) m_axisChoices.push_back(f.key);
}

void SweepModel::rebuildHeatmap() {
    HeatMap h;
    h.xParam = xParam;
    h.yParam = yParam;
    auto valuesOf = [&](const std::string& param) {
        std::vector<std::string> values;
        for (const SweepPoint& p : m_points) {
            const std::string v = axisValue(p.config, param);
            if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
        }
        return values;
    };
    h.xValues = xParam.empty() ? std::vector<std::string>{""} : valuesOf(xParam);
    h.yValues = yParam.empty() ? std::vector<std::string>{""} : valuesOf(yParam);
    h.cells.assign(h.xValues.size() * h.yValues.size(), HeatCell{});
    const bool higher = metricHigherIsBetter(metric);
    bool any = false;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const SweepPoint& p = m_points[i];
        auto index = [&](const std::string& param, const std::vector<std::string>& values) {
            if (param.empty()) return std::size_t{0};
            return static_cast<std::size_t>(std::find(values.begin(), values.end(), axisValue(p.config, param)) - values.begin());
        };
        HeatCell& cell = h.cells[index(yParam, h.yValues) * h.xValues.size() + index(xParam, h.xValues)];
        ++cell.count;
        const auto value = metricValue(p, metric);
        const bool better = value && (!cell.value || (higher ? *value > *cell.value : *value < *cell.value));
        if (cell.point < 0 || better) {
            cell.point = static_cast<int>(i);
            if (better) cell.value = value;
        }
        if (value) {
            h.lo = any ? std::min(h.lo, *value) : *value;
            h.hi = any ? std::max(h.hi, *value) : *value;
            any = true;
        }
    }
    for (HeatCell& cell : h.cells)
        if (cell.point >= 0) {
            const SweepPoint& p = m_points[static_cast<std::size_t>(cell.point)];
            cell.spills = p.resources && p.resources->spillBytes() > 0;
        }
    m_heatmap = std::move(h);
}

int SweepModel::bestPoint() const {
    int best = -1;
    std::optional<double> bestValue;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const SweepPoint& p = m_points[i];
        // Pruned points (spills, registers) keep their figures but never win.
        if (p.status != PointStatus::Measured && p.status != PointStatus::Compiled) continue;
        const auto v = metricValue(p, metric);
        if (v && (!bestValue || (metricHigherIsBetter(metric) ? *v > *bestValue : *v < *bestValue))) {
            best = static_cast<int>(i);
            bestValue = v;
        }
    }
    return best;
}

// [SECTION] Actions

void SweepModel::loadIntoEditor(int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= m_points.size()) return;
    const SweepPoint& p = m_points[static_cast<std::size_t>(index)];
    if (!m_explorer.currentTemplate() || m_explorer.currentTemplate()->id() != p.config.templateId)
        m_explorer.selectTemplate(p.config.templateId);
    m_explorer.selectArch(m_archName);
    for (const auto& [k, v] : p.config.values) m_explorer.setParam(k, v);
    m_explorer.setFlags(p.config.flags);
}

int SweepModel::keepBest(int n) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < m_points.size(); ++i)
        if ((m_points[i].status == PointStatus::Measured || m_points[i].status == PointStatus::Compiled) && m_points[i].compiled &&
            metricValue(m_points[i], metric))
            order.push_back(i);
    const bool higher = metricHigherIsBetter(metric);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double va = *metricValue(m_points[a], metric), vb = *metricValue(m_points[b], metric);
        return higher ? va > vb : va < vb;
    });
    if (static_cast<int>(order.size()) > n) order.resize(static_cast<std::size_t>(std::max(0, n)));
    for (std::size_t i : order) {
        const SweepPoint& p = m_points[i];
        if (p.run) m_explorer.session().recordRun(p.name, m_archName, p.config, p.source, p.compiled, *p.run);
        else m_explorer.session().keep(p.name, m_archName, p.config, p.source, p.compiled);
    }
    return static_cast<int>(order.size());
}

std::string SweepModel::csv() const {
    const auto tmpl = m_explorer.library().find(m_templateId);
    return tmpl ? sweepCsv(*tmpl, m_points) : std::string();
}

void SweepModel::exportCsv(const std::filesystem::path& file) const {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << csv();
    if (!out) throw InputError("cannot write " + file.string());
}

}  // namespace kx::app
