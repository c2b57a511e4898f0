// [SECTION] Index: helpers, opening and creating, transactions, variants, artifacts, runs,
// tutorial progress, export.
#include "store/session_store.hpp"
#include "util/time_text.hpp"

#include "run/run_report_json.hpp"
#include "store/schema.hpp"
#include "store/store_rows.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace kx::engine {

namespace fs = std::filesystem;

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

}  // namespace store_detail

using store_detail::configFrom;
using store_detail::nowText;

namespace {

constexpr int kBusyTimeoutMs = 5000;

const char* const kVariantColumns = "id, name, template_id, arch, config_json, notes, created_at, updated_at, flags";

// No write permission for us, or none for anyone: the second matters when running as root,
// where access() grants everything, yet a file marked read-only should still be treated so.
bool fileIsReadOnly(const fs::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    return ::access(path.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0;
}

// Rejects what SQLite would misread or write to: a 0-byte file (SQLite takes it for a new,
// empty database) and anything without SQLite's header.
void checkHeader(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string() + " cannot be opened: " + std::strerror(errno));
    char header[16] = {};
    in.read(header, sizeof header);
    const auto got = in.gcount();
    if (got == 0) throw InputError(path.string() + " is not a Kernel Explorer session: the file is empty");
    if (got < 16 || std::memcmp(header, "SQLite format 3", 16) != 0)
        throw InputError(path.string() + " is not a Kernel Explorer session: not an SQLite file");
}

std::uint32_t bigEndian(const unsigned char* p, int bytes) {
    std::uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

// A file cut short (a copy that stopped early, a full disk) reads as a smaller, valid database
// to SQLite, which would then rewrite it. Its header says how long it should be: a file that is
// not a whole number of pages, or shorter than the page count its header vouches for (while no
// write-ahead log holds the rest), is refused.
void checkNotTruncated(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char header[100] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || in.gcount() < static_cast<std::streamsize>(sizeof header))
        throw InputError(path.string() + " is damaged: truncated (" + std::to_string(in.gcount()) + " bytes, shorter than SQLite's header)");
    std::uint32_t pageSize = bigEndian(header + 16, 2);
    if (pageSize == 1) pageSize = 65536;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) != 0)
        throw InputError(path.string() + " is damaged: its header gives a page size of " + std::to_string(pageSize) + " bytes");
    if (size % pageSize != 0)
        throw InputError(path.string() + " is damaged: truncated (" + std::to_string(size) + " bytes is not a whole number of " +
                         std::to_string(pageSize) + "-byte pages)");
    const std::uint32_t pages = bigEndian(header + 28, 4);
    const bool pagesValid = pages > 0 && bigEndian(header + 24, 4) == bigEndian(header + 92, 4);
    const auto walSize = fs::file_size(path.string() + "-wal", ec);
    const bool walHasPages = !ec && walSize > 32;
    if (pagesValid && !walHasPages && static_cast<std::uintmax_t>(pages) * pageSize > size)
        throw InputError(path.string() + " is damaged: truncated (its header counts " + std::to_string(pages) + " pages, the file holds " +
                         std::to_string(size / pageSize) + ")");
}

// PRAGMA quick_check's rows as one line: the first problem, and how many more there are.
std::string oneLineCheck(const std::string& check) {
    std::vector<std::string> problems;
    std::stringstream lines(check);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line.rfind("*** in database", 0) != 0) problems.push_back(line);
    if (problems.empty()) return "it fails SQLite's integrity check";
    std::string text = "corrupt (" + problems.front() + ")";
    if (problems.size() > 1) text += " and " + std::to_string(problems.size() - 1) + " more problem" + (problems.size() > 2 ? "s" : "");
    return text;
}

// Every table the schema of `version` has: a file missing one was damaged by hand or by
// another program, and is refused before anything reads or writes it.
void checkTables(SQLite::Database& db, int version, const std::string& name) {
    std::vector<const char*> tables = {"meta"};
    if (version >= 1) tables.insert(tables.end(), {"variants", "artifacts", "variant_artifacts", "runs", "tutorial_progress"});
    if (version >= 2) tables.insert(tables.end(), {"sweeps", "sweep_points", "presets"});
    for (const char* table : tables)
        if (!db.tableExists(table))
            throw InputError(name + " is damaged: its table '" + table + "' is missing (schema " + std::to_string(version) + " has it)");
}

// "file:" URI of a path for SQLite, with the characters URIs reserve escaped.
std::string fileUri(const fs::path& path) {
    std::string uri = "file:";
    for (const char c : fs::absolute(path).string()) {
        if (c == '%' || c == '?' || c == '#') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
            uri += buf;
        } else {
            uri += c;
        }
    }
    return uri;
}

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

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string number(double v) {
    std::ostringstream s;
    s.precision(10);
    s << v;
    return s.str();
}

}  // namespace

const char* artifactKindName(ArtifactKind kind) {
    switch (kind) {
        case ArtifactKind::Source: return "source";
        case ArtifactKind::Ptx: return "ptx";
        case ArtifactKind::Sass: return "sass";
        case ArtifactKind::Resources: return "resources";
    }
    return "source";
}

ArtifactKind parseArtifactKind(std::string_view name) {
    for (ArtifactKind k : {ArtifactKind::Source, ArtifactKind::Ptx, ArtifactKind::Sass, ArtifactKind::Resources})
        if (name == artifactKindName(k)) return k;
    throw InputError("unknown artifact kind '" + std::string(name) + "' (source, ptx, sass, resources)");
}

// [SECTION] Opening and creating

SessionStore::SessionStore(fs::path path, std::unique_ptr<SQLite::Database> db, bool readOnly)
    : m_path(std::move(path)), m_db(std::move(db)), m_readOnly(readOnly) {}
SessionStore::SessionStore(SessionStore&&) noexcept = default;
SessionStore& SessionStore::operator=(SessionStore&&) noexcept = default;
SessionStore::~SessionStore() = default;

SessionStore SessionStore::create(const fs::path& path) {
    const std::string name = path.string();
    // O_EXCL: never overwrite, even a file that appears between a check and the open.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        if (errno == EEXIST) throw InputError(name + " already exists (a new session never overwrites a file)");
        throw InputError(name + " cannot be created: " + std::strerror(errno));
    }
    ::close(fd);
    try {
        auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE, kBusyTimeoutMs);
        db->execAndGet("PRAGMA journal_mode = WAL");
        db->exec("PRAGMA synchronous = NORMAL");
        db->exec("PRAGMA foreign_keys = ON");
        {
            SQLite::Transaction tx(*db, SQLite::TransactionBehavior::IMMEDIATE);
            writeInitialMeta(*db);
            tx.commit();
        }
        migrate(*db, 0, sessionMigrations(), name);
        return SessionStore(path, std::move(db), false);
    } catch (const SQLite::Exception& e) {
        std::error_code ec;
        fs::remove(path, ec);
        throw InputError(name + " cannot be created as a session: " + e.what());
    }
}

SessionStore SessionStore::open(const fs::path& path) {
    const std::string name = path.string();
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError(name + " does not exist");
    if (!fs::is_regular_file(path, ec)) throw InputError(name + " is not a file");
    checkHeader(path);
    checkNotTruncated(path);
    const bool readOnly = fileIsReadOnly(path);
    try {
        std::unique_ptr<SQLite::Database> db;
        try {
            db = std::make_unique<SQLite::Database>(path, readOnly ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE, kBusyTimeoutMs);
            readSchemaVersion(*db, name);
        } catch (const SQLite::Exception&) {
            if (!readOnly) throw;
            // A read-only WAL file needs its -shm file; where that cannot be made (a read-only
            // folder) read the file as immutable, which needs none.
            db = std::make_unique<SQLite::Database>(fileUri(path) + "?immutable=1", SQLite::OPEN_READONLY | SQLite::OPEN_URI,
                                                    kBusyTimeoutMs);
        }
        const int version = readSchemaVersion(*db, name);
        if (version > currentSchemaVersion()) migrate(*db, version, sessionMigrations(), name);  // throws: newer
        std::string check;
        {
            SQLite::Statement st(*db, "PRAGMA quick_check");
            while (st.executeStep()) check += (check.empty() ? "" : "\n") + st.getColumn(0).getString();
        }
        if (check != "ok") throw InputError(name + " is damaged: " + oneLineCheck(check));
        checkTables(*db, std::min(version, currentSchemaVersion()), name);
        if (version < currentSchemaVersion() && readOnly)
            throw InputError(name + " has schema " + std::to_string(version) + " and needs upgrading to " +
                             std::to_string(currentSchemaVersion()) + ", but it is read-only");
        if (!readOnly) {
            db->execAndGet("PRAGMA journal_mode = WAL");
            db->exec("PRAGMA synchronous = NORMAL");
            db->exec("PRAGMA foreign_keys = ON");
            migrate(*db, version, sessionMigrations(), name);
        }
        return SessionStore(path, std::move(db), readOnly);
    } catch (const SQLite::Exception& e) {
        std::string why = e.what();
        std::replace(why.begin(), why.end(), '\n', ' ');
        throw InputError(name + " cannot be read as a Kernel Explorer session: " + why);
    }
}

int SessionStore::schemaVersion() const { return readSchemaVersion(*m_db, m_path.string()); }

std::string SessionStore::integrityCheck() const {
    SQLite::Statement st(*m_db, "PRAGMA integrity_check");
    std::string text;
    while (st.executeStep()) text += (text.empty() ? "" : "\n") + st.getColumn(0).getString();
    return text;
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
        st.bind(1, name);
        st.bind(2, config.templateId);
        st.bind(3, arch);
        st.bind(4, config.canonical());
        st.bind(5, nlohmann::json(config.values).dump());
        st.bind(6, notes);
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
    while (st.executeStep()) {
        StoredRun r;
        r.id = st.getColumn(0).getInt64();
        r.variantId = st.getColumn(1).getInt64();
        r.device = st.getColumn(2).getString();
        r.calibrationJson = st.getColumn(3).getString();
        r.report = reportFrom(st.getColumn(4).getString(), m_path.string());
        r.createdAt = st.getColumn(5).getString();
        list.push_back(std::move(r));
    }
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

// [SECTION] Editor state and copies

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

void SessionStore::saveCopyAs(const fs::path& target) const {
    std::error_code ec;
    const fs::path absTarget = fs::absolute(target, ec);
    if (fs::exists(absTarget, ec) && fs::equivalent(absTarget, m_path, ec))
        throw InputError(target.string() + " is this session's own file");
    const fs::path parent = absTarget.parent_path();
    if (!fs::is_directory(parent, ec) || ::access(parent.c_str(), W_OK) != 0)
        throw InputError("cannot save " + target.string() + ": its folder does not exist or is not writable");
    // VACUUM INTO refuses an existing file: write a fresh temporary one and rename it over the
    // target, which is atomic on one file system.
    const fs::path temp = parent / ("." + absTarget.filename().string() + ".saving-" + std::to_string(::getpid()));
    fs::remove(temp, ec);
    try {
        SQLite::Statement st(*m_db, "VACUUM INTO ?");
        st.bind(1, temp.string());
        st.exec();
    } catch (const std::exception& e) {
        fs::remove(temp, ec);
        throw InputError("cannot save " + target.string() + ": " + e.what());
    }
    // The copy is a plain rollback-journal file; the next open switches it to WAL.
    {
        const int fd = ::open(temp.c_str(), O_RDONLY);
        if (fd >= 0) {
            ::fsync(fd);
            ::close(fd);
        }
    }
    fs::rename(temp, absTarget, ec);
    if (ec) {
        fs::remove(temp, ec);
        throw InputError("cannot save " + target.string() + ": " + ec.message());
    }
}

// [SECTION] Export

nlohmann::json SessionStore::exportJson() const {
    nlohmann::json j = {{"app", kSessionAppName}, {"schema_version", schemaVersion()}};
    j["created"] = m_db->execAndGet("SELECT value FROM meta WHERE key = 'created'").getString();
    nlohmann::json variantsJson = nlohmann::json::array();
    for (const SessionVariant& v : variants()) {
        nlohmann::json vj = {{"id", v.id},         {"name", v.name},   {"template", v.config.templateId},
                             {"arch", v.arch},     {"config", v.config.values}, {"config_canonical", v.config.canonical()},
                             {"flags", v.config.flags.canonical()},
                             {"notes", v.notes},   {"created_at", v.createdAt}, {"updated_at", v.updatedAt}};
        vj["artifacts"] = nlohmann::json::array();
        for (const ArtifactInfo& a : artifactsOf(v.id))
            vj["artifacts"].push_back({{"kind", artifactKindName(a.kind)}, {"hash", a.hash}, {"size", a.size}});
        vj["runs"] = nlohmann::json::array();
        for (const StoredRun& r : runsOf(v.id)) {
            nlohmann::json calibration = nullptr;
            if (!r.calibrationJson.empty()) calibration = nlohmann::json::parse(r.calibrationJson, nullptr, false);
            vj["runs"].push_back({{"id", r.id}, {"device", r.device}, {"created_at", r.createdAt}, {"calibration", calibration},
                                  {"report", toJson(r.report)}});
        }
        variantsJson.push_back(std::move(vj));
    }
    j["variants"] = std::move(variantsJson);
    j["sweeps"] = nlohmann::json::array();
    for (const StoredSweep& s : sweeps()) {
        nlohmann::json sj = {{"uid", s.uid},   {"name", s.name},   {"template", s.templateId}, {"arch", s.arch},
                             {"state", s.state}, {"created_at", s.createdAt}, {"updated_at", s.updatedAt}};
        sj["spec"] = nlohmann::json::parse(s.specJson, nullptr, false);
        sj["points"] = nlohmann::json::array();
        for (const StoredSweepPoint& p : sweepPoints(s.id)) {
            nlohmann::json pj = {{"name", p.name}, {"config", p.config.values}, {"status", p.status}, {"reason", p.reason}};
            pj["variant_id"] = p.variantId ? nlohmann::json(*p.variantId) : nlohmann::json(nullptr);
            pj["run_id"] = p.runId ? nlohmann::json(*p.runId) : nlohmann::json(nullptr);
            pj["result"] = nlohmann::json::parse(p.resultJson, nullptr, false);
            sj["points"].push_back(std::move(pj));
        }
        j["sweeps"].push_back(std::move(sj));
    }
    j["presets"] = nlohmann::json::array();
    for (const StoredPreset& p : presets())
        j["presets"].push_back({{"name", p.name}, {"template", p.config.templateId}, {"arch", p.arch}, {"config", p.config.values},
                                {"notes", p.notes}, {"created_at", p.createdAt}});
    j["tutorial_progress"] = nlohmann::json::array();
    for (const TutorialProgress& t : allTutorialProgress())
        j["tutorial_progress"].push_back({{"tutorial", t.tutorialId}, {"step", t.step}, {"state", t.state}, {"updated_at", t.updatedAt}});
    return j;
}

std::string SessionStore::exportCsv() const {
    std::string out =
        "variant,template,arch,config,notes,run_id,run_created,device,ok,passed,median_ms,min_ms,max_ms,reps,tflops,gbps,"
        "pct_of_compute_ceiling,pct_of_copy_bandwidth,baseline,baseline_ms,speedup,registers,sizes\n";
    for (const SessionVariant& v : variants()) {
        for (const StoredRun& r : runsOf(v.id)) {
            const RunReport& p = r.report;
            const BaselineReport* base = p.primaryBaseline();
            std::string sizes;
            for (const auto& [k, value] : p.sizes) sizes += (sizes.empty() ? "" : " ") + k + "=" + std::to_string(value);
            const std::vector<std::string> fields = {
                v.name, v.config.templateId, v.arch, v.config.canonical(), v.notes, std::to_string(r.id), r.createdAt, r.device,
                p.ok ? "1" : "0", p.correctness.passed ? "1" : "0", number(p.medianMs), number(p.minMs), number(p.maxMs),
                std::to_string(p.reps), number(p.tflops), number(p.gbps),
                p.pctOfComputeCeiling ? number(*p.pctOfComputeCeiling) : "", p.pctOfCopyBandwidth ? number(*p.pctOfCopyBandwidth) : "",
                base ? base->name : "", base ? number(base->medianMs) : "", base ? number(base->speedup) : "",
                std::to_string(p.registers), sizes};
            for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csvField(fields[i]);
            out += "\n";
        }
    }
    return out;
}

}  // namespace kx::engine
