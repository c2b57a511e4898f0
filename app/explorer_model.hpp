// The application's model: what is selected (template, arch, config), what that yields at once
// (violations, name, rendered source, launch geometry) and what arrives later (the compile result).
//
// Views read it through const accessors and change it only through the edit methods, which
// re-validate synchronously (cheap) and schedule a recompile after a short debounce. Compiles run
// on a JobQueue worker and come back through a Mailbox drained by update(); a result older than the
// latest edit is discarded, so the UI never shows PTX of a config it no longer displays.
// Not thread-safe: call everything from the UI thread.
#pragma once

#include "analysis/roofline.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "compile/hip_compiler.hpp"
#include "compile/neighbour_prefetch.hpp"
#include "compile/variant_build.hpp"
#include "jobs/job_queue.hpp"
#include "compare_model.hpp"
#include "run_model.hpp"
#include "session_model.hpp"
#include "templates/share_string.hpp"
#include "templates/template_library.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx::app {

enum class CompilePhase {
    Idle,       // nothing selected yet
    Scheduled,  // an edit is waiting out the debounce
    Running,    // a job for the latest edit is queued or compiling
    Ready,      // the latest edit compiled (ok or not): compileResult() is current
    Skipped,    // the latest edit cannot be compiled: see skipReason()
};

class ExplorerModel {
public:
    using Clock = std::chrono::steady_clock;

    // Loads arches and templates from dataRoot, and the user's templates from userTemplatesDir;
    // compiled artifacts are cached under cacheDir. Load problems do not throw: they are listed
    // in loadWarnings().
    ExplorerModel(std::filesystem::path dataRoot, std::filesystem::path cacheDir, std::filesystem::path userTemplatesDir);
    ~ExplorerModel();
    ExplorerModel(const ExplorerModel&) = delete;
    ExplorerModel& operator=(const ExplorerModel&) = delete;

    // --- Catalogue -------------------------------------------------------------------------
    const engine::ArchDatabase& archDatabase() const { return m_arches; }
    const engine::TemplateLibrary& library() const { return m_library; }
    const std::vector<std::string>& loadWarnings() const { return m_loadWarnings; }
    const std::filesystem::path& dataRoot() const { return m_dataRoot; }
    // Where the user's own templates live (and new ones are written).
    const std::filesystem::path& userTemplatesDir() const { return m_userTemplatesDir; }
    // Adds a user template to the library, or replaces the one with its id (an edit of its
    // files). When it is the editor's template, the editor moves to the new version, keeping the
    // parameter values it still allows and the flags, and recompiles. Throws engine::InputError
    // when a shipped template has the id.
    void putUserTemplate(std::shared_ptr<const engine::Template> tmpl);
    const std::string& compilerVersion() const { return m_compilerVersion; }

    // --- Selection and edits (each returns false / throws without changing anything) ------
    // Switching template resets the config to its defaults; switching arch keeps the config.
    bool selectTemplate(std::string_view id);
    bool selectArch(std::string_view name);
    // Throws engine::InputError when the key is not a parameter or the value is not allowed.
    void setParam(const std::string& key, const std::string& value);
    void resetToDefaults();
    // A whole config (its values and flags) as one edit: a preset. Throws engine::InputError when
    // a key is not a parameter or a value is not allowed, with nothing changed.
    void setConfig(const engine::Config& config);
    // The compiler flags of the variant (part of its identity and name: "..._r64"). Throws
    // engine::InputError on an unknown flag or a value out of range.
    void setFlag(const std::string& key, const std::string& value);
    void setFlags(const engine::CompileFlags& flags);
    const engine::CompileFlags& flags() const { return m_config.flags; }
    // Puts a share string's variant in the editor (template, arch, config with its flags, the Run
    // panel's sizes), a user template it carries joining the library (engine::openShare, under
    // userTemplatesDir()). Throws engine::InputError / OutputError as engine::openShare does,
    // with nothing changed.
    engine::OpenedShare openShare(const engine::ShareData& data);

    const engine::Template* currentTemplate() const { return m_template.get(); }
    const engine::Arch* currentArch() const { return m_arch; }
    const engine::Config& config() const { return m_config; }
    // The parameter's current value as canonical text; empty when unknown.
    std::string paramValue(const std::string& key) const;

    // --- Derived at once on every edit ----------------------------------------------------
    // nullptr when nothing is selected or preparation failed (see prepareError()).
    const engine::PreparedVariant* variant() const { return m_variant ? &*m_variant : nullptr; }
    const std::string& prepareError() const { return m_prepareError; }
    bool isValid() const { return m_variant && m_variant->violations.empty(); }
    // Launch for the Run panel's problem sizes (the template's defaults while they do not parse);
    // nullopt when it could not be evaluated.
    const std::optional<engine::LaunchGeometry>& launch() const { return m_launch; }
    const engine::SizeMap& sizes() const { return m_sizes; }
    const std::string& launchError() const { return m_launchError; }
    // The kernel that does the work, which the Resources view opens on: the launch's, or with no
    // launch (sizes the template refuses) the one named after the variant, the primary launch's.
    std::string primaryKernel() const;

    // --- Compilation ----------------------------------------------------------------------
    CompilePhase phase() const { return m_phase; }
    // The latest result that arrived; it may belong to an older edit (see resultIsCurrent()),
    // which views show dimmed while the new one compiles. nullptr before the first one.
    const engine::CompileResult* compileResult() const { return m_result ? &*m_result : nullptr; }
    bool resultIsCurrent() const { return m_result && m_resultGeneration == m_generation; }
    const std::string& resultName() const { return m_resultName; }  // config name of compileResult()
    const std::string& skipReason() const { return m_skipReason; }
    // AMD arches compile the template's HIP source with clang 19 (engine/compile/hip_compiler):
    // the latest result, or nullptr. It may belong to an older edit (hipResultIsCurrent()).
    // compileResult() stays NVIDIA's.
    const engine::HipCompileResult* hipResult() const { return m_hipResult ? &*m_hipResult : nullptr; }
    bool hipResultIsCurrent() const { return m_hipResult && m_hipResultGeneration == m_generation; }
    const std::string& hipCompilerVersion() const { return m_hipCompilerVersion; }
    // True when the current variant is HIP for an AMD arch (what hipResult() describes).
    bool compilesHip() const { return m_variant && m_variant->language == "hip"; }
    // Bumped on every edit; a compile result carries the generation it was started for.
    std::uint64_t generation() const { return m_generation; }
    // Speculative compiles of the configs one edit away, after each compile (on by default;
    // scripted runs turn it off so their timings and CPU use stay the user's own).
    void setPrefetch(bool on);
    bool prefetch() const { return m_prefetchOn; }
    // The config name being compiled (for the status bar); empty when none.
    const std::string& compilingName() const { return m_compilingName; }
    // True when no debounce is pending and no compile for the latest edit is in flight.
    bool compileIdle() const;

    // --- Runs -----------------------------------------------------------------------------
    // Runs on the GPU: runner status, problem sizes, the run in flight, history per variant.
    RunModel& runs() { return m_runs; }
    const RunModel& runs() const { return m_runs; }
    // The device the panels draw an arch on (roofline, waves): this machine's GPU when the runner
    // names one of the arch's compute capability, else the arch's usual device; nullptr when none.
    const engine::DeviceSpec* deviceForArch(const engine::Arch& arch) const;
    // Starts a run of the current, compiled variant. Throws engine::InputError naming what is
    // missing (not compiled, invalid, bad sizes).
    void runCurrent();
    // Measured roofline points of the current variant's runs, drawn by the Roofline panel.
    const std::vector<engine::RooflinePoint>& measuredPoints() const { return m_measuredPoints; }

    // --- Session and comparison -------------------------------------------------------------
    // The session file: kept variants, their runs, the editor state (session_model.hpp). Runs
    // of the current variant are recorded there as they end; the editor state is saved shortly
    // after each edit and restored when a session opens.
    SessionModel& session() { return m_session; }
    const SessionModel& session() const { return m_session; }
    // The session's variants as the Compare view sees them. Keep the current one with
    // compare().keep(*this).
    CompareModel& compare() { return m_compare; }
    const CompareModel& compare() const { return m_compare; }
    // Puts a kept variant in the editor (its template, arch and config). False when the session
    // has no such variant or its template or arch is unknown here.
    bool loadVariant(std::int64_t variantId);
    // The editor's template, arch, config and run sizes as JSON, and back. restore returns false
    // when the text is not such JSON or names an unknown template; unknown keys are skipped.
    std::string editorStateJson() const;
    bool restoreEditorState(const std::string& json);
    // Writes the editor state now instead of after the usual short delay (scripts, quitting).
    void saveEditorStateNow() {
        m_editorStateDue = Clock::now();
        updateSession();
    }

    // Once per frame on the UI thread: applies arrived results, starts a debounced compile.
    void update();

private:
    void edited();          // re-derive and schedule
    void updateSession();   // session results, runs to record, the editor state to save
    void derive();          // violations, source, launch for the current selection
    void deriveLaunch();    // launch geometry for the Run panel's sizes (derive() calls it)
    void startCompile();
    // final: the last stage of the edit's compile; before it, result holds the PTX only.
    void onCompiled(std::uint64_t generation, std::string name, engine::CompileResult result, bool final);
    void startHipCompile();
    void onHipCompiled(std::uint64_t generation, std::string name, engine::HipCompileResult result);

    std::filesystem::path m_dataRoot;
    std::filesystem::path m_userTemplatesDir;
    engine::ArchDatabase m_arches;
    engine::TemplateLibrary m_library;
    std::vector<std::string> m_loadWarnings;
    std::string m_compilerVersion;
    std::shared_ptr<engine::Compiler> m_compiler;
    std::shared_ptr<engine::HipCompiler> m_hipCompiler;
    std::string m_hipCompilerVersion;  // "clang 19.1.7", empty when clang 19 is absent
    std::optional<engine::HipCompileResult> m_hipResult;
    std::uint64_t m_hipResultGeneration = 0;

    std::shared_ptr<const engine::Template> m_template;
    const engine::Arch* m_arch = nullptr;  // points into m_arches, which never changes
    engine::Config m_config;

    std::optional<engine::PreparedVariant> m_variant;
    std::string m_prepareError;
    std::optional<engine::LaunchGeometry> m_launch;
    engine::SizeMap m_sizes;
    std::map<std::string, std::string> m_launchSizeText;  // the Run panel's sizes m_launch was derived for
    std::string m_launchError;

    CompilePhase m_phase = CompilePhase::Idle;
    std::uint64_t m_generation = 0;
    std::optional<Clock::time_point> m_compileDue;
    std::optional<engine::CompileResult> m_result;
    std::uint64_t m_resultGeneration = 0;
    std::string m_resultName;
    std::string m_skipReason;
    std::string m_compilingName;
    std::vector<engine::RooflinePoint> m_measuredPoints;
    std::shared_ptr<engine::Job> m_job;
    std::string m_lastEdited, m_lastPrevious;  // the parameter edited last and its value before
    bool m_prefetchOn = true;
    engine::NeighbourPrefetcher m_prefetch{m_compiler};

    RunModel m_runs;
    SessionModel m_session{m_library, m_arches};
    CompareModel m_compare{m_session};
    std::uint64_t m_sessionOpenSerial = 0;   // the session open whose state was restored
    std::optional<Clock::time_point> m_editorStateDue;
    std::string m_savedEditorState;

    // Declared last so they are destroyed first: the queue joins its worker while the mailbox
    // and compiler it posts to are still alive.
    engine::Mailbox m_mailbox;
    engine::JobQueue m_jobs{1, engine::WorkerPriority::Background};  // compiles: the frames go first
};

}  // namespace kx::app
