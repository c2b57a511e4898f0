// The tutorial player: which tutorial and step is open, the "Show me" actions in flight, the
// checkpoint verdicts on the editor's live state, progress kept in the session, and the first-run
// welcome.
//
// Actions drive the app through the same calls the script runner uses (select a template or
// arch, set parameters, open a view, run, keep and compare). An action runs over several frames:
// a run or a comparison waits for the compile (and the session write) it needs, so update() steps
// it once per frame and the UI never blocks. Not thread-safe: call everything from the UI thread.
#pragma once

#include "tutorial/checkpoint.hpp"
#include "tutorial/tutorial.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

class ExplorerModel;

// What the player asks of the application shell (views are the shell's, not the model's).
struct TutorialHooks {
    // Opens the code tab ("source", "ptx", "log") or the view titled so; false when none.
    std::function<bool(const std::string& view)> openView;
    // Opens the Compare view on the session's variants at these positions (pins()).
    std::function<void(int a, int b)> compare;
};

struct TutorialProgressInfo {
    int step = 0;
    std::string state;   // "active", "done"
};

class TutorialModel {
public:
    // Loads tutorials/ under the data root; load problems are listed in loadErrors().
    TutorialModel(ExplorerModel& model, std::filesystem::path dataRoot,
                  std::filesystem::path welcomeFile);
    void setHooks(TutorialHooks hooks) { m_hooks = std::move(hooks); }

    const engine::TutorialLibrary& library() const { return m_library; }
    const std::vector<std::string>& loadErrors() const { return m_loadErrors; }

    // --- Where the learner is --------------------------------------------------------------
    // Opens a tutorial at its saved step (or the first); false when unknown.
    bool open(const std::string& tutorialId);
    void close();  // back to the list
    const engine::Tutorial* current() const { return m_current.get(); }
    int stepIndex() const { return m_step; }
    const engine::TutorialStep* step() const;
    void next();
    void back();
    void goToStep(int index);
    // The step targets of the current tutorial (what its actions set up); empty with
    // targetsError() when the tutorial does not fit the templates.
    const std::vector<engine::StepTarget>& targets() const { return m_targets; }
    const std::string& targetsError() const { return m_targetsError; }

    // Progress kept in the session, by tutorial id.
    std::optional<TutorialProgressInfo> progress(const std::string& tutorialId) const;

    // --- Actions ----------------------------------------------------------------------------
    // Starts "Show me" number `index` of the current step; an action in flight is replaced.
    void runAction(int index);
    bool actionBusy() const { return m_action.has_value(); }
    int actionIndex() const { return m_action ? m_action->index : -1; }
    // What the last action said: "" when it went well, else why it stopped (no GPU, ...).
    const std::string& actionMessage() const { return m_actionMessage; }
    // Actions that ran to the end since the tutorial opened (for tests and the UI's ticks).
    int actionsCompleted() const { return m_actionsCompleted; }

    // --- Checkpoints ------------------------------------------------------------------------
    // The editor's live state, rebuilt when the compile result, the editor or the session changes.
    const engine::TutorialState& state() const { return m_state; }
    // One verdict per checkpoint of the current step.
    const std::vector<engine::CheckVerdict>& verdicts() const { return m_verdicts; }
    bool stepPassed() const;  // every checkpoint of the step passes (a step without any passes)

    // --- First-run welcome ------------------------------------------------------------------
    // True on a first run: never dismissed, and the session holds no variant and no progress.
    bool welcomeDue() const;
    // Remembers the dismissal (a file under the config folder) so the welcome never returns.
    void dismissWelcome();

    // Once per frame on the UI thread, after ExplorerModel::update().
    void update();

private:
    struct ActionRun {
        int index = 0;
        std::size_t op = 0;
        int phase = 0;  // within an op that waits: compare and run go through phases
        std::chrono::steady_clock::time_point phaseStart;
    };
    void stepAction();
    // The op's work for this frame; true when it is done.
    bool stepOp(const engine::ActionOp& op);
    void stopAction(const std::string& why);
    void refreshState();
    void saveProgress();
    int pinIndexOf(const std::map<std::string, std::string>& config) const;

    ExplorerModel& m_model;
    engine::TutorialLibrary m_library;
    std::vector<std::string> m_loadErrors;
    std::filesystem::path m_welcomeFile;
    bool m_welcomeDismissed = false;
    TutorialHooks m_hooks;

    std::shared_ptr<const engine::Tutorial> m_current;
    int m_step = 0;
    std::vector<engine::StepTarget> m_targets;
    std::string m_targetsError;
    std::map<std::string, TutorialProgressInfo> m_localProgress;  // written, maybe not yet read back

    std::optional<ActionRun> m_action;
    std::string m_actionMessage;
    int m_actionsCompleted = 0;
    std::map<std::string, std::string> m_compareA, m_compareB;  // the configs of a compare in flight

    engine::TutorialState m_state;
    std::vector<engine::CheckVerdict> m_verdicts;
    std::uint64_t m_stateGeneration = ~std::uint64_t{0};
    std::uint64_t m_stateSessionRevision = ~std::uint64_t{0};
    std::uint64_t m_stateRunCount = ~std::uint64_t{0};
    const void* m_stateResult = nullptr;
    int m_stateStage = -1;
    int m_stateStep = -1;
    const engine::Tutorial* m_stateTutorial = nullptr;
};

}  // namespace kx::app
