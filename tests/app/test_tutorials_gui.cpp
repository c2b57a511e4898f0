// The tutorials played end to end in the real app under Xvfb: every "Show me" that needs no GPU
// runs, every checkpoint that needs no GPU turns green, progress is kept in the session file, and
// a first run offers the first tutorial.
#include "gui_harness.hpp"

#include "store/session_store.hpp"
#include "tutorial/tutorial.hpp"

#include <catch2/catch.hpp>

#include <stb/stb_image.h>

#include <algorithm>
#include <regex>
#include <set>
#include <vector>

namespace fs = std::filesystem;
using namespace kx::test;
using namespace kx::engine;

namespace {

void requirePrerequisites() {
    if (!haveXvfbRun()) FAIL("xvfb-run is not installed: the GUI tests need it (apt-get install xvfb)");
    if (!fs::exists(kAppBinary)) FAIL("kernel-explorer is not built: " << kAppBinary << " (build target kernel-explorer)");
}

// A private config folder, so the welcome's "dismissed" mark and the recent list are the test's.
std::string privateEnv(const TempDir& dir) {
    return "XDG_CONFIG_HOME='" + (dir.path / "config").string() + "' XDG_DATA_HOME='" + (dir.path / "data").string() + "'";
}

std::size_t distinctColours(const fs::path& png) {
    int w = 0, h = 0, channels = 0;
    unsigned char* data = stbi_load(png.c_str(), &w, &h, &channels, 3);
    REQUIRE(data != nullptr);
    std::set<unsigned> colours;
    for (int i = 0; i < w * h; ++i) colours.insert(unsigned(data[i * 3]) << 16 | unsigned(data[i * 3 + 1]) << 8 | data[i * 3 + 2]);
    stbi_image_free(data);
    return colours.size();
}

}  // namespace

TEST_CASE("gui: every tutorial plays through, and each checkpoint that needs no GPU turns green", "[app][gui][tutorial]") {
    requirePrerequisites();
    const TutorialLibrary lib = TutorialLibrary::load(fs::path(KX_TEST_SOURCE_DIR) / "tutorials");
    for (const TutorialLoadError& e : lib.errors()) FAIL(e.message);
    REQUIRE_FALSE(lib.tutorials().empty());
    for (const auto& t : lib.tutorials()) {
        DYNAMIC_SECTION(t->id) {
            TempDir dir("tutorial_" + t->id);
            // The script presses every action that needs no GPU, then judges the step.
            std::string script = "session " + (dir.path / "play.kxs").string() + "\ntutorial open " + t->id + "\n";
            int actions = 0, checked = 0;
            std::vector<int> images;  // per step: the prose images the window must show
            for (const TutorialStep& step : t->steps) {
                for (std::size_t a = 0; a < step.actions.size(); ++a) {
                    if (step.actions[a].needsGpu()) continue;
                    script += "tutorial action " + std::to_string(a + 1) + "\n";
                    ++actions;
                }
                script += "tutorial check\ntutorial images\n";
                checked += static_cast<int>(step.checkpoints.size());
                images.push_back(static_cast<int>(std::count_if(step.prose.begin(), step.prose.end(),
                                                                [](const ProseBlock& b) { return b.kind == ProseBlock::Kind::Image; })));
                if (&step == &t->steps.back()) script += "screenshot " + (dir.path / "last.png").string() + "\n";
                script += "tutorial next\n";
            }
            script += "wait-session\n";
            const RunResult r = runApp(dir, "--script '" + writeScript(dir, script).string() + "' --screenshot '" +
                                                (dir.path / "end.png").string() + "' --frames 2",
                                       privateEnv(dir));
            INFO(r.stderrText);
            REQUIRE(r.exitCode == 0);
            CHECK(actions > 0);
            // Every checkpoint was judged; none that needs no GPU failed (the script would have
            // stopped), and the GPU ones said they need a run.
            std::size_t judged = 0, pos = 0;
            while ((pos = r.stderrText.find("kernel-explorer: tutorial: ", pos)) != std::string::npos) {
                if (r.stderrText.compare(pos, 35, "kernel-explorer: tutorial: images: ") != 0) ++judged;
                ++pos;
            }
            CHECK(judged == static_cast<std::size_t>(checked));
            // Each step showed every image of its prose, decoded from the tutorial's folder.
            std::vector<int> shown;
            static const std::regex imageLine(R"(tutorial: images: (\d+) shown, 0 not shown\n)");
            for (auto it = std::sregex_iterator(r.stderrText.begin(), r.stderrText.end(), imageLine); it != std::sregex_iterator(); ++it)
                shown.push_back(std::stoi((*it)[1]));
            CHECK(shown == images);
            CHECK(r.stderrText.find(": fail: ") == std::string::npos);
            CHECK(distinctColours(dir.path / "last.png") > 50);
            // Finishing the last step is kept in the session.
            const SessionStore store = SessionStore::open(dir.path / "play.kxs");
            const auto progress = store.tutorialProgress(t->id);
            REQUIRE(progress);
            CHECK(progress->state == "done");
            CHECK(progress->step == static_cast<int>(t->steps.size()) - 1);
        }
    }
}

// A <size> action sets the Run panel's problem sizes: the tensor-core tutorial's decode step
// (its sixth) leaves M = 16, and the Tiles view then draws the swapped kernel's C^T, 8192 x 16.
TEST_CASE("gui: a tutorial action sets the problem size", "[app][gui][tutorial]") {
    requirePrerequisites();
    TempDir dir("tutorial_size");
    const std::string script = "session " + (dir.path / "size.kxs").string() +
                               "\ntutorial open tensor_cores\ntutorial next\ntutorial next\ntutorial next\ntutorial next\ntutorial next\n"
                               "tutorial action 1\nwait-compile\ntiles open\ntiles print\n";
    const RunResult r = runApp(dir, "--script '" + writeScript(dir, script).string() + "' --screenshot '" + (dir.path / "end.png").string() +
                                        "' --frames 2",
                               privateEnv(dir));
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK(r.stderrText.find("_swap1: ") != std::string::npos);
    CHECK(r.stderrText.find("; computes C^T 8192 x 16") != std::string::npos);
}

TEST_CASE("gui: a first run offers the first tutorial, and the answer is remembered", "[app][gui][tutorial]") {
    requirePrerequisites();
    TempDir dir("tutorial_welcome");
    const fs::path session = dir.path / "first.kxs";
    const fs::path shot = dir.path / "welcome.png";
    RunResult r = runApp(dir,
                         "--script '" + writeScript(dir, "session " + session.string() + "\nframes 3\nscreenshot " + shot.string() +
                                                             "\ntutorial welcome start\ntutorial action 1\ntutorial check\nwait-session\n")
                                            .string() +
                             "' --screenshot '" + (dir.path / "end.png").string() + "' --frames 2",
                         privateEnv(dir));
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK(distinctColours(shot) > 50);
    // Starting it opened the first tutorial at its first step, and the session says so.
    {
        const SessionStore store = SessionStore::open(session);
        const auto all = store.allTutorialProgress();
        REQUIRE(all.size() == 1);
        CHECK(all[0].step == 0);
        CHECK(all[0].state == "active");
    }
    // Dismissed once: a new, empty session no longer shows it.
    r = runApp(dir,
               "--script '" + writeScript(dir, "session " + (dir.path / "second.kxs").string() + "\ntutorial welcome dismiss\n").string() +
                   "' --screenshot '" + (dir.path / "end2.png").string() + "' --frames 2",
               privateEnv(dir));
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find("no first-run welcome is showing") != std::string::npos);
}

TEST_CASE("gui: a tutorial reopens at the step kept in the session", "[app][gui][tutorial]") {
    requirePrerequisites();
    TempDir dir("tutorial_resume");
    const fs::path session = dir.path / "resume.kxs";
    {
        SessionStore store = SessionStore::create(session);
        store.setTutorialProgress("first_kernel", 1, "active");
    }
    // Step 2 of first_kernel ("scalar") is the one whose action sets VEC=1.
    const RunResult r = runApp(dir,
                               "--script '" +
                                   writeScript(dir, "session " + session.string() + "\ntutorial open first_kernel\ntutorial action 1\nexpect VEC=1\ntutorial check\n")
                                       .string() +
                                   "' --screenshot '" + (dir.path / "end.png").string() + "' --frames 2",
                               privateEnv(dir));
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    CHECK(r.stderrText.find("kernel-explorer: tutorial: scalar: pass: VEC = 1") != std::string::npos);
}

// A "Run it" action ends when the run has started; `tutorial check` waits for the run to land
// and judges it. The stand-in runner claims a GPU and answers with zero-filled outputs, so the
// run's check fails: the verdict names that run, not "needs a GPU run".
TEST_CASE("gui: a tutorial checkpoint judges the run its action started", "[app][gui][tutorial]") {
    requirePrerequisites();
    TempDir dir("tutorial_run");
    const RunResult r = runApp(dir,
                               "--script '" +
                                   writeScript(dir, "session " + (dir.path / "s.kxs").string() +
                                                        "\ntutorial open first_kernel\ntutorial next\ntutorial next\ntutorial action 1\n"
                                                        "tutorial action 3\ntutorial check\n")
                                       .string() +
                                   "' --screenshot '" + (dir.path / "x.png").string() + "'",
                               privateEnv(dir) + " KX_RUNNER='" KX_FAKE_RUNNER "' KX_FAKE_RUNNER_DRIVER=1");
    INFO(r.stderrText);
    CHECK(r.exitCode == 2);  // the failing checkpoint stops the script
    CHECK(r.stderrText.find("tutorial: vector: fail: a run passes its check: the latest run's check: FAIL") != std::string::npos);
    CHECK(r.stderrText.find("needs a GPU run") == std::string::npos);
}

// "Show me the tiles" opens a floating window, which takes the focus as it appears; the learner
// is still reading the step, so the Tutorials window must come back in front of it (after the
// welcome, it did not).
TEST_CASE("gui: the Tutorials window stays in front of a view its action opens", "[app][gui][tutorial]") {
    requirePrerequisites();
    TempDir dir("tutorial_front");
    const RunResult r = runApp(dir,
                               "--script '" +
                                   writeScript(dir, "session " + (dir.path / "new.kxs").string() +
                                                        "\nframes 3\ntutorial welcome start\ntutorial open matmul_ladder\nfront\n"
                                                        "tutorial action 1\ntutorial action 2\nwait-compile\nframes 3\nfront\n")
                                       .string() +
                                   "' --screenshot '" + (dir.path / "x.png").string() + "'",
                               privateEnv(dir));
    INFO(r.stderrText);
    REQUIRE(r.exitCode == 0);
    const auto first = r.stderrText.find("kernel-explorer: front: Tutorials");
    REQUIRE(first != std::string::npos);
    CHECK(r.stderrText.find("kernel-explorer: front: Tutorials", first + 1) != std::string::npos);
    CHECK(r.stderrText.find("kernel-explorer: front: Tiles") == std::string::npos);
}

TEST_CASE("gui: tutorial script commands reject what they cannot do", "[app][gui][tutorial]") {
    requirePrerequisites();
    TempDir dir("tutorial_errors");
    RunResult r = runApp(dir, "--script '" + writeScript(dir, "tutorial open nope\n").string() + "' --screenshot '" +
                                  (dir.path / "x.png").string() + "'",
                         privateEnv(dir));
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(":1: unknown tutorial 'nope'") != std::string::npos);
    r = runApp(dir, "--script '" + writeScript(dir, "tutorial action 0\n").string() + "' --screenshot '" + (dir.path / "x.png").string() + "'",
               privateEnv(dir));
    CHECK(r.exitCode == 2);
    CHECK(r.stderrText.find(":1: 'tutorial action' needs a positive number, got '0'") != std::string::npos);
    // A run without a GPU stops with a message that says so.
    r = runApp(dir, "--script '" + writeScript(dir, "tutorial open first_kernel\ntutorial next\ntutorial next\ntutorial action 3\n").string() +
                        "' --screenshot '" + (dir.path / "x.png").string() + "'",
               privateEnv(dir));
    if (r.exitCode == 0) WARN("a GPU is present: the run action ran");
    else CHECK(r.stderrText.find("the action stopped: Running needs an NVIDIA GPU") != std::string::npos);
}
