// Scripted mode for tests and documentation screenshots.
//
// A script is a text file, one command per line, '#' starts a comment:
//   template gemm            select a template by id
//   arch sm_90               select an architecture
//   set BM=64 BN=128         set parameters (one or more KEY=VALUE)
//   tab source|ptx|log       select a code tab
//   tab occupancy|roofline   open that analysis panel (they sit below the code tabs)
//   view NAME                open the view titled NAME (case-insensitive: occupancy, roofline, resources,
//                            compare)
//   export-roofline FILE     save the roofline chart (FILE.png) or its data (FILE.csv)
//   wait-compile             render until the pending compile finished (at most 120 s)
//   session [FILE]           open the session FILE, or create it when absent; without FILE, the
//                            session a normal start opens (the most recent); wait until it is open
//   file-dialog new|open|save-as   open File > New / Open / Save As's dialog (the built-in one
//                            when KX_NATIVE_DIALOGS=0 or neither zenity nor kdialog is there)
//   demo                     open the demo session (Help > Open Demo Session) and wait for it
//   save-as FILE             save the session as FILE and continue in it
//   keep                     wait like wait-compile, then keep the current variant in the session
//                            and wait until it is written ("pin" is the same command)
//   rename VARIANT NEW       rename a kept variant
//   notes VARIANT TEXT...    set a kept variant's notes (the rest of the line)
//   load-variant VARIANT     put a kept variant in the editor
//   wait-session             write the editor state now and wait until every change is written
//   run                      wait like wait-compile, then run the current variant on the GPU
//                            (fails when there is no GPU or the variant cannot run)
//   fault KIND               launch a planted faulty kernel: out_of_bounds, trap or hang
//   wait-run                 render until the run in flight ended (at most 600 s); prints
//                            "kernel-explorer: run: VARIANT: ..." with its outcome on stderr
//   expect KEY=VALUE...      fail unless the editor's parameters have these values (tests)
//   crash                    end the process with SIGKILL at once, as `kill -9` would
//   compare-select A B       open the Compare view, diff variants A and B and tick both for the
//                            table; a variant is its 1-based position in the session, its name,
//                            or the distinctive tail of its name ("64x128x32_w32x64_s2")
//   compare-tab source|ptx|sass   select a diff tab of the Compare view
//   export-compare FILE      write the Compare view's metrics table as FILE.csv or FILE.md
//   tutorial open ID         open the Tutorials window on tutorial ID (at its saved step)
//   tutorial next|back       the step after or before (next on the last step finishes it)
//   tutorial action N        press the step's N-th "Show me" (1-based) and wait until it is done;
//                            fails with the action's message when it stopped (a run without a GPU)
//   tutorial check           wait for the compile and the session, then fail unless every
//                            checkpoint of the step that needs no GPU run passes; prints
//                            "kernel-explorer: tutorial: STEP: pass|fail|needs a GPU run: LABEL: REASON"
//   tutorial welcome start|dismiss   answer the first-run welcome (fails when none is showing)
//   sweep vary P[=VALUES]    vary parameter P of the editor's template in the Sweep view (all its
//                            values, or VALUES as `kx sweep --vary` takes them)
//   sweep start [compile-only]   open the Sweep view and start the sweep
//   sweep stop               stop it between configs
//   sweep wait               render until the sweep ended (at most 600 s); prints
//                            "kernel-explorer: sweep: COUNTS; N frames, frame time p50 X ms, p99 Y ms"
//   sweep axes X Y           the heatmap's axes; sweep metric tflops|gbps|baseline|time|occupancy|
//                            registers|predicted its colour
//   sweep load best          put the best config (by the colour's metric) into the editor
//   sweep export FILE.csv    write every config's result
//   sweep frame-p99 MS       fail unless the frames drawn during the sweep took at most MS ms (p99)
//   tiles open               open the Tiles view (the tile visualizer of the live config)
//   tiles step N             pause its K-loop animation at step N
//   tiles select I J         show block tile (I, J) (tile row, tile column) in its block and warp panels
//   tiles warp N             show warp (warpgroup) N in its warp panel
//   tiles device ID          place the tiles on device ID (assets/devices)
//   tiles print              print "kernel-explorer: tiles: VARIANT: T tiles, W waves of C, B blocks/SM (SOURCE registers)"
//   tiles export FILE.png    save the Tiles drawing
//   frames N                 render N frames
//   screenshot FILE          save a PNG of the window (may appear several times)
// Syntax errors are found when the file is parsed; unknown names and values when the command runs.
// Both are reported as "FILE:LINE: reason" (the app then exits 2).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kx::app {

class ExplorerApp;

class ScriptError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ScriptCommand {
    enum class Kind {
        Template, Arch, Set, Tab, WaitCompile, Frames, Screenshot, View, ExportRoofline,
        Keep, CompareSelect, CompareTab, ExportCompare, Session, SaveAs, Rename, Notes, LoadVariant,
        WaitSession, Run, Fault, WaitRun, Crash, Expect, Demo, FileDialog, Tutorial, Sweep, Tiles
    };
    Kind kind = Kind::Frames;
    std::string argument;                                     // template id, arch, tab, file
    std::string second;                                       // compare-select: B; rename: new name; notes: text
    std::vector<std::pair<std::string, std::string>> values;  // set, expect
    int count = 0;                                            // frames
    int line = 0;
};

struct Script {
    std::string file;
    std::vector<ScriptCommand> commands;
};

// Throws ScriptError "FILE:LINE: reason" on a syntax error, or "FILE: cannot read" when absent.
Script parseScript(const std::filesystem::path& file);
Script parseScriptText(const std::string& text, const std::string& fileName);

// Steps a script one frame at a time so the UI keeps rendering while it waits.
class ScriptRunner {
public:
    explicit ScriptRunner(Script script) : m_script(std::move(script)) {}

    // Call once per frame after ExplorerApp::update(). Runs commands until one has to wait.
    // Throws ScriptError "FILE:LINE: reason" when a command names something unknown.
    void step(ExplorerApp& app);
    bool done() const { return m_pc >= m_script.commands.size(); }
    // A PNG to write from this frame's pixels, set by step(); cleared by takeScreenshot().
    std::optional<std::string> takeScreenshot() { return std::exchange(m_screenshot, std::nullopt); }

private:
    [[noreturn]] void fail(const ScriptCommand& c, const std::string& reason) const;
    // True while the command must wait for `done` (checked each frame) up to `cap`; fails the
    // command when the session reports an error meanwhile.
    bool waitFor(const ScriptCommand& c, bool done, std::chrono::seconds cap, const char* what);
    int variantIndex(const ScriptCommand& c, ExplorerApp& app, const std::string& name) const;
    // A `tutorial ...` command; true while it must wait.
    bool stepTutorial(const ScriptCommand& c, ExplorerApp& app);
    // A `sweep ...` command; true while it must wait.
    bool stepSweep(const ScriptCommand& c, ExplorerApp& app);
    // A `tiles ...` command; true while it must wait.
    bool stepTiles(const ScriptCommand& c, ExplorerApp& app);

    Script m_script;
    std::size_t m_pc = 0;
    int m_waitFrames = -1;  // frames left for the current command; -1 when not started
    std::optional<std::chrono::steady_clock::time_point> m_waitStart;
    std::optional<std::string> m_screenshot;
};

// Frames rendered after the state settled before a screenshot, so ImGui's one-frame layout lag
// (auto-sized panels, tab switches) is not in the picture.
constexpr int kSettleFrames = 3;
// How long wait-compile and --screenshot wait for a compile.
constexpr std::chrono::seconds kCompileWaitCap{120};
// How long session commands wait for the file, and wait-run for a run.
constexpr std::chrono::seconds kSessionWaitCap{60};
constexpr std::chrono::seconds kRunWaitCap{600};

}  // namespace kx::app
