#include "store/schema.hpp"

#include "store/store_rows.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace kx::engine {

namespace {

// The columns a variant and a preset share (a named config of a template for an arch), written
// where a schema says NAMED_CONFIG_COLUMNS.
const char* const kNamedConfigColumns = R"sql(
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    template_id TEXT NOT NULL,
    arch        TEXT NOT NULL,
    config      TEXT NOT NULL,
    config_json TEXT NOT NULL,
    notes       TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL)sql";

// Version 1: the first released format. Artifacts are keyed by hash so equal content is stored
// once; links and runs go with their variant (ON DELETE CASCADE); the run's full report is kept
// as JSON with a few columns copied out for listing and sorting without parsing.
const char* const kSchemaV1 = R"sql(
CREATE TABLE variants (NAMED_CONFIG_COLUMNS,
    updated_at  TEXT NOT NULL
);
CREATE TABLE artifacts (
    hash  TEXT PRIMARY KEY,
    kind  TEXT NOT NULL CHECK (kind IN ('source', 'ptx', 'sass', 'resources')),
    size  INTEGER NOT NULL,
    bytes BLOB NOT NULL
);
CREATE TABLE variant_artifacts (
    variant_id INTEGER NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    hash       TEXT NOT NULL REFERENCES artifacts(hash),
    PRIMARY KEY (variant_id, kind)
);
CREATE INDEX variant_artifacts_by_hash ON variant_artifacts(hash);
CREATE TABLE runs (
    id               INTEGER PRIMARY KEY,
    variant_id       INTEGER NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
    device           TEXT NOT NULL,
    calibration_json TEXT NOT NULL DEFAULT '',
    report_json      TEXT NOT NULL,
    ok               INTEGER NOT NULL,
    passed           INTEGER NOT NULL,
    median_ms        REAL NOT NULL,
    created_at       TEXT NOT NULL
);
CREATE INDEX runs_by_variant ON runs(variant_id);
CREATE TABLE tutorial_progress (
    tutorial_id TEXT PRIMARY KEY,
    step        INTEGER NOT NULL,
    state       TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
)sql";

// Version 2: sweeps. A sweep is a space of configs explored together; each of its points keeps
// its outcome (pruned, failed, compiled, measured, not reached) with the reason, and links the
// variant and run it made when there is one. `uid` identifies a sweep across files, so the
// shards of one sweep merge into one. Presets are named configs kept in the session (autotune's
// winners).
const char* const kSchemaV2 = R"sql(
CREATE TABLE sweeps (
    id          INTEGER PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    template_id TEXT NOT NULL,
    arch        TEXT NOT NULL,
    spec_json   TEXT NOT NULL,
    state       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE TABLE sweep_points (
    id          INTEGER PRIMARY KEY,
    sweep_id    INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    config      TEXT NOT NULL,
    config_json TEXT NOT NULL,
    name        TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pruned', 'compile_failed', 'compiled', 'measured', 'run_failed', 'not_reached')),
    reason      TEXT NOT NULL DEFAULT '',
    variant_id  INTEGER REFERENCES variants(id) ON DELETE SET NULL,
    run_id      INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    median_ms   REAL,
    result_json TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    UNIQUE (sweep_id, config)
);
CREATE INDEX sweep_points_by_variant ON sweep_points(variant_id);
CREATE TABLE presets (NAMED_CONFIG_COLUMNS
);
)sql";

// Version 3: compiler flags per variant (templates/compile_flags.hpp), as
// CompileFlags::canonical() text: "" for the defaults, which every older variant was built with.
// They are part of the variant's identity: variants.config (Config::canonical()) carries them too.
const char* const kSchemaV3 = R"sql(
ALTER TABLE variants ADD COLUMN flags TEXT NOT NULL DEFAULT '';
)sql";

std::string withNamedConfigColumns(std::string sql) {
    for (std::size_t at; (at = sql.find("NAMED_CONFIG_COLUMNS")) != std::string::npos;)
        sql.replace(at, std::string_view("NAMED_CONFIG_COLUMNS").size(), kNamedConfigColumns);
    return sql;
}

void setMeta(SQLite::Database& db, const std::string& key, const std::string& value) {
    SQLite::Statement st(db, "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    st.bind(1, key);
    st.bind(2, value);
    st.exec();
}

}  // namespace

const std::vector<Migration>& sessionMigrations() {
    static const std::vector<Migration> list = {
        {1, withNamedConfigColumns(kSchemaV1)}, {2, withNamedConfigColumns(kSchemaV2)}, {3, kSchemaV3}};
    return list;
}

int currentSchemaVersion() { return sessionMigrations().back().version; }

void writeInitialMeta(SQLite::Database& db) {
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    setMeta(db, "app", kSessionAppName);
    setMeta(db, "schema_version", "0");
    setMeta(db, "created", store_detail::nowText());
}

int readSchemaVersion(SQLite::Database& db, const std::string& fileName) {
    if (!db.tableExists("meta"))
        throw InputError(fileName + " is not a Kernel Explorer session: an SQLite database without a meta table (another application's?)");
    auto get = [&](const char* key) -> std::optional<std::string> {
        SQLite::Statement st(db, "SELECT value FROM meta WHERE key = ?");
        st.bind(1, key);
        if (!st.executeStep()) return std::nullopt;
        return st.getColumn(0).getString();
    };
    const auto app = get("app");
    if (!app || *app != kSessionAppName)
        throw InputError(fileName + " is not a Kernel Explorer session: its meta table names the application '" + app.value_or("") +
                         "', not '" + kSessionAppName + "'");
    const auto version = get("schema_version");
    try {
        std::size_t used = 0;
        const int v = version ? std::stoi(*version, &used) : -1;
        if (!version || used != version->size() || v < 0) throw std::invalid_argument("bad");
        return v;
    } catch (const std::logic_error&) {
        throw InputError(fileName + " is damaged: its schema version '" + version.value_or("") + "' is not a number");
    }
}

void migrate(SQLite::Database& db, int fromVersion, const std::vector<Migration>& migrations, const std::string& fileName) {
    const int newest = migrations.empty() ? 0 : migrations.back().version;
    if (fromVersion > newest)
        throw InputError(fileName + " was made by a newer Kernel Explorer: schema " + std::to_string(fromVersion) + ", this one reads up to " +
                         std::to_string(newest));
    if (fromVersion == newest) return;
    db.exec("PRAGMA synchronous = FULL");
    try {
        SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
        // Re-read inside the transaction: another process may have migrated the file meanwhile.
        const int current = readSchemaVersion(db, fileName);
        for (const Migration& m : migrations) {
            if (m.version <= current) continue;
            db.exec(m.sql);
            setMeta(db, "schema_version", std::to_string(m.version));
        }
        tx.commit();
    } catch (...) {
        db.exec("PRAGMA synchronous = NORMAL");
        throw;
    }
    db.exec("PRAGMA synchronous = NORMAL");
}

}  // namespace kx::engine
