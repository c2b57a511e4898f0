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

// Begin() for a tiled panel (panels never overlap one another): its background is a clear on
// ImGui's background draw list, drawn before any window, and ImGui draws none of its own.
bool beginOpaqueWindow(const char* name, bool* open, ImGuiWindowFlags flags, ImU32 background);

// BeginChild() with an opaque background of its own (code, diffs): the clear goes into the parent's
// draw list where the child starts. Call ImGui::EndChild() as usual.
bool beginOpaqueChild(const char* id, ImVec2 size, bool border, ImGuiWindowFlags flags, ImU32 background);

}  // namespace kx::app
