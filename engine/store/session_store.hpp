// Sessions: everything a user keeps (variants, their artifacts, runs, notes, tutorial progress)
// in one SQLite file, by convention named *.kxs.
//
// [SECTION] Format (schema version 1; schema.cpp holds the SQL)
//   meta(key, value)            app = "kernel-explorer", schema_version, created (ISO 8601 UTC)
//   variants                    id, name (unique), template_id, arch, config (Config::canonical()),
//                               config_json ({"BM":"128",...}), notes, created_at, updated_at
//   artifacts                   hash (XXH3-128 of kind and bytes), kind (source|ptx|sass|resources),
//                               size, bytes: each distinct content is stored once
//   variant_artifacts           (variant_id, kind) -> hash: one artifact of each kind per variant
//   runs                        id, variant_id, device, calibration_json (the calibration the
//                               percentages were computed with, "" if none), report_json (the
//                               whole RunReport, run_report_json.hpp), ok, passed, median_ms,
//                               created_at
//   tutorial_progress           tutorial_id, step, state, updated_at
//   meta "editor_state"         the app's editor state as JSON (setEditorState)
// Schema version 2 adds:
//   sweeps                      id, uid (unique; shards of one sweep share it), name, template_id,
//                               arch, spec_json (the space and options), state, created_at, updated_at
//   sweep_points                id, sweep_id, config, config_json, name, status (pruned |
//                               compile_failed | compiled | measured | run_failed | not_reached),
//                               reason, variant_id, run_id (NULL when none), median_ms (measured
//                               only), result_json (resources, occupancy, prediction), created_at;
//                               one point per (sweep_id, config)
//   presets                     id, name (unique), template_id, arch, config, config_json, notes,
//                               created_at: named configs (an autotune's winner)
// Schema version 3 adds:
//   variants.flags              the variant's compiler flags (CompileFlags::canonical(), "" for the
//                               defaults); variants.config (Config::canonical()) includes them, and so
//                               does sweep_points.config and presets.config, which is where a sweep
//                               point's or preset's flags are read from (their config_json holds
//                               parameters only)
//
// [SECTION] Guarantees
// - Every public call that changes the file is one transaction (or part of the caller's
//   transaction(), below): a crash or SIGKILL at any moment loses at most the change in flight.
//   The file is in WAL mode with synchronous=NORMAL (FULL while the schema changes): committed
//   changes survive a process crash; a power cut may lose the last few commits, never the file.
// - Opening an older file migrates it (schema.hpp). A newer file, a file that is not SQLite, a
//   truncated or corrupt file, or another application's SQLite file throws InputError naming
//   the file; nothing is written to such a file.
// - A file without write permission opens read-only: readOnly() is true, reads work, and every
//   call that would change it throws InputError.
// - Times are ISO 8601 UTC text ("2025-01-31T12:00:00Z").
//
// Thread-safety: one SessionStore per thread. Several processes may open the same file; writers
// wait up to 5 s for each other.
#pragma once

#include "run/variant_run.hpp"
#include "templates/config.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace SQLite {
class Database;
}

namespace kx::engine {

enum class ArtifactKind { Source, Ptx, Sass, Resources };

// "source", "ptx", "sass", "resources" and back; the parser throws InputError on other text.
const char* artifactKindName(ArtifactKind kind);
ArtifactKind parseArtifactKind(std::string_view name);

struct SessionVariant {
    std::int64_t id = 0;
    std::string name;          // unique in the session
    std::string arch;          // "sm_90"
    Config config;             // config.templateId is the template
    std::string notes;
    std::string createdAt, updatedAt;
};

// A variant with what `kx session list` and the variants list show about its runs.
struct VariantSummary {
    SessionVariant variant;
    int runCount = 0;
    std::optional<double> bestMs;   // smallest median of its successful, correct runs
};

struct ArtifactInfo {
    ArtifactKind kind = ArtifactKind::Source;
    std::string hash;               // 32 hex digits
    std::int64_t size = 0;
};

struct StoredRun {
    std::int64_t id = 0;
    std::int64_t variantId = 0;
    std::string device;
    std::string calibrationJson;    // "" when the device was not calibrated
    RunReport report;
    std::string createdAt;
};

// A sweep of a template's configs (engine/sweep/); its points are StoredSweepPoints.
struct StoredSweep {
    std::int64_t id = 0;
    std::string uid;           // the same in every shard of one sweep, so they merge into one
    std::string name;
    std::string templateId;
    std::string arch;
    std::string specJson;      // the space and the options it was swept with
    std::string state;         // "running", "finished", "stopped"
    std::string createdAt, updatedAt;
};

struct StoredSweepPoint {
    std::int64_t id = 0;
    std::int64_t sweepId = 0;
    Config config;
    std::string name;          // the config's procedural name
    std::string status;        // pruned, compile_failed, compiled, measured, run_failed, not_reached
    std::string reason;        // why it was pruned, failed or not reached; "" otherwise
    std::optional<std::int64_t> variantId;  // the variant it made (compiled ones)
    std::optional<std::int64_t> runId;      // its run (measured and run_failed ones)
    std::optional<double> medianMs;          // measured ones
    std::string resultJson;    // resources, occupancy, prediction, timing (engine/sweep/sweep_result.hpp)
    std::string createdAt;
};

struct StoredPreset {
    std::int64_t id = 0;
    std::string name;
    std::string arch;
    Config config;
    std::string notes;
    std::string createdAt;
};

// What SessionStore::mergeFrom did.
struct MergeStats {
    int variantsAdded = 0;     // variants new to the target
    int variantsMerged = 0;    // variants the target already had (same template, arch and config)
    int runsAdded = 0;
    int runsSkipped = 0;       // already there (same variant, device, time and report)
    int sweepsAdded = 0;
    int pointsAdded = 0;       // sweep points new to the target, or further along than its own
    int pointsKept = 0;        // sweep points the target already had as far along
    int presetsAdded = 0;
};

struct TutorialProgress {
    std::string tutorialId;
    int step = 0;
    std::string state;              // free text owned by the tutorial player ("active", "done")
    std::string updatedAt;
};

class SessionStore {
public:
    // A new session at `path`; throws InputError when the file already exists (never
    // overwrites) or cannot be created.
    static SessionStore create(const std::filesystem::path& path);
    // An existing session, migrated to the current schema when older (see Guarantees).
    static SessionStore open(const std::filesystem::path& path);

    SessionStore(SessionStore&&) noexcept;
    SessionStore& operator=(SessionStore&&) noexcept;
    ~SessionStore();

    const std::filesystem::path& path() const { return m_path; }
    bool readOnly() const { return m_readOnly; }
    int schemaVersion() const;
    // "ok", or SQLite's list of problems (PRAGMA integrity_check). Slow on big files.
    std::string integrityCheck() const;

    // Runs `body` as one transaction: every change it makes through this store is committed
    // together, or none is when it throws (the exception is rethrown). May nest; only the
    // outermost commits. On a read-only store `body` runs as is (its writes throw).
    void transaction(const std::function<void()>& body);

    // [SECTION] Variants. Ids are stable for the life of the file. Unknown ids throw InputError.
    // Throws InputError when `name` is empty or taken.
    std::int64_t addVariant(const std::string& name, const std::string& arch, const Config& config, const std::string& notes = "");
    void renameVariant(std::int64_t id, const std::string& newName);
    // A copy with its config, notes and artifact links (not its runs); returns the new id.
    std::int64_t duplicateVariant(std::int64_t id, const std::string& newName);
    // Removes the variant with its runs and links; artifacts no variant links any more go too.
    void deleteVariant(std::int64_t id);
    void setNotes(std::int64_t id, const std::string& notes);
    std::vector<SessionVariant> variants() const;                 // by id
    std::optional<SessionVariant> variant(std::int64_t id) const;
    std::optional<SessionVariant> findVariant(const std::string& name) const;
    std::vector<VariantSummary> summaries() const;                // by id

    // [SECTION] Artifacts. putArtifact stores the bytes unless equal ones are there already and
    // returns their hash. An artifact that no variant links is removed by the next
    // deleteVariant or linkArtifact, so link it in the same transaction() to be sure to keep it.
    std::string putArtifact(ArtifactKind kind, std::string_view bytes);
    // Sets the variant's artifact of `kind` (replacing the previous one). Throws InputError
    // when the hash is unknown or was stored as another kind.
    void linkArtifact(std::int64_t variantId, ArtifactKind kind, const std::string& hash);
    // putArtifact + linkArtifact in one transaction.
    std::string storeArtifact(std::int64_t variantId, ArtifactKind kind, std::string_view bytes);
    std::optional<std::string> artifact(const std::string& hash) const;  // the bytes
    std::vector<ArtifactInfo> artifactsOf(std::int64_t variantId) const;  // by kind
    std::optional<std::string> artifactOf(std::int64_t variantId, ArtifactKind kind) const;

    // [SECTION] Runs. The report is stored whole (run_report_json.hpp) and read back equal.
    std::int64_t addRun(std::int64_t variantId, const RunReport& report, const std::string& calibrationJson = "");
    std::vector<StoredRun> runsOf(std::int64_t variantId) const;  // oldest first

    // [SECTION] Tutorial progress, one row per tutorial.
    void setTutorialProgress(const std::string& tutorialId, int step, const std::string& state);
    std::optional<TutorialProgress> tutorialProgress(const std::string& tutorialId) const;
    std::vector<TutorialProgress> allTutorialProgress() const;   // by tutorial id

    // [SECTION] Editor state: what the app had on screen (template, arch, config, sizes) as
    // JSON, so reopening the session puts the user back where they were. "" when never set.
    void setEditorState(const std::string& json);
    std::string editorState() const;

    // [SECTION] Sweeps (schema 2). Unknown ids throw InputError.
    // The sweep with this uid, added when there is none; throws InputError when the uid names a
    // sweep of another template or arch.
    std::int64_t findOrAddSweep(const StoredSweep& sweep);
    void setSweepState(std::int64_t sweepId, const std::string& state);
    std::vector<StoredSweep> sweeps() const;                               // by id
    std::optional<StoredSweep> findSweep(const std::string& uid) const;
    // Adds the point, or replaces the sweep's point of the same config. Returns its id.
    std::int64_t putSweepPoint(const StoredSweepPoint& point);
    std::vector<StoredSweepPoint> sweepPoints(std::int64_t sweepId) const;  // by id

    // [SECTION] Presets: named configs. setPreset replaces a preset of the same name.
    std::int64_t setPreset(const std::string& name, const std::string& arch, const Config& config, const std::string& notes = "");
    std::vector<StoredPreset> presets() const;                              // by name
    std::optional<StoredPreset> findPreset(const std::string& name) const;

    // [SECTION] Merge. Adds everything of `other` to this session in one transaction; merging
    // the same file twice changes nothing the second time. The rules:
    // - Variants are the same when template, arch and config are: one variant, with the runs of
    //   both; a run already there (same device, time and report) is not added again; artifact
    //   kinds it lacks are taken from `other`; its name and notes are this session's (`other`'s
    //   notes when it has none). A new variant keeps its name, or "NAME-2", "NAME-3"... when taken.
    // - Sweeps are the same when their uid is: one sweep, with each config once; a point from
    //   `other` replaces this session's only when it got further (not reached < pruned, failed
    //   to compile, compiled < run failed < measured).
    // - Presets: a name already here with the same config and arch is skipped; another config
    //   under a taken name is added as "NAME-2"...
    // - Tutorial progress: the more recently updated of the two. The editor state stays this one's.
    // Throws InputError when `other` is this session's file.
    MergeStats mergeFrom(const SessionStore& other);

    // [SECTION] Copy. Writes a consistent copy of the whole session to `target` (VACUUM INTO a
    // temporary file next to it, then a rename): `target` is replaced whole or not at all, never
    // left half-written. Works on a read-only session too. Throws InputError when `target` is
    // this file or its folder is not writable.
    void saveCopyAs(const std::filesystem::path& target) const;

    // [SECTION] Export.
    // {"app", "schema_version", "created", "variants": [{..., "config": {...}, "artifacts":
    // [{"kind","hash","size"}], "runs": [{"id","device","created_at","calibration","report"}]}],
    // "tutorial_progress": [...]}. Artifact bytes are not included.
    nlohmann::json exportJson() const;
    // One row per run (variants without runs give none), header first:
    // variant,template,arch,config,notes,run_id,run_created,device,ok,passed,median_ms,min_ms,
    // max_ms,reps,tflops,gbps,pct_of_cublas_peak,pct_of_copy_bandwidth,baseline,baseline_ms,
    // speedup,registers,sizes. Fields with commas, quotes or newlines are quoted (RFC 4180).
    std::string exportCsv() const;

private:
    SessionStore(std::filesystem::path path, std::unique_ptr<SQLite::Database> db, bool readOnly);
    // Throws InputError when read-only; runs `body` in the current or a new transaction.
    void write(const char* what, const std::function<void()>& body);
    void requireVariant(std::int64_t id) const;
    void collectGarbage();

    std::filesystem::path m_path;
    std::unique_ptr<SQLite::Database> m_db;
    bool m_readOnly = false;
    int m_transactionDepth = 0;
};

}  // namespace kx::engine
