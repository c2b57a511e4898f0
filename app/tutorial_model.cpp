#include "tutorial_model.hpp"

#include "explorer_model.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace kx::app {

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {
// How long an action waits for a compile or a session write before it gives up.
constexpr std::chrono::seconds kActionWaitCap{120};
}  // namespace

TutorialModel::TutorialModel(ExplorerModel& model, fs::path dataRoot, fs::path welcomeFile)
    : m_model(model), m_library(TutorialLibrary::load(dataRoot / "tutorials")), m_welcomeFile(std::move(welcomeFile)) {
    for (const TutorialLoadError& e : m_library.errors()) m_loadErrors.push_back(e.message);
    std::error_code ec;
    m_welcomeDismissed = fs::exists(m_welcomeFile, ec);
}

const TutorialStep* TutorialModel::step() const {
    if (!m_current || m_step < 0 || m_step >= static_cast<int>(m_current->steps.size())) return nullptr;
    return &m_current->steps[static_cast<std::size_t>(m_step)];
}

std::optional<TutorialProgressInfo> TutorialModel::progress(const std::string& tutorialId) const {
    if (auto it = m_localProgress.find(tutorialId); it != m_localProgress.end()) return it->second;
    if (const SessionDataPtr& data = m_model.session().data())
        for (const TutorialProgress& p : data->tutorialProgress)
            if (p.tutorialId == tutorialId) return TutorialProgressInfo{p.step, p.state};
    return std::nullopt;
}

bool TutorialModel::open(const std::string& tutorialId) {
    auto t = m_library.find(tutorialId);
    if (!t) return false;
    m_current = std::move(t);
    m_action.reset();
    m_actionMessage.clear();
    m_actionsCompleted = 0;
    m_targets.clear();
    m_targetsError.clear();
    try {
        m_targets = stepTargets(*m_current, m_model.library(), m_model.archDatabase());
    } catch (const InputError& e) {
        m_targetsError = e.what();
    }
    const auto saved = progress(tutorialId);
    m_step = saved ? std::clamp(saved->step, 0, static_cast<int>(m_current->steps.size()) - 1) : 0;
    saveProgress();
    m_stateStep = -1;  // re-judge
    return true;
}

void TutorialModel::close() {
    m_current.reset();
    m_action.reset();
}

void TutorialModel::goToStep(int index) {
    if (!m_current) return;
    m_step = std::clamp(index, 0, static_cast<int>(m_current->steps.size()) - 1);
    m_action.reset();
    m_actionMessage.clear();
    saveProgress();
}

void TutorialModel::next() {
    if (!m_current) return;
    if (m_step + 1 >= static_cast<int>(m_current->steps.size())) {
        // Next on the last step finishes the tutorial.
        m_localProgress[m_current->id] = {m_step, "done"};
        m_model.session().setTutorialProgress(m_current->id, m_step, "done");
        return;
    }
    goToStep(m_step + 1);
}

void TutorialModel::back() { goToStep(m_step - 1); }

void TutorialModel::saveProgress() {
    if (!m_current) return;
    const auto previous = progress(m_current->id);
    const std::string state = previous && previous->state == "done" ? "done" : "active";
    m_localProgress[m_current->id] = {m_step, state};
    if (m_model.session().isOpen()) m_model.session().setTutorialProgress(m_current->id, m_step, state);
}

bool TutorialModel::stepPassed() const {
    return std::all_of(m_verdicts.begin(), m_verdicts.end(), [](const CheckVerdict& v) { return v.status == CheckStatus::Pass; });
}

// [SECTION] Welcome

bool TutorialModel::welcomeDue() const {
    if (m_welcomeDismissed || m_library.tutorials().empty()) return false;
    const SessionDataPtr& data = m_model.session().data();
    // Wait for the session (an old one means no first run); a scripted run's scratch session is
    // no first run either.
    if (!data || data->temporary) return false;
    return data->entries.empty() && data->tutorialProgress.empty() && m_localProgress.empty();
}

void TutorialModel::dismissWelcome() {
    m_welcomeDismissed = true;
    std::error_code ec;
    fs::create_directories(m_welcomeFile.parent_path(), ec);
    std::ofstream(m_welcomeFile) << "The first-run welcome was dismissed.\n";
}

// [SECTION] Actions

void TutorialModel::runAction(int index) {
    const TutorialStep* s = step();
    if (!s || index < 0 || index >= static_cast<int>(s->actions.size())) return;
    m_actionMessage.clear();
    m_action = ActionRun{index, 0, 0, std::chrono::steady_clock::now()};
    stepAction();  // most actions finish at once
}

void TutorialModel::stopAction(const std::string& why) {
    m_actionMessage = why;
    m_action.reset();
}

void TutorialModel::stepAction() {
    const TutorialStep* s = step();
    if (!m_action || !s) return;
    const TutorialAction& action = s->actions[static_cast<std::size_t>(m_action->index)];
    while (m_action && m_action->op < action.ops.size()) {
        if (!stepOp(action.ops[m_action->op])) return;  // waiting: again next frame
        if (!m_action) return;                          // stopped with a message
        ++m_action->op;
        m_action->phase = 0;
        m_action->phaseStart = std::chrono::steady_clock::now();
    }
    m_action.reset();
    ++m_actionsCompleted;
}

int TutorialModel::pinIndexOf(const std::map<std::string, std::string>& config) const {
    const auto& pins = m_model.compare().pins();
    const std::string arch = m_model.currentArch() ? m_model.currentArch()->name : "";
    const std::string templateId = m_model.currentTemplate() ? m_model.currentTemplate()->id() : "";
    for (std::size_t i = 0; i < pins.size(); ++i)
        if (pins[i]->templateId == templateId && pins[i]->arch == arch && pins[i]->config.values == config) return static_cast<int>(i);
    return -1;
}

bool TutorialModel::stepOp(const ActionOp& op) {
    const bool timedOut = std::chrono::steady_clock::now() - m_action->phaseStart > kActionWaitCap;
    auto setValues = [&](const std::map<std::string, std::string>& values) {
        for (const auto& [k, v] : values) m_model.setParam(k, v);
    };
    try {
        switch (op.kind) {
        case ActionOp::Kind::Select:
            if (!op.templateId.empty() && !m_model.selectTemplate(op.templateId)) {
                stopAction("unknown template '" + op.templateId + "'");
                return true;
            }
            if (!op.arch.empty() && !m_model.selectArch(op.arch)) {
                stopAction("unknown architecture '" + op.arch + "'");
                return true;
            }
            // A template starts from its defaults, compiler flags included.
            if (!op.templateId.empty()) m_model.setFlags({});
            return true;
        case ActionOp::Kind::Set: setValues(op.values); return true;
        case ActionOp::Kind::Flags: m_model.setFlags(op.flags); return true;
        case ActionOp::Kind::Size: {
            // The Run panel's problem sizes, as a learner would type them there.
            const auto tmpl = m_model.currentTemplate();
            if (!tmpl) {
                stopAction("no template to set sizes of");
                return true;
            }
            tmpl->withSizes(op.values);  // throws InputError on a size the template lacks, as the file check does
            RunModel& runs = m_model.runs();
            if (runs.sizesTemplate() != tmpl->id()) runs.resetSizes(*tmpl);
            for (const auto& [name, value] : op.values) runs.sizeText()[name] = value;
            return true;
        }
        case ActionOp::Kind::Open:
            if (m_hooks.openView && !m_hooks.openView(op.view)) stopAction("no view named '" + op.view + "'");
            return true;
        case ActionOp::Kind::Run: {
            RunModel& runs = m_model.runs();
            if (runs.runnerState() == RunnerState::Probing && !timedOut) return false;
            if (runs.runnerState() != RunnerState::Ready) {
                stopAction("Running needs an NVIDIA GPU: " + runs.unavailableReason() + ". The step shows the run recorded on a real GPU.");
                return true;
            }
            if (!m_model.compileIdle() && !timedOut) return false;
            m_model.runCurrent();
            return true;
        }
        case ActionOp::Kind::Compare: {
            // Phases: set A, wait for its compile, keep it, set B, wait, keep, wait for the
            // session to hold both, then open the Compare view on them.
            const bool compiled = m_model.compileIdle();
            switch (m_action->phase) {
            case 0:
                m_compareA = m_model.currentTemplate()->withValues(m_model.config(), op.a).values;
                m_compareB = m_model.currentTemplate()->withValues(m_model.config(), op.b).values;
                setValues(op.a);
                m_action->phase = 1;
                return false;
            case 1:
            case 3:
                if (!compiled) {
                    if (timedOut) stopAction("the compile did not finish in time");
                    return timedOut;
                }
                m_model.compare().keep(m_model);
                if (m_action->phase == 1) {
                    // B starts from the editor's config as it was, not from A.
                    for (const auto& [k, v] : m_compareB) m_model.setParam(k, v);
                }
                ++m_action->phase;
                m_action->phaseStart = std::chrono::steady_clock::now();
                return false;
            case 2: ++m_action->phase; return false;  // let B's edit land before the compile wait
            default: {
                const int a = pinIndexOf(m_compareA), b = pinIndexOf(m_compareB);
                if ((m_model.session().busy() || a < 0 || b < 0) && !timedOut) return false;
                if (a < 0 || b < 0) {
                    stopAction(m_model.session().error().empty() ? "the compared variants did not reach the session" : m_model.session().error());
                    return true;
                }
                if (m_hooks.compare) m_hooks.compare(a, b);
                return true;
            }
            }
        }
        }
    } catch (const InputError& e) {
        stopAction(e.what());
    }
    return true;
}

// [SECTION] State and verdicts

void TutorialModel::refreshState() {
    const CompileResult* result = m_model.compileResult();
    const std::uint64_t revision = m_model.session().revision();
    const std::uint64_t runCount = m_model.runs().history().size();
    // The result's storage stays put while its content moves on (PTX, then the ptxas report).
    const int stage = !result ? 0 : !m_model.resultIsCurrent() ? 1 : result->assembled ? 3 : 2;
    if (m_stateGeneration == m_model.generation() && m_stateSessionRevision == revision && m_stateResult == result &&
        m_stateStage == stage && m_stateRunCount == runCount && m_stateStep == m_step && m_stateTutorial == m_current.get())
        return;
    m_stateStage = stage;
    m_stateGeneration = m_model.generation();
    m_stateSessionRevision = revision;
    m_stateResult = result;
    m_stateRunCount = runCount;
    m_stateStep = m_step;
    m_stateTutorial = m_current.get();

    TutorialState s;
    const Template* tmpl = m_model.currentTemplate();
    const Arch* arch = m_model.currentArch();
    if (tmpl) {
        s.templateId = tmpl->id();
        s.config = m_model.config().values;
        s.flags = m_model.flags().canonical();
    }
    if (arch) s.arch = arch->name;
    if (!tmpl || !arch) {
        s.compileNote = "pick a template and an architecture";
    } else if (!m_model.isValid()) {
        s.compileNote = m_model.prepareError().empty() ? "the config breaks a constraint (see the Configuration panel)" : m_model.prepareError();
    } else if (!result || !m_model.resultIsCurrent()) {
        s.compileNote = "compiling";
    } else if (!result->ok) {
        s.compileNote = "the compiler failed (see the Log tab)";
        s.opcodes.clear();
    } else if (!result->assembled) {
        s.compileNote = "assembling (ptxas)";
        s.opcodes = ptxOpcodes(result->ptx);  // the PTX is there already
    } else {
        setCompileFacts(s, *tmpl, *arch, m_model.config(), result->ptx, result->kernels);
    }
    if (const SessionDataPtr& data = m_model.session().data()) {
        std::vector<std::pair<std::int64_t, RunFacts>> runs;
        for (const SessionEntry& e : data->entries)
            for (const StoredRun& r : e.runs) runs.emplace_back(r.id, runFacts(r.report, e.variant.config.templateId, e.variant.config.values,
                                                                                   e.variant.config.flags.canonical()));
        std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [id, facts] : runs) s.runs.push_back(std::move(facts));
    }
    m_state = std::move(s);
    m_verdicts.clear();
    if (m_current && m_targetsError.empty() && step()) m_verdicts = evaluateStep(*m_current, m_step, m_targets, m_state);
}

void TutorialModel::update() {
    if (m_action) stepAction();
    refreshState();
}

}  // namespace kx::app
