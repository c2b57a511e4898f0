// Scripted mode for tests and documentation screenshots.
//
// A script is a text file, one command per line, '#' starts a comment:
//   template gemm            select a template by id
//   arch sm_90               select an architecture
//   set BM=64 BN=128         set parameters (one or more KEY=VALUE)
//   preset NAME              lay the arch's tuned preset NAME over the editor's config, as Start from does
//   size N=8 C=32 ...        set problem sizes in the Run panel, as typing them there does
//   run-options KEY=VALUE... the Run panel's settings: counters=on|off (Count memory traffic),
//                            reps=N, timeout=SECONDS (a run past it is a hang: the runner is killed)
//   print-launch             print "kernel-explorer: launch: grid X x Y x Z, block X x Y x Z, dynamic smem B
//                            bytes, for SIZES" (the geometry follows the Run panel's sizes from the next frame),
//                            and "kernel-explorer: sizes: the problem preset NAME was tuned for" while they are
//   print-waves              print the Occupancy panel's waves line ("kernel-explorer: waves: on DEVICE: 288 blocks,
//                            264 at once (132 SMs x 2): 2 waves, ..."); the panel must have been drawn
//   tab source|ptx|sass|log  select a code tab
//   code select LINE|TEXT... select a source line (by number, or the first holding TEXT) as a click
//                            does, after the compile and disassembly, scrolling the panes to its code
//                            (0 clears the selection and leaves the panes where they are)
//   code hover ptx|sass [N]  show the tooltip of that pane's line N as if hovered (opcode docs,
//                            control bits); without N the first line of the selected source line
//   code split ptx|sass|off  what the Source tab shows beside the source
//   code peak                scroll the SASS panes to the peak of live registers and hover it
//   code print               print "kernel-explorer: code: line L: P PTX lines, S SASS lines, peak R live registers;
//                            top lines: source A, PTX B, SASS C" (the first line each tab showed when last drawn)
//   tab occupancy|roofline   open that analysis panel (they sit below the code tabs)
//   view NAME                open the view titled NAME (case-insensitive: occupancy, roofline, resources,
//                            compare)
//   close NAME               close the view titled NAME, as its window's close button or the View menu does
//   export-roofline FILE     save the roofline chart (FILE.png) or its data (FILE.csv)
//   higher-roof N            print the Roofline panel's higher roofs ("kernel-explorer: higher roofs: gemm_mma 14.8x
//                            (FP16 tensor, sm_90), ..."), then open the N-th as its button does (1-based; 0:
//                            print only); the panel must have been drawn for the current config
//   wait-compile             render until the pending compile and the GPU probe finished (at most 120 s)
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
//   expect KEY=VALUE...      fail unless the editor's parameters (or compiler flags) have these values (tests)
//   crash                    end the process with SIGKILL at once, as `kill -9` would
//   gl-reset                 replace the window and its OpenGL context as a GPU reset of the context
//                            makes the app do (gl_context.hpp), before the next frame
//   compare-select A B       open the Compare view, diff variants A and B and tick both for the
//                            table; a variant is its 1-based position in the session, its name,
//                            or the distinctive tail of its name ("64x128x32_w32x64_s2")
//   compare-table A B [C D]  open the Compare view and tick exactly these variants (2 to 4, in the same
//                            forms as compare-select) for its table and roofline; the diff pair stays
//   compare-tab source|ptx|sass   select a diff tab of the Compare view
//   export-compare FILE      write the Compare view's metrics table as FILE.csv or FILE.md
//   tutorial open ID         open the Tutorials window on tutorial ID (at its saved step)
//   tutorial next|back       the step after or before (next on the last step finishes it)
//   tutorial action N        press the step's N-th "Show me" (1-based) and wait until it is done;
//                            fails with the action's message when it stopped (a run without a GPU)
//   tutorial check           wait for the compile, a run in flight and the session, then fail unless every
//                            checkpoint of the step that needs no GPU run passes; prints
//                            "kernel-explorer: tutorial: STEP: pass|fail|needs a GPU run: LABEL: REASON"
//   tutorial images          print "kernel-explorer: tutorial: images: N shown, M not shown[; WHY...]" for the
//                            prose images of the step drawn last
//   tutorial welcome start|dismiss   answer the first-run welcome (fails when none is showing)
//   sweep vary P[=VALUES]    vary parameter P of the editor's template, or compiler flag P
//                            (maxrregcount, fast_math, ptxas_opt, extra_vectorization), in the Sweep
//                            view (all its values, or VALUES as `kx sweep --vary` takes them)
//   sweep preselected NAME|none   start the space from the template's preselected set NAME (or not)
//   sweep sample N [SEED]    sweep N configs drawn at random from the space (0: all), with SEED
//   sweep start [compile-only]   open the Sweep view and start the sweep
//   sweep stop               stop it between configs
//   sweep wait               render until the sweep ended (at most 600 s); prints
//                            "kernel-explorer: sweep: COUNTS; N frames, frame time p50 X ms, p99 Y ms"
//   sweep axes X Y           the heatmap's axes; sweep metric tflops|gbps|baseline|time|occupancy|
//                            registers|predicted|busy its colour
//   sweep load best          put the best config (by the colour's metric) into the editor
//   sweep export FILE.csv    write every config's result; FILE.png: the heatmap and scatter as drawn
//   sweep frame-p99 MS       fail unless the frames drawn during the sweep took at most MS ms (p99)
//   tiles open               open the Tiles view (the tile visualizer of the live config)
//   tiles step N             pause its K-loop animation at step N
//   tiles select I J         show block tile (I, J) (tile row, tile column) in its block and warp panels
//   tiles warp N             show warp (warpgroup) N in its warp panel
//   tiles device ID          place the tiles on device ID (assets/devices)
//   tiles print              print "kernel-explorer: tiles: VARIANT: T tiles, W waves of C, B blocks/SM (SOURCE registers)"
//   tiles export FILE.png    save the Tiles drawing
//   frame-stats [reset]      print "kernel-explorer: frame-stats: N frames, p50 X ms, p99 Y ms, max Z ms; UI build
//                            p50 X ms, p99 Y ms" over the frames since the start or the last reset (reset:
//                            start counting again); "UI build" is the part before the renderer
//   frame-stats max-p99 MS   fail unless those frames' p99 is at most MS milliseconds
//   wheel VIEW N [FRAMES]    turn the mouse wheel N notches (positive: down) over view VIEW ("code",
//                            "roofline", ...), on each of FRAMES frames (default 1)
//   key CHORD                press a key for one frame: ctrl+m, shift+f6, ctrl+equal, ctrl+minus, ctrl+0, ...
//   layout NAME SHARE        move a splitter: left, right (column widths), centre-top, kernel,
//                            variants, run-top (heights), below-1, below-2 ... (as shares of the window)
//   layout reset             every splitter back to the shipped layout
//   maximise [VIEW]          maximise the view titled VIEW; without VIEW, restore the layout
//   theme dark|light         switch the theme
//   zoom PERCENT             set the zoom (70 to 250)
//   print-layout             print "kernel-explorer: layout: TITLE X Y W H" for every panel on screen
//   idle-cpu SECONDS [MAX]   wait until nothing moves, then let the app sleep on events for SECONDS
//                            and print "kernel-explorer: idle-cpu: P% of a core over S s, F frames";
//                            fail when P is above MAX
//   theme-check              print the lowest text contrast of each theme; fail below 4.5:1
//   quit                     end the app as File > Quit does (scripts without --screenshot keep
//                            the window open otherwise)
//   kernel paste FILE        make a user template of the kernel in FILE as Edit > New kernel from
//                            clipboard does with the clipboard's text, select it, open Your kernel
//   kernel copy              copy the editor's template as a user template (Your kernel's button)
//   kernel open ID           open the user template ID in Your kernel and the editor
//   kernel tab FILE          show FILE's tab in Your kernel (manifest.xml, kernel.cu, ...)
//   kernel replace FILE OLD NEW   replace the first OLD in FILE with NEW, as typing would (saved
//                            and reloaded after the usual short delay)
//   kernel wait              render until the last edit is saved, loaded and compiled (at most 120 s)
//   kernel print             print "kernel-explorer: kernel: ID: VARIANT on ARCH: flags F[ (cap applied)];
//                            R registers, spills S+L bytes; loaded|error: REASON"
//   flag KEY=VALUE...        set compiler flags of the editor's variant: maxrregcount=N, fast_math=true,
//                            ptxas_opt=0..3, extra_vectorization=true (expect checks them like parameters)
//   share copy               Edit > Copy share string; prints "kernel-explorer: share: STRING"
//   share open [STRING]      Edit > Open share string from clipboard (STRING instead of the clipboard's
//                            text when given); prints "kernel-explorer: share: opened ..."; fails
//                            with the reason when the string is refused
//   frames N                 render N frames
//   screenshot FILE          save a PNG of the window (may appear several times)
// Syntax errors are found when the file is parsed; unknown names and values when the command runs.
// Both are reported as "FILE:LINE: reason" (the app then exits 2).
#pragma once

#include <imgui.h>

#include <chrono>
#include <filesystem>
#include <functional>
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
        Template, Arch, Set, Tab, WaitCompile, Frames, Screenshot, View, CloseView, ExportRoofline,
        Keep, CompareSelect, CompareTable, CompareTab, ExportCompare, Session, SaveAs, Rename, Notes, LoadVariant,
        WaitSession, Run, Fault, WaitRun, Crash, GlReset, Expect, Demo, FileDialog, Tutorial, Sweep, Tiles, Workspace, Code,
        UserKernel, Flag, Share, Front, Preset, Size, RunOptions, PrintLaunch, PrintWaves, HigherRoof
    };
    Kind kind = Kind::Frames;
    std::string argument;                                     // template id, arch, tab, file
    std::string second;                                       // compare-select: B; rename: new name; notes: text
    std::vector<std::pair<std::string, std::string>> values;  // set, expect, size, run-options; compare-table: the variants
    int count = 0;                                            // frames
    int line = 0;
};

struct Script {
    std::string file;
    std::vector<ScriptCommand> commands;
};

// The workspace and measurement commands (frame-stats, wheel, key, layout, maximise, theme,
// zoom, print-layout, idle-cpu, theme-check), parsed in script_workspace.cpp: fills `c`, or
// throws std::invalid_argument with the reason (without FILE:LINE) on bad arguments.
bool isWorkspaceCommand(const std::string& word);
// The `code ...` commands of the linked code panes, parsed in script_code.cpp like the above.
void parseCodeCommand(const std::vector<std::string>& words, ScriptCommand& c);
void parseWorkspaceCommand(const std::vector<std::string>& words, ScriptCommand& c);
// The `kernel ...`, `flag ...` and `share ...` commands, parsed in script_user.cpp like the above.
bool isUserCommand(const std::string& word);
void parseUserCommand(const std::vector<std::string>& words, ScriptCommand& c);

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
    // Set by gl-reset; cleared by the frame loop, which then makes the window anew.
    bool takeContextResetRequest() { return std::exchange(m_contextReset, false); }
    // Mouse wheel and keys a `wheel` or `key` command asked for; call after the platform
    // backend's NewFrame and before ImGui::NewFrame.
    void injectInput(ExplorerApp& app, ImGuiIO& io);
    // True while an `idle-cpu` measurement lets the main loop sleep on events.
    bool allowsSleep() const { return m_idleStart.has_value(); }

private:
    // One command; true while it must wait. Each step function below takes the commands of one
    // area and returns the same (those that never wait return nothing).
    bool stepCommand(const ScriptCommand& c, ExplorerApp& app);
    // template, arch, set, expect, tab, view, load-variant, file-dialog.
    void stepEditor(const ScriptCommand& c, ExplorerApp& app);
    // export-roofline, higher-roof (script_roofline.cpp).
    bool stepExportRoofline(const ScriptCommand& c, ExplorerApp& app);
    void stepHigherRoof(const ScriptCommand& c, ExplorerApp& app);
    // A PNG that a view reads back while a frame renders: request() asks on the first call, then
    // this waits for that frame (true while waiting). Fails saying `drawnBy` was not drawn when
    // the frame never came, or with outcome() when no file was written.
    bool awaitPng(const ScriptCommand& c, const std::filesystem::path& file, const char* drawnBy, const std::function<void()>& request,
                  const std::function<bool()>& pending, const std::function<std::string()>& outcome);
    // wait-compile, frames, screenshot.
    bool stepFrames(const ScriptCommand& c, ExplorerApp& app);
    bool stepKeep(const ScriptCommand& c, ExplorerApp& app);
    // session, demo, save-as, rename, notes, wait-session.
    bool stepSession(const ScriptCommand& c, ExplorerApp& app);
    // run, fault, wait-run.
    bool stepRun(const ScriptCommand& c, ExplorerApp& app);
    // compare-select, compare-tab, export-compare.
    void stepCompare(const ScriptCommand& c, ExplorerApp& app);
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
    // A workspace or measurement command (script_workspace.cpp); true while it must wait.
    bool stepWorkspace(const ScriptCommand& c, ExplorerApp& app);
    // idle-cpu: settle, then measure the process's CPU time while the app sleeps on events.
    bool stepIdleCpu(const ScriptCommand& c, ExplorerApp& app);
    // A `code ...` command (script_code.cpp); true while it must wait.
    bool stepCode(const ScriptCommand& c, ExplorerApp& app);
    // A `kernel`, `flag` or `share` command (script_user.cpp); true while it must wait.
    bool stepUser(const ScriptCommand& c, ExplorerApp& app);

    Script m_script;
    std::size_t m_pc = 0;
    int m_waitFrames = -1;  // frames left for the current command; -1 when not started
    std::optional<std::chrono::steady_clock::time_point> m_waitStart;
    std::optional<std::string> m_screenshot;
    bool m_contextReset = false;
    // Input to inject: wheel notches over a view for some frames; a key held for one frame.
    std::string m_wheelView;
    float m_wheelNotches = 0;
    int m_wheelFrames = 0;
    int m_key = -1;
    bool m_keyCtrl = false, m_keyShift = false, m_keyReleasePending = false;
    // idle-cpu: when the measurement began, the process CPU seconds and frames then.
    std::optional<std::chrono::steady_clock::time_point> m_idleStart;
    double m_idleCpuStart = 0;
    std::size_t m_idleFramesStart = 0;
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
