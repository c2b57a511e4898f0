// The session the app works in: one .kxs file (engine/store/session_store.hpp) holding the
// variants the user kept, their artifacts and runs, and the editor state. Every change is written
// at once (autosave): there is no unsaved state to lose.
//
// The file lives on a JobQueue worker of its own (one thread, so changes run one at a time in the
// order asked): the UI thread asks for changes and reads immutable SessionData snapshots posted
// back through a Mailbox after each change (variants, runs, and the Compare view's
// VariantSnapshots). A change to one variant re-reads only that variant; the other entries are
// copied from the previous snapshot (opening, Save As and failures re-read everything). Failures (a corrupt file, a taken
// name) come back as error() and leave the session as it was. The destructor finishes every queued
// change before closing the file, so quitting loses nothing that was asked for.
//
// Which file: --session FILE, else the most recent session, else a new one under
// engine::sessionsRoot(). Scripted runs without --session use a temporary one, deleted at exit.
// The recent list (most recent first, at most kMaxRecent) is kept in recent.json under
// engine::configRoot(), written whole by rename.
// Not thread-safe: call everything from the UI thread.
#pragma once

#include "compile/compiler.hpp"
#include "jobs/job_queue.hpp"
#include "run/variant_run.hpp"
#include "store/session_store.hpp"
#include "util/data_paths.hpp"
#include "variant_snapshot.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

struct SessionEntry {
    engine::SessionVariant variant;
    std::vector<engine::StoredRun> runs;  // oldest first
    SnapshotPtr snapshot;                 // never null
};

struct SessionData {
    std::filesystem::path path;
    bool readOnly = false;
    bool temporary = false;               // a scratch session, deleted at exit
    std::vector<SessionEntry> entries;    // by variant id
    std::string editorState;              // JSON saved by the editor; "" when none
    std::vector<engine::TutorialProgress> tutorialProgress;  // by tutorial id
    std::uint64_t openSerial = 0;         // bumped by every open, new and save-as

    const SessionEntry* find(std::int64_t variantId) const;
    const SessionEntry* findByName(const std::string& name) const;
};
using SessionDataPtr = std::shared_ptr<const SessionData>;

class SessionModel {
public:
    static constexpr std::size_t kMaxRecent = 10;

    // `library` and `arches` must outlive the model (they are read on the worker).
    SessionModel(const engine::TemplateLibrary& library, const engine::ArchDatabase& arches,
                 std::filesystem::path recentFile = engine::configRoot() / "recent.json");
    ~SessionModel();
    SessionModel(const SessionModel&) = delete;
    SessionModel& operator=(const SessionModel&) = delete;

    // --- The file. Each is queued; the outcome arrives in data() or error(). -----------------
    void open(const std::filesystem::path& file);           // an existing session
    void create(const std::filesystem::path& file);         // a new one; an existing file is an error
    void openOrCreate(const std::filesystem::path& file);
    // A copy of the whole session at `file` (replacing it whole when it exists), which then
    // becomes the session the app works in.
    void saveAs(const std::filesystem::path& file);
    // The most recent session that still opens, else a new one under sessionsRoot().
    void openDefault();
    // The demo session (real runs measured on an H100, sessions/demo.kxs under the data root),
    // as a copy under sessionsRoot() made on first use, so exploring it never changes the
    // original. An existing copy is opened as it is.
    void openDemo(const std::filesystem::path& demoFile);
    // A scratch session in a temporary folder, deleted when the model goes.
    void openTemporary();

    // --- Variants -------------------------------------------------------------------------
    // Keeps a compiled variant: its source, PTX, SASS (disassembled on the worker) and ptxas
    // report, under `name` (or "NAME@ARCH" / "NAME-2" when another config has that name). An
    // existing variant of the same config and arch is updated instead.
    void keep(const std::string& name, const std::string& arch, const engine::Config& config, const std::string& source,
              std::shared_ptr<const engine::CompileResult> compiled);
    // Records a run, keeping its variant first as keep() does.
    void recordRun(const std::string& name, const std::string& arch, const engine::Config& config, const std::string& source,
                   std::shared_ptr<const engine::CompileResult> compiled, const engine::RunReport& report);
    void rename(std::int64_t id, const std::string& newName);
    void duplicate(std::int64_t id);      // "NAME copy", "NAME copy 2", ...
    void remove(std::int64_t id);
    void setNotes(std::int64_t id, const std::string& notes);
    void saveEditorState(const std::string& json);
    // The tutorial player's place in a tutorial (one row per tutorial; read-only sessions skip it).
    void setTutorialProgress(const std::string& tutorialId, int step, const std::string& state);

    // --- State (UI thread) -------------------------------------------------------------------
    const SessionDataPtr& data() const { return m_data; }  // nullptr until a session is open
    bool isOpen() const { return m_data != nullptr; }
    bool readOnly() const { return m_data && m_data->readOnly; }
    // Changes queued, being written, or written but not yet applied by update().
    bool busy() const { return m_unapplied > 0; }
    // Bumped whenever data() changes.
    std::uint64_t revision() const { return m_revision; }
    const std::vector<std::filesystem::path>& recent() const { return m_recent; }
    // The latest failure in plain words; empty when none since clearError().
    const std::string& error() const { return m_error; }
    void clearError() { m_error.clear(); }
    // The latest success worth telling ("saved a copy as ...").
    const std::string& message() const { return m_message; }

    void update();  // once per frame on the UI thread: applies what the worker posted

private:
    struct Worker;
    struct Touched;  // what a change touched: what the next snapshot must read again
    // Queues `change` on the worker; `what` names it in an error ("cannot rename: ...").
    void enqueue(std::string what, std::function<Touched(Worker&)> change);

    std::unique_ptr<Worker> m_worker;
    SessionDataPtr m_data;
    std::uint64_t m_revision = 0;
    std::vector<std::filesystem::path> m_recent;
    std::string m_error;
    std::string m_message;

    int m_unapplied = 0;  // changes asked for whose outcome update() has not applied yet

    engine::Mailbox m_mailbox;   // outcomes posted by the worker, applied by update()
    engine::JobQueue m_jobs{1};  // last: it joins before the mailbox and the worker's state go
};

}  // namespace kx::app
