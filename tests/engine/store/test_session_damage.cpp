// Damaged session files are refused with one line naming the file and the damage, before
// anything reads or writes them: a missing table, a file cut short, a corrupt page.
#include "store/session_store.hpp"
#include "util/error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace kx::engine;

namespace {

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("kx-session-damage-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path p = dir / name;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
    return p;
}

std::string bytesOf(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeBytes(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

// A closed session with one variant and its notes.
fs::path healthy(const std::string& name) {
    const fs::path p = scratch(name);
    {
        SessionStore s = SessionStore::create(p);
        Config c;
        c.templateId = "gemm";
        c.values = {{"BM", "128"}};
        s.addVariant("v1", "sm_90", c, "first notes");
    }
    REQUIRE_FALSE(fs::exists(p.string() + "-wal"));
    return p;
}

// Opening fails with one line that names the file and holds `reason`; the file is unchanged.
void requireRefused(const fs::path& p, const std::string& reason) {
    const std::string before = bytesOf(p);
    std::string message;
    try {
        SessionStore::open(p);
        FAIL("the damaged session " << p << " was opened");
    } catch (const InputError& e) {
        message = e.what();
    }
    INFO(message);
    CHECK_THAT(message, Catch::Contains(p.string()) && Catch::Contains(reason));
    CHECK(message.find('\n') == std::string::npos);
    CHECK(bytesOf(p) == before);
}

}  // namespace

TEST_CASE("a session missing one of its tables is refused, not half read", "[store][reliability]") {
    for (const char* table : {"runs", "artifacts", "tutorial_progress", "variants", "sweep_points", "presets"}) {
        INFO(table);
        const fs::path p = healthy(std::string("dropped_") + table + ".kxs");
        {
            SQLite::Database db(p.string(), SQLite::OPEN_READWRITE);
            db.exec(std::string("DROP TABLE ") + table);
        }
        requireRefused(p, std::string("is damaged: its table '") + table + "' is missing");
    }
}

TEST_CASE("a session missing its last byte is refused and not rewritten", "[store][reliability]") {
    const fs::path p = healthy("short_byte.kxs");
    const std::string whole = bytesOf(p);
    writeBytes(p, whole.substr(0, whole.size() - 1));
    requireRefused(p, "is damaged: truncated");
}

TEST_CASE("a session missing its last page is refused and not rewritten", "[store][reliability]") {
    const fs::path p = healthy("short_page.kxs");
    const std::string whole = bytesOf(p);
    const std::size_t pageSize = (static_cast<unsigned char>(whole[16]) << 8) | static_cast<unsigned char>(whole[17]);
    REQUIRE(whole.size() >= 3 * pageSize);
    writeBytes(p, whole.substr(0, whole.size() - pageSize));
    requireRefused(p, "is damaged: truncated (its header counts");
}

TEST_CASE("a session with a corrupt page is refused in one line", "[store][reliability]") {
    const fs::path demo = fs::path(KX_TEST_SOURCE_DIR) / "sessions" / "demo.kxs";
    const std::string whole = bytesOf(demo);
    const std::size_t pageSize = (static_cast<unsigned char>(whole[16]) << 8) | static_cast<unsigned char>(whole[17]);
    for (std::size_t page : {std::size_t{3}, whole.size() / pageSize / 2}) {
        INFO("page " << page);
        const fs::path p = scratch("corrupt_" + std::to_string(page) + ".kxs");
        std::string bytes = whole;
        for (std::size_t i = 0; i < 200; ++i) bytes[page * pageSize + i] = 'A';
        writeBytes(p, bytes);
        requireRefused(p, "");
    }
}

TEST_CASE("a healthy session still opens and takes notes", "[store][reliability]") {
    const fs::path p = healthy("healthy.kxs");
    SessionStore s = SessionStore::open(p);
    const auto v = s.findVariant("v1");
    REQUIRE(v);
    s.setNotes(v->id, "second notes");
    CHECK(s.findVariant("v1")->notes == "second notes");
}
