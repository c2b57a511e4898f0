#include "run_model.hpp"

#include <algorithm>
#include <cctype>

#include "clock_text.hpp"

#include "analysis/roofline_scene.hpp"
#include "util/error.hpp"


namespace kx::app {
using namespace kx::engine;

RunModel::RunModel(std::filesystem::path runnerPath) : m_runner(std::make_shared<RunnerClient>(std::move(runnerPath))) {
    auto runner = m_runner;
    m_jobs.submit("probe GPU", [this, runner](Job&) {
        const nlohmann::json hello = runner->request({{"cmd", "hello"}}, 30);
        std::string reason, name, arch;
        long long memory = 0;
        if (!hello.value("ok", false) || !hello.value("driver", false)) {
            reason = hello.value("error", std::string("the GPU runner did not start"));
        } else {
            const nlohmann::json devices = listDevices(*runner);
            if (devices.value("ok", false) && !devices["devices"].empty()) {
                name = devices["devices"][0].value("name", "");
                arch = devices["devices"][0].value("arch", "");
                memory = devices["devices"][0].value("memory_bytes", 0LL);
            } else {
                reason = devices.value("error", std::string("no CUDA device is visible"));
            }
        }
        m_mailbox.post([this, reason, name, arch, memory] {
            m_state = reason.empty() ? RunnerState::Ready : RunnerState::Unavailable;
            m_unavailable = reason;
            m_deviceName = name;
            m_deviceArch = arch;
            m_deviceMemoryBytes = memory;
        });
    });
}

RunModel::~RunModel() {
    m_runner->stop();  // a hung kernel must not keep the app from closing
}

void RunModel::resetSizes(const Template& tmpl) {
    m_sizeText.clear();
    for (const SizeSpec& s : tmpl.manifest().sizes) m_sizeText[s.name] = std::to_string(s.defaultValue);
    m_sizesTemplate = tmpl.id();
    m_presetSizes.clear();
}

void RunModel::usePresetSizes(const Template& tmpl, const engine::PreselectedSet& set) {
    if (set.sizes.empty()) return;
    resetSizes(tmpl);
    for (const auto& [name, value] : set.sizes) m_sizeText[name] = value;
    m_presetSizes = set.name;
    m_presetSizeText = m_sizeText;
}

void RunModel::start(std::shared_ptr<const Template> tmpl, const Config& config, const Arch& arch, const CompileResult& compiled,
                     const std::string& source) {
    if (running()) return;
    const SizeMap sizes = tmpl->withSizes(m_sizeText);  // throws on bad text, before anything starts
    RunOptions options;
    options.reps = reps;
    options.memoryCounters = memoryCounters;
    options.timeoutSeconds = timeoutSeconds;
    options.deviceMemoryBytes = m_deviceMemoryBytes;  // sizes that cannot fit are refused before any upload
    options.arches = m_arches;
    auto runner = m_runner;
    auto kept = std::make_shared<const CompileResult>(compiled);
    const std::string archName = arch.name;
    m_cancelled = false;
    m_started = std::chrono::steady_clock::now();
    ++m_runsStarted;
    // The worker keeps its own copy of the arch: the editor may switch arches while it runs.
    m_job = m_jobs.submit("run", [this, runner, tmpl, config, arch, kept, sizes, options, archName, source](Job& job) mutable {
        options.onStage = [&job](const std::string& s) { job.setStage(s); };
        RunReport report = runVariant(*runner, *tmpl, config, arch, sizes, *kept, options);
        m_mailbox.post([this, report = std::move(report), archName, config, source, kept]() mutable {
            const bool cancelled = m_cancelled && !report.ok;
            if (cancelled) report.error = "cancelled: the runner was stopped";
            m_history.push_back({report.variant, archName, report, clockText()});
            ++m_runsLanded;
            m_finished.push_back({archName, config, source, kept, std::move(report), cancelled});
        });
    });
    m_job->setStage("starting");
}

void RunModel::startPlantedFault(const std::string& kind) {
    if (running()) return;
    auto runner = m_runner;
    const double timeout = timeoutSeconds;
    m_cancelled = false;
    m_started = std::chrono::steady_clock::now();
    ++m_runsStarted;
    m_job = m_jobs.submit("planted fault", [this, runner, kind, timeout](Job& job) {
        job.setStage("launching a planted " + kind + " kernel");
        RunReport report = runPlantedFault(*runner, kind, timeout);
        m_mailbox.post([this, report = std::move(report)]() mutable {
            if (m_cancelled && !report.ok) report.error = "cancelled: the runner was stopped";
            m_history.push_back({report.variant, m_deviceArch, std::move(report), clockText()});
            ++m_runsLanded;
        });
    });
    m_job->setStage("starting");
}

bool RunModel::windowDrawnByRunGpu() const {
    if (windowRenderer.empty() || m_deviceName.empty()) return false;
    auto lower = [](std::string t) {
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return t;
    };
    return lower(windowRenderer).find(lower(m_deviceName)) != std::string::npos;
}

void RunModel::cancel() {
    if (!running()) return;
    m_cancelled = true;
    m_runner->stop();
}

std::string RunModel::stage() const { return m_job ? m_job->stage() : std::string(); }

double RunModel::runningSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
}

std::vector<const RunRecord*> RunModel::historyFor(const std::string& variant) const {
    std::vector<const RunRecord*> out;
    for (auto it = m_history.rbegin(); it != m_history.rend(); ++it)
        if (it->variant == variant) out.push_back(&*it);
    return out;
}

const RunRecord* RunModel::latestFor(const std::string& variant) const {
    const auto all = historyFor(variant);
    return all.empty() ? nullptr : all.front();
}

std::vector<RooflinePoint> RunModel::pointsFor(const std::string& variant) const {
    std::vector<RooflinePoint> points;
    for (const RunRecord* r : historyFor(variant)) {
        std::string label = "measured";
        for (const auto& [k, v] : r->report.sizes) label += " " + k + "=" + std::to_string(v);
        for (RooflinePoint& p : engine::measuredRooflinePoints(r->report, label)) points.push_back(std::move(p));
    }
    return points;
}

void RunModel::update() { m_mailbox.drain(); }

}  // namespace kx::app
