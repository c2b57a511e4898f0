// Places the tiled views (left column, centre, right column, status bar) from the user's
// WorkspaceSettings, and draws the splitters between them: thin handles in the gaps between
// panels, dragged with the mouse (double-click one to put it back where the shipped layout has
// it). A maximised view takes the whole body and the others are hidden until it is restored.
//
// The splitters live in one borderless window behind every panel; the gaps between panels are
// the only places where that window is under the mouse, so they never steal a panel's input.
#pragma once

#include "views/view.hpp"
#include "workspace_settings.hpp"

#include <imgui.h>

#include <memory>
#include <vector>

namespace kx::app {

class Theme;

class WorkspaceLayout {
public:
    WorkspaceLayout(WorkspaceSettings& settings, const WorkspaceSettings& defaults, const Theme& theme)
        : m_settings(settings), m_defaults(defaults), m_theme(theme) {}

    // Each frame, after the menu bar and before the views draw: sets every tiled view's rect and
    // hidden flag, then draws the splitter window. `menuBarHeight` is the main menu's height.
    void place(const std::vector<std::unique_ptr<View>>& views, float menuBarHeight);
    // True once after a splitter drag ended (the settings changed and want saving).
    bool takeChanged() { return std::exchange(m_changed, false); }
    // The gap between two panels, in pixels at the current scale.
    float gap() const;

private:
    struct Splitter {
        ImVec2 min, max;       // the handle's rect (the gap between two panels)
        bool vertical = true;  // a vertical bar dragged along x
        float* value = nullptr;
        float current = 0;     // the share in effect this frame (content-sized panels have no value yet)
        float perPixel = 0;    // share per pixel of drag, signed
        float lo = 0, hi = 1;  // the share's range, in effect this frame
        float defaultValue = 0;
        int index = -1;        // below_splits: which boundary (its vector may be empty until dragged)
    };
    // place's parts (Body is defined in workspace_layout.cpp).
    struct Body;
    bool placeMaximised(const std::vector<std::unique_ptr<View>>& views, const Body& body);
    void placeColumns(bool haveLeft, bool haveRight, Body& body);
    void placeLeft(View* leftTop, View* leftFill, View* leftBottom, const Body& body);
    void placeRight(const std::vector<std::unique_ptr<View>>& views, View* rightFill, View* rightBottom, const Body& body);
    void placeCentre(const std::vector<std::unique_ptr<View>>& views, View* centre, const Body& body);
    void drawSplitters();

    WorkspaceSettings& m_settings;
    const WorkspaceSettings& m_defaults;
    const Theme& m_theme;
    std::vector<Splitter> m_splitters;
    int m_belowCount = 0;  // panels below the code tabs this frame
    int m_dragging = -1;   // the splitter being dragged
    float m_dragStartValue = 0;  // its share when the drag began
    bool m_changed = false;
};

}  // namespace kx::app
