#include "explorer_model.hpp"

#include "analysis/roofline_scene.hpp"
#include "clock_text.hpp"
#include "run/run_limits.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <utility>

namespace kx::app {

namespace {

// Long enough to swallow a slider drag or a burst of keystrokes, short enough to feel live.
constexpr auto kCompileDebounce = std::chrono::milliseconds(150);

// Long enough that a burst of edits is one write of the editor state.
constexpr auto kEditorStateDelay = std::chrono::seconds(1);

// Preferred start-up arch: the one our users' GPUs (H100/H200) are.
constexpr std::string_view kDefaultArch = "sm_90";
constexpr std::string_view kDefaultTemplate = "gemm";

}  // namespace

ExplorerModel::ExplorerModel(std::filesystem::path dataRoot, std::filesystem::path cacheDir, std::filesystem::path userTemplatesDir)
    : m_dataRoot(std::move(dataRoot)),
      m_userTemplatesDir(std::move(userTemplatesDir)),
      m_arches(engine::ArchDatabase::loadFromDataRoot(m_dataRoot)),
      m_library(engine::TemplateLibrary::load(m_dataRoot / "templates", {m_userTemplatesDir})),
      m_compilerVersion(engine::nvrtcVersionString()),
      m_compiler(std::make_shared<engine::Compiler>(cacheDir)),
      // Beside the NVRTC cache (".../nvrtc" -> ".../hip"), as kx keeps them.
      m_hipCompiler(std::make_shared<engine::HipCompiler>(cacheDir.parent_path() / "hip", m_dataRoot / "assets/hip/kx_hip_prelude.h")),
      m_hipCompilerVersion(engine::hipClangVersion()) {
    m_runs.setArchDatabase(&m_arches);
    for (const auto& e : m_arches.errors()) m_loadWarnings.push_back(e.toString());
    for (const auto& e : m_library.errors()) m_loadWarnings.push_back(e.toString());
    if (m_arches.arches().empty()) m_loadWarnings.push_back("no architectures under " + (m_dataRoot / "assets/arch").string());
    if (m_library.templates().empty()) m_loadWarnings.push_back("no templates under " + (m_dataRoot / "templates").string());

    if (!selectArch(kDefaultArch)) {
        for (const auto& a : m_arches.arches()) {
            if (a.vendor == engine::Vendor::Nvidia && a.compilable) {
                selectArch(a.name);
                break;
            }
        }
    }
    // The flagship kernel first, not the alphabetically first (attention, a late lesson).
    if (!selectTemplate(kDefaultTemplate) && !m_library.templates().empty()) selectTemplate(m_library.templates().front()->id());
}

ExplorerModel::~ExplorerModel() {
    if (m_job) m_job->cancel();
}

bool ExplorerModel::selectTemplate(std::string_view id) {
    auto t = m_library.find(id);
    if (!t) return false;
    m_template = std::move(t);
    m_config = m_template->defaultConfig();
    m_runs.resetSizes(*m_template);
    edited();
    return true;
}

bool ExplorerModel::selectArch(std::string_view name) {
    const engine::Arch* a = m_arches.findArch(name);
    if (a == nullptr) return false;
    m_arch = a;
    edited();
    return true;
}

void ExplorerModel::setParam(const std::string& key, const std::string& value) {
    if (!m_template) throw engine::InputError("no template selected");
    engine::Config next = m_template->withValues(m_config, {{key, value}});
    if (next == m_config) return;  // a click on the current value is not an edit
    m_lastEdited = key;
    m_lastPrevious = paramValue(key);
    m_config = std::move(next);
    edited();
}

void ExplorerModel::resetToDefaults() {
    if (!m_template) return;
    m_config = m_template->defaultConfig();
    edited();
}

void ExplorerModel::setConfig(const engine::Config& config) {
    if (!m_template) throw engine::InputError("no template selected");
    engine::Config next = m_template->withValues(m_template->defaultConfig(), config.values);
    next.flags = config.flags;
    if (next == m_config) return;
    m_config = std::move(next);
    edited();
}

void ExplorerModel::setFlag(const std::string& key, const std::string& value) {
    setFlags(engine::withFlag(m_config.flags, key, value));
}

void ExplorerModel::setFlags(const engine::CompileFlags& flags) {
    if (flags == m_config.flags) return;
    m_config.flags = flags;
    edited();
}

void ExplorerModel::putUserTemplate(std::shared_ptr<const engine::Template> tmpl) {
    m_library.putUser(tmpl);
    if (!m_template || m_template->id() != tmpl->id()) return;
    // The same values where the new manifest still allows them: an edit of the source keeps
    // the config; an edit of the manifest keeps what it can.
    engine::Config config = tmpl->defaultConfig();
    for (const auto& [key, value] : m_config.values) {
        try {
            config = tmpl->withValues(config, {{key, value}});
        } catch (const engine::InputError&) {
        }
    }
    config.flags = m_config.flags;
    m_template = std::move(tmpl);
    m_config = std::move(config);
    // The Run panel keeps the sizes typed there unless the manifest's sizes changed.
    std::vector<std::string> names;
    for (const engine::SizeSpec& size : m_template->manifest().sizes) names.push_back(size.name);
    std::vector<std::string> shown;
    for (const auto& entry : m_runs.sizeText()) shown.push_back(entry.first);
    std::sort(names.begin(), names.end());
    if (names != shown) m_runs.resetSizes(*m_template);
    edited();
}

engine::OpenedShare ExplorerModel::openShare(const engine::ShareData& data) {
    engine::OpenedShare opened = engine::openShare(data, m_library, m_arches, m_userTemplatesDir);
    m_arch = opened.arch;
    m_template = opened.tmpl;
    m_config = opened.config;
    m_runs.resetSizes(*m_template);
    for (const auto& [name, value] : opened.sizes)
        if (auto it = m_runs.sizeText().find(name); it != m_runs.sizeText().end()) it->second = std::to_string(value);
    edited();
    return opened;
}

std::string ExplorerModel::paramValue(const std::string& key) const {
    auto it = m_config.values.find(key);
    return it == m_config.values.end() ? std::string() : it->second;
}

void ExplorerModel::edited() {
    ++m_generation;
    m_editorStateDue = Clock::now() + kEditorStateDelay;
    m_prefetch.stop();  // the neighbours of the old config are not this one's
    derive();
    if (m_template == nullptr || m_arch == nullptr) {
        m_phase = CompilePhase::Idle;
        m_compileDue.reset();
        return;
    }
    // Decide now whether a compile is possible, so the status bar says why not without waiting.
    m_skipReason.clear();
    if (!m_variant) {
        m_skipReason = "cannot render: " + m_prepareError;
    } else if (!m_variant->violations.empty()) {
        const auto n = m_variant->violations.size();
        m_skipReason = fmt::format("not compiled: {} violated constraint{}", n, n == 1 ? "" : "s");
    } else if (m_arch->vendor != engine::Vendor::Nvidia) {
        if (!compilesHip()) m_skipReason = fmt::format("not compiled: {} has no HIP source for {}", m_template->id(), m_arch->name);
        else if (m_hipCompilerVersion.empty()) m_skipReason = "not compiled: " + engine::hipClangMissingMessage();
    } else if (!m_arch->compilable) {
        m_skipReason = fmt::format("not compiled: {} is analysis-only ({} cannot target it)", m_arch->name,
                                   m_compilerVersion);
    }
    if (!m_skipReason.empty()) {
        m_phase = CompilePhase::Skipped;
        m_compileDue.reset();
        if (m_job) m_job->cancel();
        m_job.reset();
        m_compilingName.clear();
        return;
    }
    m_phase = CompilePhase::Scheduled;
    m_compileDue = Clock::now() + kCompileDebounce;
}

void ExplorerModel::derive() {
    m_variant.reset();
    m_prepareError.clear();
    m_launch.reset();
    m_launchError.clear();
    m_sizes.clear();
    if (m_template == nullptr || m_arch == nullptr) return;
    // A template without a HIP source has nothing to validate or compile on an AMD arch, only
    // the occupancy calculator to use.
    const auto& langs = m_template->manifest().languages;
    if (m_arch->vendor == engine::Vendor::Amd && std::find(langs.begin(), langs.end(), "hip") == langs.end()) {
        m_prepareError = m_template->id() + " has CUDA source only: pick an NVIDIA arch to compile it (" + m_arch->name +
                         " is here for its occupancy calculator)";
        m_launchError = m_prepareError;
        return;
    }
    try {
        m_variant = engine::prepareVariant(*m_template, m_config, *m_arch);
    } catch (const std::exception& e) {
        m_prepareError = e.what();
    }
    deriveLaunch();
}

// The launch geometry (grid, block, dynamic shared memory: what occupancy, the Launch panel and
// the roofline's predicted point describe) for the Run panel's problem sizes when they parse,
// else for the template's defaults; conv_wgmma's shared memory, for one, depends on the problem.
void ExplorerModel::deriveLaunch() {
    m_launch.reset();
    m_launchError.clear();
    m_launchSizeText = m_runs.sizeText();
    m_sizes = m_template->defaultSizes();
    if (m_runs.sizesTemplate() == m_template->id()) {
        try {
            m_sizes = m_template->withSizes(m_launchSizeText);
        } catch (const std::exception&) {
            // Half-typed or invalid sizes: the Run panel says what is wrong; keep the defaults here.
        }
    }
    try {
        m_launch = m_template->launch(m_config, *m_arch, m_sizes);
    } catch (const std::exception& e) {
        // An invalid config may make the launch formulas meaningless (division by zero, ...).
        m_launchError = e.what();
    }
}

const engine::DeviceSpec* ExplorerModel::deviceForArch(const engine::Arch& arch) const {
    const engine::DeviceSpec* d = nullptr;
    if (m_runs.runnerState() == RunnerState::Ready) d = engine::deviceForGpuName(archDatabase(), arch, m_runs.deviceName());
    return d != nullptr ? d : engine::rooflineDeviceForArch(archDatabase(), arch);
}

std::string ExplorerModel::primaryKernel() const {
    if (m_launch) return m_launch->kernel;
    return m_variant ? m_variant->name : std::string();
}

bool ExplorerModel::compileIdle() const {
    return !m_compileDue && m_job == nullptr;
}

void ExplorerModel::update() {
    // Sample "finished" before draining: a job posts its result before it is marked finished,
    // so a finished job's result is always in this drain and idle never runs ahead of it.
    const bool jobFinished = m_job && m_job->finished();
    m_mailbox.drain();
    if (jobFinished) {
        m_job.reset();
        // A job that threw past its own catch posts nothing; do not spin forever.
        if (m_phase == CompilePhase::Running) {
            m_phase = CompilePhase::Skipped;
            m_skipReason = "the compile job ended without a result";
            m_compilingName.clear();
        }
    }
    if (m_compileDue && Clock::now() >= *m_compileDue) {
        m_compileDue.reset();
        startCompile();
    }
    m_runs.update();
    // Sizes typed in the Run panel (or set by a tutorial or a session) move the launch with them.
    if (m_template && m_arch && m_variant && m_runs.sizeText() != m_launchSizeText) deriveLaunch();
    updateSession();
    m_measuredPoints = m_variant ? m_runs.pointsFor(m_variant->name) : std::vector<engine::RooflinePoint>{};
}

void ExplorerModel::runCurrent() {
    if (!m_template || !m_arch || !m_variant) throw engine::InputError("nothing to run: pick a template and an arch");
    if (!m_variant->violations.empty()) throw engine::InputError("this config is not valid: fix the violated constraints first");
    if (const std::string why = engine::notRunnableReason(*m_template); !why.empty()) throw engine::InputError(why);
    if (!resultIsCurrent() || !m_result || !m_result->ok || !m_result->assembled)
        throw engine::InputError("this config has not compiled yet");
    if (m_runs.runnerState() == RunnerState::Ready)
        if (const std::string mismatch = engine::deviceArchMismatch(*m_arch, m_runs.deviceArch()); !mismatch.empty())
            throw engine::InputError(mismatch);
    m_runs.start(m_template, m_config, *m_arch, *m_result, m_variant->source);
}

void ExplorerModel::updateSession() {
    m_session.update();
    const SessionDataPtr& data = m_session.data();
    if (data && data->openSerial != m_sessionOpenSerial) {
        // A session was opened: back to where the user was in it, with its runs as history.
        m_sessionOpenSerial = data->openSerial;
        if (!data->editorState.empty()) restoreEditorState(data->editorState);
        m_savedEditorState = data->editorState;
        std::vector<std::pair<std::int64_t, RunRecord>> byId;
        for (const SessionEntry& e : data->entries)
            for (const engine::StoredRun& r : e.runs)
                byId.push_back({r.id, {r.report.variant, e.variant.arch, r.report, localTimeText(r.createdAt)}});
        std::sort(byId.begin(), byId.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<RunRecord> history;
        for (auto& [id, record] : byId) history.push_back(std::move(record));
        // What landed while the session was opening stays: planted faults (never stored) and the
        // runs that are stored below, once it is open.
        const std::vector<RunRecord>& before = m_runs.history();
        auto isFault = [](const RunRecord& r) { return r.variant.rfind(engine::kPlantedFaultPrefix, 0) == 0; };
        std::size_t unstored = m_runs.pendingFinished();  // the last runs of the history that are not faults
        std::vector<bool> keep(before.size(), false);
        for (std::size_t i = before.size(); i-- > 0;) {
            if (isFault(before[i])) {
                keep[i] = true;
            } else if (unstored > 0) {
                keep[i] = true;
                --unstored;
            }
        }
        for (std::size_t i = 0; i < before.size(); ++i)
            if (keep[i]) history.push_back(before[i]);
        m_runs.setHistory(std::move(history));
        m_editorStateDue.reset();
    }
    // A run that lands while a session is opening waits for it, to be stored there.
    const bool opening = !m_session.isOpen() && m_session.busy();
    for (FinishedRun& f : opening ? std::vector<FinishedRun>{} : m_runs.takeFinished()) {
        if (f.cancelled || !m_session.isOpen() || m_session.readOnly()) continue;
        m_session.recordRun(f.report.variant, f.arch, f.config, f.source, f.compiled, f.report);
    }
    if (m_editorStateDue && Clock::now() >= *m_editorStateDue) {
        m_editorStateDue.reset();
        std::string state = editorStateJson();
        if (m_session.isOpen() && !m_session.readOnly() && state != m_savedEditorState) {
            m_session.saveEditorState(state);
            m_savedEditorState = std::move(state);
        }
    }
}

void ExplorerModel::setPrefetch(bool on) {
    m_prefetchOn = on;
    if (!on) m_prefetch.stop();
}

bool ExplorerModel::loadVariant(std::int64_t variantId) {
    const SessionDataPtr& data = m_session.data();
    const SessionEntry* e = data ? data->find(variantId) : nullptr;
    if (e == nullptr || !m_library.find(e->variant.config.templateId) || !m_arches.findArch(e->variant.arch)) return false;
    nlohmann::json state = {{"template", e->variant.config.templateId},
                            {"arch", e->variant.arch},
                            {"config", e->variant.config.values},
                            {"flags", e->variant.config.flags.canonical()}};
    return restoreEditorState(state.dump());
}

std::string ExplorerModel::editorStateJson() const {
    nlohmann::json j = nlohmann::json::object();
    if (m_template) j["template"] = m_template->id();
    if (m_arch) j["arch"] = m_arch->name;
    j["config"] = m_config.values;
    j["flags"] = m_config.flags.canonical();
    j["sizes"] = m_runs.sizeText();
    return j.dump();
}

bool ExplorerModel::restoreEditorState(const std::string& json) {
    const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
    if (!j.is_object() || !j.contains("template") || !j["template"].is_string()) return false;
    const std::string arch = j.value("arch", std::string());
    if (!arch.empty() && m_arches.findArch(arch)) selectArch(arch);
    auto tmpl = m_library.find(j["template"].get<std::string>());
    if (!tmpl) return false;
    if (!m_template || m_template->id() != tmpl->id()) selectTemplate(tmpl->id());
    // One value at a time: a key this version no longer has, or a value it no longer allows,
    // is skipped and the rest still applies.
    engine::Config config = m_template->defaultConfig();
    if (j.contains("config") && j["config"].is_object()) {
        for (const auto& [key, value] : j["config"].items()) {
            if (!value.is_string()) continue;
            try {
                config = m_template->withValues(config, {{key, value.get<std::string>()}});
            } catch (const std::exception&) {
            }
        }
    }
    if (j.contains("flags") && j["flags"].is_string()) {
        try {
            config.flags = engine::parseCompileFlags(j["flags"].get<std::string>());
        } catch (const engine::InputError&) {
        }
    }
    if (config != m_config) {
        m_config = std::move(config);
        edited();
    }
    if (j.contains("sizes") && j["sizes"].is_object()) {
        for (const auto& [key, value] : j["sizes"].items()) {
            auto it = m_runs.sizeText().find(key);
            if (it != m_runs.sizeText().end() && value.is_string()) it->second = value.get<std::string>();
        }
    }
    return true;
}

void ExplorerModel::startCompile() {
    if (!m_variant) return;
    if (compilesHip()) {
        startHipCompile();
        return;
    }
    if (m_job) m_job->cancel();  // a queued stale job never runs; a running one is discarded
    m_phase = CompilePhase::Running;
    m_compilingName = m_variant->name;

    auto compiler = m_compiler;
    engine::CompileRequest request = m_variant->request;
    const std::uint64_t generation = m_generation;
    std::string name = m_variant->name;
    engine::Mailbox* mailbox = &m_mailbox;
    m_job = m_jobs.submit("compile " + name, [this, compiler, request, generation, name, mailbox](engine::Job& job) {
        if (job.cancelled()) return;
        // Two stages, each posted as it lands: the PTX (what an edit waits for), then the CUBIN
        // with the ptxas report.
        auto post = [&](engine::CompileResult r, bool final) {
            // The closure runs on the UI thread inside update(); `this` outlives the queue.
            mailbox->post([this, generation, name, r = std::move(r), final]() mutable {
                onCompiled(generation, name, std::move(r), final);
            });
        };
        engine::CompileResult result;
        try {
            job.setStage("nvrtc");
            result = compiler->compilePtx(request);
            if (result.ok && !job.cancelled()) {
                post(result, false);
                job.setStage("ptxas");
                const engine::CompileResult ptxStage = result;
                result = compiler->compile(request);
                // The full stage reads the PTX back from the cache the first stage just wrote, so
                // its own PTX time is 0: report the time this edit really waited for it.
                if (!result.fromCache && !ptxStage.fromCache && result.ptxMs == 0) {
                    result.ptxMs = ptxStage.ptxMs;
                    result.compileMs += ptxStage.ptxMs;
                }
            }
        } catch (const std::exception& e) {
            result.ok = false;
            result.log = std::string("internal error: ") + e.what();
        }
        post(std::move(result), true);
    });
}

void ExplorerModel::onCompiled(std::uint64_t generation, std::string name, engine::CompileResult result, bool final) {
    if (generation != m_generation) return;  // an older edit: the user has moved on
    m_result = std::move(result);
    m_resultGeneration = generation;
    m_resultName = std::move(name);
    if (!final) return;  // the PTX is in; the ptxas report is still coming
    m_phase = CompilePhase::Ready;
    m_compilingName.clear();
    if (m_prefetchOn && m_result->ok && m_template && m_arch) m_prefetch.start(m_template, m_config, *m_arch, m_lastEdited, m_lastPrevious);
}

// One clang run gives the ISA, the code object and the resources: one post, no second stage.
void ExplorerModel::startHipCompile() {
    if (m_job) m_job->cancel();
    m_phase = CompilePhase::Running;
    m_compilingName = m_variant->name;
    auto compiler = m_hipCompiler;
    const engine::HipCompileRequest request = engine::hipRequest(m_variant->request);
    const std::uint64_t generation = m_generation;
    std::string name = m_variant->name;
    engine::Mailbox* mailbox = &m_mailbox;
    m_job = m_jobs.submit("compile " + name, [this, compiler, request, generation, name, mailbox](engine::Job& job) {
        if (job.cancelled()) return;
        engine::HipCompileResult result;
        try {
            job.setStage("clang");
            result = compiler->compile(request);
        } catch (const std::exception& e) {
            result.ok = false;
            result.log = std::string("internal error: ") + e.what();
        }
        mailbox->post([this, generation, name, r = std::move(result)]() mutable { onHipCompiled(generation, name, std::move(r)); });
    });
}

void ExplorerModel::onHipCompiled(std::uint64_t generation, std::string name, engine::HipCompileResult result) {
    if (generation != m_generation) return;
    m_hipResult = std::move(result);
    m_hipResultGeneration = generation;
    m_resultName = std::move(name);
    m_phase = CompilePhase::Ready;
    m_compilingName.clear();
}

}  // namespace kx::app
