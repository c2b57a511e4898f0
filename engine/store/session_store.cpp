// [SECTION] Index: helpers, transactions, variants, artifacts, runs, tutorial progress, editor
// state. Opening and creating are in session_open.cpp; copies and export in session_export.cpp;
// sweeps, presets and merge in session_sweeps.cpp.
#include "store/session_store.hpp"
#include "util/time_text.hpp"

#include "run/run_report_json.hpp"
#include "store/store_rows.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/enum_names.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <map>

namespace kx::engine {

// [SECTION] Helpers

namespace store_detail {

std::string nowText() { return utcNowText(); }

Config configFrom(const std::string& templateId, const std::string& json, const std::string& where) {
    Config c;
    c.templateId = templateId;
    try {
        c.values = nlohmann::json::parse(json).get<std::map<std::string, std::string>>();
    } catch (const nlohmann::json::exception&) {
        throw InputError(where + ": a variant's config is not valid JSON");
    }
    return c;
}

Config configFrom(const std::string& templateId, const std::string& json, const std::string& canonical, const std::string& where) {
    Config c = configFrom(templateId, json, where);
    const std::string parameters = c.canonical();
    if (canonical.size() > parameters.size() && canonical.compare(0, parameters.size(), parameters) == 0 && canonical[parameters.size()] == '|') {
        try {
            c.flags = parseCompileFlags(canonical.substr(parameters.size() + 1));
        } catch (const InputError& e) {
            throw InputError(where + ": a config has compiler flags this version does not know: " + e.what());
        }
    }
    return c;
}

void bindNamedConfig(SQLite::Statement& st, const std::string& name, const std::string& arch, const Config& config, const std::string& notes) {
    st.bind(1, name);
    st.bind(2, config.templateId);
    st.bind(3, arch);
    st.bind(4, config.canonical());
    st.bind(5, nlohmann::json(config.values).dump());
    st.bind(6, notes);
}

}  // namespace store_detail

using store_detail::bindNamedConfig;
using store_detail::configFrom;
using store_detail::nowText;

namespace {

const char* const kVariantColumns = "id, name, template_id, arch, config_json, notes, created_at, updated_at, flags";

SessionVariant variantFromRow(SQLite::Statement& st, const std::string& where) {
    SessionVariant v;
    v.id = st.getColumn(0).getInt64();
    v.name = st.getColumn(1).getString();
    v.arch = st.getColumn(3).getString();
    v.config = configFrom(st.getColumn(2).getString(), st.getColumn(4).getString(), where);
    v.notes = st.getColumn(5).getString();
    v.createdAt = st.getColumn(6).getString();
    v.updatedAt = st.getColumn(7).getString();
    try {
        v.config.flags = parseCompileFlags(st.getColumn(8).getString());
    } catch (const InputError& e) {
        throw InputError(where + ": variant '" + v.name + "' has compiler flags this version does not know: " + e.what());
    }
    return v;
}

RunReport reportFrom(const std::string& json, const std::string& where) {
    try {
        return runReportFromJson(nlohmann::json::parse(json));
    } catch (const nlohmann::json::exception&) {
        throw InputError(where + ": a run's report is not valid JSON");
    }
}

// A row of SELECT id, variant_id, device, calibration_json, report_json, created_at FROM runs.
StoredRun runFromRow(SQLite::Statement& st, const std::string& where) {
    StoredRun r;
    r.id = st.getColumn(0).getInt64();
    r.variantId = st.getColumn(1).getInt64();
    r.device = st.getColumn(2).getString();
    r.calibrationJson = st.getColumn(3).getString();
    r.report = reportFrom(st.getColumn(4).getString(), where);
    r.createdAt = st.getColumn(5).getString();
    return r;
}

}  // namespace

namespace {
const char* const kArtifactKindNames[] = {"source", "ptx", "sass", "resources"};
}  // namespace

const char* artifactKindName(ArtifactKind kind) { return enumName(kind, kArtifactKindNames, "source"); }

ArtifactKind parseArtifactKind(std::string_view name) {
    return enumNamed<ArtifactKind>(name, kArtifactKindNames, "artifact kind");
}

// [SECTION] Transactions

void SessionStore::transaction(const std::function<void()>& body) {
    if (m_readOnly || m_transactionDepth > 0) {
        body();  // writes inside throw on a read-only file; nested: the outer one commits
        return;
    }
    write("change", body);
}

void SessionStore::write(const char* what, const std::function<void()>& body) {
    if (m_readOnly) throw InputError(m_path.string() + " is read-only: cannot " + what);
    if (m_transactionDepth > 0) {
        body();
        return;
    }
    SQLite::Transaction tx(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
    struct Depth {
        int& d;
        explicit Depth(int& depth) : d(depth) { ++d; }
        ~Depth() { --d; }
    } depth(m_transactionDepth);
    body();
    tx.commit();
}

void SessionStore::requireVariant(std::int64_t id) const {
    SQLite::Statement st(*m_db, "SELECT 1 FROM variants WHERE id = ?");
    st.bind(1, static_cast<int64_t>(id));
    if (!st.executeStep()) throw InputError("the session has no variant with id " + std::to_string(id));
}

void SessionStore::collectGarbage() {
    m_db->exec("DELETE FROM artifacts WHERE hash NOT IN (SELECT hash FROM variant_artifacts)");
}

// [SECTION] Variants

namespace {

void checkName(SQLite::Database& db, const std::string& name, std::int64_t exceptId) {
    if (name.empty()) throw InputError("a variant needs a name");
    if (name.find_first_of("\n\r") != std::string::npos) throw InputError("a variant's name must be one line");
    SQLite::Statement st(db, "SELECT 1 FROM variants WHERE name = ? AND id <> ?");
    st.bind(1, name);
    st.bind(2, static_cast<int64_t>(exceptId));
    if (st.executeStep()) throw InputError("the session already has a variant named '" + name + "'");
}

void touch(SQLite::Database& db, std::int64_t id) {
    SQLite::Statement st(db, "UPDATE variants SET updated_at = ? WHERE id = ?");
    st.bind(1, nowText());
    st.bind(2, static_cast<int64_t>(id));
    st.exec();
}

}  // namespace

std::int64_t SessionStore::addVariant(const std::string& name, const std::string& arch, const Config& config, const std::string& notes) {
    std::int64_t id = 0;
    write("add a variant", [&] {
        checkName(*m_db, name, -1);
        SQLite::Statement st(*m_db,
                             "INSERT INTO variants(name, template_id, arch, config, config_json, notes, created_at, updated_at, flags) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        const std::string now = nowText();
        bindNamedConfig(st, name, arch, config, notes);
        st.bind(7, now);
        st.bind(8, now);
        st.bind(9, config.flags.canonical());
        st.exec();
        id = m_db->getLastInsertRowid();
    });
    return id;
}

void SessionStore::renameVariant(std::int64_t id, const std::string& newName) {
    write("rename a variant", [&] {
        requireVariant(id);
        checkName(*m_db, newName, id);
        SQLite::Statement st(*m_db, "UPDATE variants SET name = ? WHERE id = ?");
        st.bind(1, newName);
        st.bind(2, static_cast<int64_t>(id));
        st.exec();
        touch(*m_db, id);
    });
}

std::int64_t SessionStore::duplicateVariant(std::int64_t id, const std::string& newName) {
    std::int64_t copy = 0;
    write("duplicate a variant", [&] {
        requireVariant(id);
        checkName(*m_db, newName, -1);
        const std::string now = nowText();
        SQLite::Statement st(*m_db,
                             "INSERT INTO variants(name, template_id, arch, config, config_json, notes, created_at, updated_at, flags) "
                             "SELECT ?, template_id, arch, config, config_json, notes, ?, ?, flags FROM variants WHERE id = ?");
        st.bind(1, newName);
        st.bind(2, now);
        st.bind(3, now);
        st.bind(4, static_cast<int64_t>(id));
        st.exec();
        copy = m_db->getLastInsertRowid();
        SQLite::Statement links(*m_db, "INSERT INTO variant_artifacts(variant_id, kind, hash) SELECT ?, kind, hash FROM variant_artifacts WHERE variant_id = ?");
        links.bind(1, static_cast<int64_t>(copy));
        links.bind(2, static_cast<int64_t>(id));
        links.exec();
    });
    return copy;
}

void SessionStore::deleteVariant(std::int64_t id) {
    write("delete a variant", [&] {
        requireVariant(id);
        SQLite::Statement st(*m_db, "DELETE FROM variants WHERE id = ?");  // runs and links cascade
        st.bind(1, static_cast<int64_t>(id));
        st.exec();
        collectGarbage();
    });
}

void SessionStore::setNotes(std::int64_t id, const std::string& notes) {
    write("change notes", [&] {
        requireVariant(id);
        SQLite::Statement st(*m_db, "UPDATE variants SET notes = ? WHERE id = ?");
        st.bind(1, notes);
        st.bind(2, static_cast<int64_t>(id));
        st.exec();
        touch(*m_db, id);
    });
}

std::vector<SessionVariant> SessionStore::variants() const {
    SQLite::Statement st(*m_db, std::string("SELECT ") + kVariantColumns + " FROM variants ORDER BY id");
    std::vector<SessionVariant> list;
    while (st.executeStep()) list.push_back(variantFromRow(st, m_path.string()));
    return list;
}

std::optional<SessionVariant> SessionStore::variant(std::int64_t id) const {
    SQLite::Statement st(*m_db, std::string("SELECT ") + kVariantColumns + " FROM variants WHERE id = ?");
    st.bind(1, static_cast<int64_t>(id));
    if (!st.executeStep()) return std::nullopt;
    return variantFromRow(st, m_path.string());
}

std::optional<SessionVariant> SessionStore::findVariant(const std::string& name) const {
    SQLite::Statement st(*m_db, std::string("SELECT ") + kVariantColumns + " FROM variants WHERE name = ?");
    st.bind(1, name);
    if (!st.executeStep()) return std::nullopt;
    return variantFromRow(st, m_path.string());
}

std::vector<VariantSummary> SessionStore::summaries() const {
    SQLite::Statement st(*m_db,
                         "SELECT v.id, v.name, v.template_id, v.arch, v.config_json, v.notes, v.created_at, v.updated_at, v.flags, "
                         "COUNT(r.id), MIN(CASE WHEN r.ok AND r.passed THEN r.median_ms END) "
                         "FROM variants v LEFT JOIN runs r ON r.variant_id = v.id GROUP BY v.id ORDER BY v.id");
    std::vector<VariantSummary> list;
    while (st.executeStep()) {
        VariantSummary s;
        s.variant = variantFromRow(st, m_path.string());
        s.runCount = st.getColumn(9).getInt();
        if (!st.getColumn(10).isNull()) s.bestMs = st.getColumn(10).getDouble();
        list.push_back(std::move(s));
    }
    return list;
}

// [SECTION] Artifacts

std::string SessionStore::putArtifact(ArtifactKind kind, std::string_view bytes) {
    // The kind is part of the identity, so a hash names one (kind, bytes) pair.
    const std::string hash = hashHex128(std::string(artifactKindName(kind)) + '\0' + std::string(bytes));
    write("store an artifact", [&] {
        SQLite::Statement st(*m_db, "INSERT OR IGNORE INTO artifacts(hash, kind, size, bytes) VALUES (?, ?, ?, ?)");
        st.bind(1, hash);
        st.bind(2, artifactKindName(kind));
        st.bind(3, static_cast<int64_t>(bytes.size()));
        // A null pointer would bind NULL; "" binds a zero-length blob.
        st.bind(4, bytes.empty() ? "" : bytes.data(), static_cast<int>(bytes.size()));
        st.exec();
    });
    return hash;
}

void SessionStore::linkArtifact(std::int64_t variantId, ArtifactKind kind, const std::string& hash) {
    write("link an artifact", [&] {
        requireVariant(variantId);
        SQLite::Statement check(*m_db, "SELECT kind FROM artifacts WHERE hash = ?");
        check.bind(1, hash);
        if (!check.executeStep()) throw InputError("the session has no artifact " + hash);
        if (check.getColumn(0).getString() != artifactKindName(kind))
            throw InputError("artifact " + hash + " is " + check.getColumn(0).getString() + ", not " + artifactKindName(kind));
        SQLite::Statement st(*m_db,
                             "INSERT INTO variant_artifacts(variant_id, kind, hash) VALUES (?, ?, ?) "
                             "ON CONFLICT(variant_id, kind) DO UPDATE SET hash = excluded.hash");
        st.bind(1, static_cast<int64_t>(variantId));
        st.bind(2, artifactKindName(kind));
        st.bind(3, hash);
        st.exec();
        touch(*m_db, variantId);
        collectGarbage();
    });
}

std::string SessionStore::storeArtifact(std::int64_t variantId, ArtifactKind kind, std::string_view bytes) {
    std::string hash;
    write("store an artifact", [&] {
        hash = putArtifact(kind, bytes);
        linkArtifact(variantId, kind, hash);
    });
    return hash;
}

std::optional<std::string> SessionStore::artifact(const std::string& hash) const {
    SQLite::Statement st(*m_db, "SELECT bytes FROM artifacts WHERE hash = ?");
    st.bind(1, hash);
    if (!st.executeStep()) return std::nullopt;
    const SQLite::Column c = st.getColumn(0);
    return std::string(static_cast<const char*>(c.getBlob()), static_cast<std::size_t>(c.getBytes()));
}

std::vector<ArtifactInfo> SessionStore::artifactsOf(std::int64_t variantId) const {
    SQLite::Statement st(*m_db,
                         "SELECT l.kind, l.hash, a.size FROM variant_artifacts l JOIN artifacts a ON a.hash = l.hash "
                         "WHERE l.variant_id = ? ORDER BY l.kind");
    st.bind(1, static_cast<int64_t>(variantId));
    std::vector<ArtifactInfo> list;
    while (st.executeStep())
        list.push_back({parseArtifactKind(st.getColumn(0).getString()), st.getColumn(1).getString(), st.getColumn(2).getInt64()});
    return list;
}

std::optional<std::string> SessionStore::artifactOf(std::int64_t variantId, ArtifactKind kind) const {
    SQLite::Statement st(*m_db, "SELECT hash FROM variant_artifacts WHERE variant_id = ? AND kind = ?");
    st.bind(1, static_cast<int64_t>(variantId));
    st.bind(2, artifactKindName(kind));
    if (!st.executeStep()) return std::nullopt;
    return artifact(st.getColumn(0).getString());
}

// [SECTION] Runs

std::int64_t SessionStore::addRun(std::int64_t variantId, const RunReport& report, const std::string& calibrationJson) {
    std::int64_t id = 0;
    write("add a run", [&] {
        requireVariant(variantId);
        SQLite::Statement st(*m_db,
                             "INSERT INTO runs(variant_id, device, calibration_json, report_json, ok, passed, median_ms, created_at) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        st.bind(1, static_cast<int64_t>(variantId));
        st.bind(2, report.deviceName);
        st.bind(3, calibrationJson);
        // Invalid UTF-8 in a compiler or driver message must not lose the run.
        st.bind(4, toJson(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        st.bind(5, report.ok ? 1 : 0);
        st.bind(6, report.correctness.passed ? 1 : 0);
        st.bind(7, report.medianMs);
        st.bind(8, nowText());
        st.exec();
        id = m_db->getLastInsertRowid();
    });
    return id;
}

std::vector<StoredRun> SessionStore::runsOf(std::int64_t variantId) const {
    SQLite::Statement st(*m_db,
                         "SELECT id, variant_id, device, calibration_json, report_json, created_at FROM runs WHERE variant_id = ? ORDER BY id");
    st.bind(1, static_cast<int64_t>(variantId));
    std::vector<StoredRun> list;
    while (st.executeStep()) list.push_back(runFromRow(st, m_path.string()));
    return list;
}

// [SECTION] Tutorial progress

void SessionStore::setTutorialProgress(const std::string& tutorialId, int step, const std::string& state) {
    if (tutorialId.empty()) throw InputError("tutorial progress needs a tutorial id");
    write("save tutorial progress", [&] {
        SQLite::Statement st(*m_db,
                             "INSERT INTO tutorial_progress(tutorial_id, step, state, updated_at) VALUES (?, ?, ?, ?) "
                             "ON CONFLICT(tutorial_id) DO UPDATE SET step = excluded.step, state = excluded.state, "
                             "updated_at = excluded.updated_at");
        st.bind(1, tutorialId);
        st.bind(2, step);
        st.bind(3, state);
        st.bind(4, nowText());
        st.exec();
    });
}

std::optional<TutorialProgress> SessionStore::tutorialProgress(const std::string& tutorialId) const {
    SQLite::Statement st(*m_db, "SELECT tutorial_id, step, state, updated_at FROM tutorial_progress WHERE tutorial_id = ?");
    st.bind(1, tutorialId);
    if (!st.executeStep()) return std::nullopt;
    return TutorialProgress{st.getColumn(0).getString(), st.getColumn(1).getInt(), st.getColumn(2).getString(), st.getColumn(3).getString()};
}

std::vector<TutorialProgress> SessionStore::allTutorialProgress() const {
    SQLite::Statement st(*m_db, "SELECT tutorial_id, step, state, updated_at FROM tutorial_progress ORDER BY tutorial_id");
    std::vector<TutorialProgress> list;
    while (st.executeStep())
        list.push_back({st.getColumn(0).getString(), st.getColumn(1).getInt(), st.getColumn(2).getString(), st.getColumn(3).getString()});
    return list;
}

// [SECTION] Editor state

void SessionStore::setEditorState(const std::string& json) {
    write("save the editor state", [&] {
        SQLite::Statement st(*m_db, "INSERT INTO meta(key, value) VALUES('editor_state', ?) "
                                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
        st.bind(1, json);
        st.exec();
    });
}

std::string SessionStore::editorState() const {
    SQLite::Statement st(*m_db, "SELECT value FROM meta WHERE key = 'editor_state'");
    return st.executeStep() ? st.getColumn(0).getString() : std::string();
}

}  // namespace kx::engine
