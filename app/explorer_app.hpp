// The application shell: the menu bar, the flat list of views, the shortcuts, and the tiled
// layout that places them (left column, centre, right column, status bar; splitters between
// them; one panel maximised on Ctrl+M). One frame = update() then draw(); between frames the
// main loop asks wantsFrames() whether to draw again at once or sleep until input.
#pragma once

#include "explorer_model.hpp"
#include "frame_times.hpp"
#include "native_file_dialog.hpp"
#include "sweep_model.hpp"
#include "theme.hpp"
#include "tutorial_model.hpp"
#include "user_template_model.hpp"
#include "views/code_tabs_view.hpp"
#include "views/compare_view.hpp"
#include "views/file_dialog_view.hpp"
#include "views/occupancy_view.hpp"
#include "views/roofline_view.hpp"
#include "views/tile_view.hpp"
#include "views/sweep_view.hpp"
#include "views/tutorials_view.hpp"
#include "views/user_template_view.hpp"
#include "views/variants_view.hpp"
#include "views/view.hpp"
#include "workspace_layout.hpp"
#include "workspace_settings.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kx::app {

class ExplorerApp {
public:
    // `workspace`: the layout, theme and zoom to start with; `defaults` what Reset layout and
    // a double-click on a splitter go back to. Changes are saved to `workspaceFile` (none when
    // empty: scripted runs leave the user's layout alone unless given --workspace).
    ExplorerApp(ExplorerModel& model, const Theme& theme, WorkspaceSettings workspace, WorkspaceSettings defaults,
                std::filesystem::path workspaceFile);

    // Start of a frame, before ImGui::NewFrame(): applies compile results, starts due compiles.
    void update() {
        m_model.update();
        m_nativeDialog.update();
        updateTutorials();
        m_sweepModel->update();
        m_userTemplates->update();
    }
    // Between ImGui::NewFrame() and ImGui::Render().
    void draw();

    ExplorerModel& model() { return m_model; }
    void selectTab(CodeTab tab) { m_codeTabs->selectTab(tab); }
    CodeTabsView& codeTabs() { return *m_codeTabs; }
    // Opens the view whose title matches name, case-insensitively ("occupancy", "roofline").
    // Returns false when there is none.
    bool showView(std::string_view name, bool open = true);  // open false: closes it
    RooflineView& roofline() { return *m_roofline; }
    OccupancyView& occupancy() { return *m_occupancy; }
    CompareView& compare() { return *m_compare; }
    VariantsView& variants() { return *m_variants; }
    // The tile visualizer of the live config (View > Tiles).
    TileView& tileView() { return *m_tileView; }
    // Sweeps of the editor's template (Run > Sweep configs) and their window.
    SweepModel& sweeps() { return *m_sweepModel; }
    SweepView& sweepView() { return *m_sweepView; }
    // The user's own templates and their editor (Edit > Your kernel).
    UserTemplateModel& userTemplates() { return *m_userTemplates; }
    UserTemplateView& userTemplateView() { return *m_userTemplateView; }
    // Edit > Copy share string: the editor's variant as a share string on the clipboard. Returns
    // the string, or "" with *why set when there is nothing to share.
    std::string copyShareString(std::string* why = nullptr);
    // Edit > Open share string from clipboard (text: the clipboard's when null). Returns false
    // with *message saying why; the outcome shows in the menu bar either way.
    bool openShareString(const char* text, std::string* message = nullptr);
    // The tutorial player and its window (Help > Tutorials).
    TutorialModel& tutorials() { return *m_tutorialModel; }
    TutorialsView& tutorialsView() { return *m_tutorialsView; }
    // The title of the window in front of the others (the one focused last), for scripts.
    std::string frontWindow() const;
    // Keeps the current variant in the session; it appears in the Variants and Compare views once
    // written. Returns false with why when it cannot be kept (not compiled yet, read-only session).
    bool keepCurrent(std::string* why = nullptr);
    // Asks for a session file: the desktop's dialog (zenity, kdialog) when there is one, else the
    // built-in one. File > New, Open and Save As go through here.
    void requestFile(FileRequest request);
    // File > New Session, Open Session, Save Session As: each asks for a file first.
    void newSession();
    void openSession();
    void saveSessionAs();
    // Help > Open Demo Session: the shipped demo (a copy of it) with the Compare view open.
    void openDemo();
    // True once File > Quit was chosen.
    bool quitRequested() const { return m_quit; }
    void requestQuit() { m_quit = true; }

    // --- Workspace: layout, maximised panel, theme, zoom --------------------------------------
    WorkspaceSettings& workspace() { return m_workspace; }
    // Maximises the view titled `title` (case-insensitive), or restores the layout when it is the
    // maximised one already or empty. False when no open, tiled view has that title.
    bool toggleMaximised(std::string_view title);
    // View > Reset layout: the splitters back to the shipped layout (theme and zoom stay).
    void resetLayout();
    void setTheme(ThemeKind kind);
    // Zoom in steps of WorkspaceSettings::kZoomStep (Ctrl +/-); 0 goes back to 100%.
    void zoomBy(int steps);
    void setZoom(float zoom);
    // True once after the theme or zoom changed: the main loop rebuilds the style and fonts
    // between frames (the font atlas cannot change inside one).
    bool takeAppearanceChange() { return std::exchange(m_appearanceChanged, false); }
    // Writes the workspace file now when something changed since it was last written.
    void saveWorkspace();
    const std::string& workspaceMessage() const { return m_workspaceMessage; }
    // The view titled `title` (case-insensitive), or nullptr.
    View* findView(std::string_view title);
    const std::vector<std::unique_ptr<View>>& views() const { return m_views; }

    // --- Frame pacing ---------------------------------------------------------------------------
    // The app's own frame times (main.cpp records them; View > Performance and `frame-stats` read).
    FrameTimes& frameTimes() { return m_frameTimes; }
    // The part of each frame spent building the UI (models, views, ImGui's draw lists), before
    // the renderer rasterises it: what the app costs apart from the GL driver.
    FrameTimes& buildTimes() { return m_buildTimes; }
    // Why the app must keep drawing now (a compile, a run, a sweep, an animation), or "" when
    // nothing moves and it may sleep until the next input.
    std::string activity() const;
    // Nothing moves on screen, but something in the background will post a result to show
    // (a session write, a file dialog, a tutorial check): wake up soon to look.
    bool pollSoon() const;
    // Kernels are being timed on the GPU (a run, or a sweep that runs its configs): the window
    // then draws at a few frames a second, since on a GPU that also draws the window every frame
    // competes with the kernel being timed.
    bool measuringOnGpu() const;

private:
    template <class V>
    V* add() {
        auto v = std::make_unique<V>(ViewContext{m_model, m_theme});
        V* raw = v.get();
        m_views.push_back(std::move(v));
        return raw;
    }
    void drawMenuBar();
    void drawFileMenu();
    void drawEditMenu();
    // A line at the menu bar's right end for a few seconds: what an Edit menu action did.
    void notify(std::string text, bool failed);
    void drawSessionMenu();
    void drawRunMenu();
    void drawViewMenu();
    void shortcuts();
    // F6 / Shift+F6: the keyboard focus to the next (previous) panel.
    void cycleFocus(int direction);

    // Steps the tutorial player; opens its window on a first run to show the welcome.
    void updateTutorials();

    ExplorerModel& m_model;
    const Theme& m_theme;
    WorkspaceSettings m_workspace;
    WorkspaceSettings m_workspaceDefaults;
    std::filesystem::path m_workspaceFile;
    WorkspaceSettings m_savedWorkspace;
    std::string m_workspaceMessage;
    WorkspaceLayout m_layout{m_workspace, m_workspaceDefaults, m_theme};
    FrameTimes m_frameTimes;
    FrameTimes m_buildTimes;
    bool m_appearanceChanged = false;
    class RunView* m_run = nullptr;
    std::vector<std::unique_ptr<View>> m_views;
    CodeTabsView* m_codeTabs = nullptr;
    RooflineView* m_roofline = nullptr;
    OccupancyView* m_occupancy = nullptr;
    CompareView* m_compare = nullptr;
    VariantsView* m_variants = nullptr;
    TileView* m_tileView = nullptr;
    FileDialogView* m_fileDialog = nullptr;
    View* m_about = nullptr;
    std::unique_ptr<TutorialModel> m_tutorialModel;
    TutorialsView* m_tutorialsView = nullptr;
    int m_refocusTutorialsIn = 0;  // frames until the Tutorials window is brought back in front (0: not asked)
    std::unique_ptr<SweepModel> m_sweepModel;
    SweepView* m_sweepView = nullptr;
    std::unique_ptr<UserTemplateModel> m_userTemplates;
    UserTemplateView* m_userTemplateView = nullptr;
    std::string m_notice;
    bool m_noticeFailed = false;
    double m_noticeUntil = 0;
    NativeFileDialog m_nativeDialog;
    bool m_quit = false;
};

}  // namespace kx::app
