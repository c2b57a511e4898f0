// Base class of every panel. The base owns the window (placement, Begin/End, flags); a view
// implements only drawContent(). Views keep their own UI state and reach the application's
// state only through the ExplorerModel in their context (ImHex's View::Window, without the
// shared god object of Tracy's View).
#pragma once

#include <imgui.h>

#include <string>
#include <utility>

namespace kx::app {

class ExplorerModel;
class Theme;

struct ViewContext {
    ExplorerModel& model;
    const Theme& theme;
};

// Where the main layout puts a view. Floating views place themselves.
enum class Slot { LeftTop, LeftFill, LeftBottom, Centre, RightTop, RightFill, RightBottom, StatusBar, Floating };

class View {
public:
    View(std::string title, Slot slot, ViewContext context);
    virtual ~View() = default;
    View(const View&) = delete;
    View& operator=(const View&) = delete;

    // Draws the window when open: placement, Begin, drawContent(), End.
    void draw();

    const std::string& title() const { return m_title; }
    Slot slot() const { return m_slot; }
    bool isOpen() const { return m_open; }
    void setOpen(bool open) { m_open = open; }
    bool* openFlag() { return &m_open; }
    // Listed under the View menu (the status bar and dialogs are not).
    virtual bool inViewMenu() const { return m_slot != Slot::Floating && m_slot != Slot::StatusBar; }

    // Set by the main layout each frame before draw(); ignored by floating views.
    void setRect(ImVec2 pos, ImVec2 size) {
        m_pos = pos;
        m_size = size;
    }
    ImVec2 rectPos() const { return m_pos; }
    ImVec2 rectSize() const { return m_size; }
    // A tiled view hidden for this frame while another is maximised: open, but not drawn.
    void setHidden(bool hidden) { m_hidden = hidden; }
    bool isHidden() const { return m_hidden; }
    bool tiled() const { return m_slot != Slot::Floating && m_slot != Slot::StatusBar; }
    // Whether the window had the keyboard focus or the mouse last frame (Ctrl+M maximises it).
    bool focused() const { return m_focused; }
    bool hovered() const { return m_hovered; }
    // True once after a double-click on the view's title bar (maximise or restore it).
    bool takeTitleDoubleClick() { return std::exchange(m_titleDoubleClicked, false); }
    // Height the content wanted last frame (title bar and padding included), for slots whose
    // height follows their content.
    float desiredHeight() const { return m_desiredHeight; }

protected:
    virtual void drawContent() = 0;
    virtual ImGuiWindowFlags windowFlags() const { return 0; }
    // Floating views override this to position themselves (centred dialogs, ...).
    virtual void placeWindow();
    // For placeWindow: the next window at `size`, centred in the work area, when it appears.
    static void centreNextWindow(const ImVec2& size);

    ExplorerModel& model() const { return m_context.model; }
    const Theme& theme() const { return m_context.theme; }

    // Shared small helpers, so views format alike.
    void sectionHeader(const char* text) const;  // bold, dim caption with a rule under it
    void helpTooltip(const std::string& text) const;  // tooltip on the last item, when hovered

private:
    std::string m_title;
    Slot m_slot;
    ViewContext m_context;
    bool m_open = true;
    ImVec2 m_pos{0, 0};
    ImVec2 m_size{0, 0};
    float m_desiredHeight = 200.0f;
    bool m_hidden = false;
    bool m_focused = false;
    bool m_hovered = false;
    bool m_titleDoubleClicked = false;
};

}  // namespace kx::app
