// The application shell: the menu bar, the flat list of views, and the tiled layout that places
// them (left column, centre, right column, status bar). One frame = update() then draw().
#pragma once

#include "explorer_model.hpp"
#include "native_file_dialog.hpp"
#include "sweep_model.hpp"
#include "theme.hpp"
#include "tutorial_model.hpp"
#include "views/code_tabs_view.hpp"
#include "views/compare_view.hpp"
#include "views/file_dialog_view.hpp"
#include "views/roofline_view.hpp"
#include "views/tile_view.hpp"
#include "views/sweep_view.hpp"
#include "views/tutorials_view.hpp"
#include "views/variants_view.hpp"
#include "views/view.hpp"

#include <memory>
#include <string_view>
#include <vector>

namespace kx::app {

class ExplorerApp {
public:
    ExplorerApp(ExplorerModel& model, const Theme& theme);

    // Start of a frame, before ImGui::NewFrame(): applies compile results, starts due compiles.
    void update() {
        m_model.update();
        m_nativeDialog.update();
        updateTutorials();
        m_sweepModel->update();
    }
    // Between ImGui::NewFrame() and ImGui::Render().
    void draw();

    ExplorerModel& model() { return m_model; }
    void selectTab(CodeTab tab) { m_codeTabs->selectTab(tab); }
    // Opens the view whose title matches name, case-insensitively ("occupancy", "roofline").
    // Returns false when there is none.
    bool showView(std::string_view name);
    RooflineView& roofline() { return *m_roofline; }
    CompareView& compare() { return *m_compare; }
    VariantsView& variants() { return *m_variants; }
    // The tile visualizer of the live config (View > Tiles).
    TileView& tileView() { return *m_tileView; }
    // Sweeps of the editor's template (Run > Sweep configs) and their window.
    SweepModel& sweeps() { return *m_sweepModel; }
    SweepView& sweepView() { return *m_sweepView; }
    // The tutorial player and its window (Help > Tutorials).
    TutorialModel& tutorials() { return *m_tutorialModel; }
    TutorialsView& tutorialsView() { return *m_tutorialsView; }
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
    void drawSessionMenu();
    void drawRunMenu();
    void shortcuts();

    void layout(float menuBarHeight);
    // Steps the tutorial player; opens its window on a first run to show the welcome.
    void updateTutorials();

    ExplorerModel& m_model;
    const Theme& m_theme;
    std::vector<std::unique_ptr<View>> m_views;
    CodeTabsView* m_codeTabs = nullptr;
    RooflineView* m_roofline = nullptr;
    CompareView* m_compare = nullptr;
    VariantsView* m_variants = nullptr;
    TileView* m_tileView = nullptr;
    FileDialogView* m_fileDialog = nullptr;
    View* m_about = nullptr;
    std::unique_ptr<TutorialModel> m_tutorialModel;
    TutorialsView* m_tutorialsView = nullptr;
    std::unique_ptr<SweepModel> m_sweepModel;
    SweepView* m_sweepView = nullptr;
    NativeFileDialog m_nativeDialog;
    bool m_quit = false;
};

}  // namespace kx::app
