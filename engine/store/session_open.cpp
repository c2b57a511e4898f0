// SessionStore's opening and creating (the class is declared in session_store.hpp): the checks
// that refuse a file SQLite would misread or damage before anything reads or writes it.
#include "store/session_store.hpp"

#include "store/schema.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kx::engine {

namespace fs = std::filesystem;

// [SECTION] File checks

namespace {

constexpr int kBusyTimeoutMs = 5000;

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

}  // namespace

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

}  // namespace kx::engine
