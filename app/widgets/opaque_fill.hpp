// Large opaque rectangles (panel, code and plot backgrounds) drawn as scissored clears of the
// framebuffer instead of blended triangles. The picture is the same; the cost is not: a clear is
// a memory fill, while a blended triangle runs the fragment shader on every pixel, which under a
// software rasteriser (Mesa's llvmpipe behind Xvfb, remote desktops, VMs without a GPU) made the
// backgrounds most of a frame's time.
//
//   fillOpaqueRect(dl, min, max, colour)   in place of dl->AddRectFilled(min, max, colour)
//
// The clear runs at the command's place in the draw list, so what was drawn earlier in the list
// is overwritten and what comes later is drawn on top, exactly as with AddRectFilled. A colour
// that is not fully opaque (or a rounded rectangle's caller) keeps using AddRectFilled.
#pragma once

#include <imgui.h>

namespace kx::app {

void fillOpaqueRect(ImDrawList* dl, ImVec2 min, ImVec2 max, ImU32 colour);
// The same with rounded corners: two clears make the body, each corner is a small rounded fill.
void fillOpaqueRect(ImDrawList* dl, ImVec2 min, ImVec2 max, ImU32 colour, float rounding);

// Begin() for a window whose background is a clear: the first command of the window's draw
// list, so that its title bar, border, scrollbars and content are drawn over it, and windows
// behind it are covered as by ImGui's own background.
bool beginOpaqueWindow(const char* name, bool* open, ImGuiWindowFlags flags, ImU32 background);

// BeginChild() with an opaque background of its own (code, diffs): the clear goes into the parent's
// draw list where the child starts. Call ImGui::EndChild() as usual.
bool beginOpaqueChild(const char* id, ImVec2 size, bool border, ImGuiWindowFlags flags, ImU32 background);

// Before rendering: leaves out the draw lists that an opaque window drawn later (higher up)
// covers entirely, such as the panels behind a maximised floating window. Their pixels would be
// overwritten anyway; a list holding another callback (a PNG export reading pixels back) stays.
// Returns how many lists were left out.
int dropHiddenDrawLists(ImDrawData* data);

}  // namespace kx::app
