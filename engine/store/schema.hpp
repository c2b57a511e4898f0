// The session file's schema and its migrations (see session_store.hpp for the format).
//
// A session records its schema version in meta.schema_version. Migration N turns a version N-1
// file into a version N file; they are applied in order, all of them in one transaction, so a
// file is either at its old version or at the newest, never in between. A migration is never
// edited once released: a change to the schema is a new migration at the end of the list.
#pragma once

#include <string>
#include <vector>

namespace SQLite {
class Database;
}

namespace kx::engine {

inline constexpr const char* kSessionAppName = "kernel-explorer";

struct Migration {
    int version;       // the schema version the file has after this SQL ran
    std::string sql;   // one or more statements
};

// The migrations of this build, versions 1, 2, ... in order.
const std::vector<Migration>& sessionMigrations();

// The newest schema version this build reads and writes (the last migration's version).
int currentSchemaVersion();

// Creates the meta table of a new, empty file at version 0 (app name, created time). The caller
// holds the transaction.
void writeInitialMeta(SQLite::Database& db);

// The schema version in meta, or throws InputError naming `fileName` when the file is not a
// Kernel Explorer session (no meta table, another application's name, no version). Reads only.
int readSchemaVersion(SQLite::Database& db, const std::string& fileName);

// Brings the file from `fromVersion` to the last version of `migrations` in one transaction
// with synchronous=FULL (a schema change must not be half on disk after a power cut), then
// restores synchronous=NORMAL. Throws InputError naming `fileName` when the file is newer than
// the list; a failing migration rolls everything back and rethrows. `migrations` is a parameter
// so tests can exercise the mechanism with their own list.
void migrate(SQLite::Database& db, int fromVersion, const std::vector<Migration>& migrations, const std::string& fileName);

}  // namespace kx::engine
