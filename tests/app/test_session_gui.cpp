// Sessions in the real app under Xvfb: keep a variant, rename it, write notes, leave the editor
// on another config, die by SIGKILL, start again and find everything; Save As; files the app
// must refuse without crashing; the recent list.
#include "gui_harness.hpp"

#include "store/session_store.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace kx::test;
using kx::engine::SessionStore;

namespace {

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

// HOME and the XDG folders inside the test's folder: the recent list and default sessions of a
// test never touch the user's.
std::string isolatedHome(const TempDir& dir) {
    const fs::path home = dir.path / "home";
    fs::create_directories(home);
    return "HOME='" + home.string() + "' XDG_CONFIG_HOME='" + (home / ".config").string() + "' XDG_DATA_HOME='" +
           (home / ".local/share").string() + "' KX_NATIVE_DIALOGS=0";
}

}  // namespace

TEST_CASE("gui: a kept variant survives kill -9 and the app reopens where the user was", "[app][gui][session]") {
    requirePrerequisites();
    TempDir dir("session_kill");
    const fs::path session = dir.path / "work.kxs";
    const std::string env = isolatedHome(dir);

    // First life: keep a 64-row tile, name it, annotate it, move the editor on, and die.
    const fs::path first = writeScript(dir, "session " + session.string() + R"(
template gemm
arch sm_90
set BM=64
keep
rename 1 fast64
notes fast64 64-row tiles for skinny problems
set BM=128 BN=64
wait-session
crash
)");
    const RunResult killed = runApp(dir, "--script '" + first.string() + "'", env);
    INFO(killed.stderrText);
    CHECK(killed.exitCode != 0);  // SIGKILL: no clean exit
    REQUIRE(fs::exists(session));

    {
        const SessionStore store = SessionStore::open(session);
        CHECK(store.integrityCheck() == "ok");
        const auto v = store.findVariant("fast64");
        REQUIRE(v);
        CHECK(v->config.values.at("BM") == "64");
        CHECK(v->notes == "64-row tiles for skinny problems");
        CHECK(store.artifactOf(v->id, kx::engine::ArtifactKind::Source).value_or("").find("__global__") != std::string::npos);
        CHECK(store.artifactOf(v->id, kx::engine::ArtifactKind::Ptx).value_or("").find(".entry") != std::string::npos);
        CHECK(store.artifactOf(v->id, kx::engine::ArtifactKind::Resources).value_or("").find("registers") != std::string::npos);
        CHECK(store.editorState().find("\"BN\":\"64\"") != std::string::npos);
    }

    // Second life: the session a normal start opens (the most recent one) shows the editor where
    // it was, and the kept variant loads back into it.
    const fs::path shot = dir.path / "reopened.png";
    fs::path second = dir.path / "second.script";
    std::ofstream(second) << "session\nexpect BM=128 BN=64\nload-variant fast64\nexpect BM=64 BN=128\nview variants\nscreenshot " << shot.string()
                          << "\n";
    const RunResult reopened = runApp(dir, "--script '" + second.string() + "' --screenshot '" + (dir.path / "final.png").string() + "'", env);
    INFO(reopened.stderrText);
    CHECK(reopened.exitCode == 0);
    CHECK(fs::exists(shot));
}

TEST_CASE("gui: Save As copies the session and carries on in the copy", "[app][gui][session]") {
    requirePrerequisites();
    TempDir dir("session_save_as");
    const fs::path a = dir.path / "a.kxs";
    const fs::path b = dir.path / "b.kxs";
    const fs::path script = writeScript(dir, "session " + a.string() + "\ntemplate reduce\narch sm_90\nkeep\nsave-as " + b.string() +
                                                 "\nset BLOCK=128\nkeep\nwait-session\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'",
                               isolatedHome(dir));
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    // The first variant is in both; the one kept after Save As only in the copy.
    CHECK(SessionStore::open(a).variants().size() == 1);
    CHECK(SessionStore::open(b).variants().size() == 2);
    // Both went to the recent list, the copy first.
    const std::string recent = readFile(dir.path / "home/.config/kernel-explorer/recent.json");
    INFO(recent);
    CHECK(recent.find("b.kxs") < recent.find("a.kxs"));
}

TEST_CASE("gui: a file that is not a session is refused with a reason", "[app][gui][session]") {
    requirePrerequisites();
    TempDir dir("session_bad");
    const fs::path bad = dir.path / "notes.kxs";
    std::ofstream(bad) << "this is a text file, not a session\n";
    const fs::path script = writeScript(dir, "session " + bad.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'",
                               isolatedHome(dir));
    INFO(r.stderrText);
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(script.string() + ":1: cannot open " + bad.string()) != std::string::npos);
    CHECK(r.stderrText.find("not an SQLite file") != std::string::npos);
    CHECK(readFile(bad) == "this is a text file, not a session\n");  // untouched
}

TEST_CASE("gui: a read-only session opens for reading and refuses changes", "[app][gui][session]") {
    requirePrerequisites();
    TempDir dir("session_read_only");
    const fs::path file = dir.path / "ro.kxs";
    {
        SessionStore store = SessionStore::create(file);
    }
    fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const fs::path script = writeScript(dir, "session " + file.string() + "\ntemplate reduce\narch sm_90\nkeep\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'",
                               isolatedHome(dir));
    INFO(r.stderrText);
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(script.string() + ":4: cannot keep: the session is read-only") != std::string::npos);
    fs::permissions(file, fs::perms::owner_all);
}

TEST_CASE("gui: the demo session opens as a copy, with measured runs to compare", "[app][gui][session]") {
    requirePrerequisites();
    TempDir dir("session_demo");
    const fs::path shipped = fs::path(KX_TEST_SOURCE_DIR) / "sessions" / "demo.kxs";
    REQUIRE(fs::exists(shipped));
    const std::string before = readFile(shipped);
    const fs::path csv = dir.path / "demo.csv";
    const fs::path script = writeScript(dir, "demo\ncompare-select 1 3\nexport-compare " + csv.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "demo.png").string() + "'",
                               isolatedHome(dir));
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    // The user works in a copy; the shipped file stays as it is.
    CHECK(fs::exists(dir.path / "home/.local/share/kernel-explorer/sessions/demo.kxs"));
    CHECK(readFile(shipped) == before);
    // Real timings, ratios to cuBLAS and the notes that say why the fastest wins.
    const std::string table = readFile(csv);
    INFO(table);
    CHECK(table.find("\nTime (median),ms,") != std::string::npos);
    CHECK(table.find("\nvs baseline,") != std::string::npos);
    CHECK(table.find("\nNotes,,") != std::string::npos);
    CHECK(table.find("Fastest fp32 here") != std::string::npos);
}

TEST_CASE("gui: the built-in file dialog lists sessions and folders", "[app][gui][session]") {
    requirePrerequisites();
    TempDir dir("session_dialog");
    const fs::path home = dir.path / "home";
    const fs::path sessions = home / ".local/share/kernel-explorer/sessions";
    fs::create_directories(sessions / "older");
    {
        SessionStore a = SessionStore::create(sessions / "tiles.kxs");
    }
    const fs::path shot = dir.path / "dialog.png";
    const fs::path script = writeScript(dir, "session " + (sessions / "work.kxs").string() + "\nfile-dialog open\nscreenshot " + shot.string() + "\n");
    const RunResult r = runApp(dir, "--script '" + script.string() + "' --screenshot '" + (dir.path / "x.png").string() + "'",
                               isolatedHome(dir));
    INFO(r.stderrText);
    CHECK(r.exitCode == 0);
    CHECK(fs::exists(shot));
}
