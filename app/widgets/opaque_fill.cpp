#include "widgets/opaque_fill.hpp"

#include <GL/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kx::app {
namespace {

// The draw command's clip rectangle is the rectangle to fill (fillOpaqueRect pushed it), its
// callback data the colour. Coordinates follow the OpenGL 3 backend's scissor rule.
void clearClipRect(const ImDrawList*, const ImDrawCmd* cmd) {
    const ImDrawData* data = ImGui::GetDrawData();
    if (data == nullptr) return;
    const ImVec2 off = data->DisplayPos;
    const ImVec2 scale = data->FramebufferScale;
    const float fbHeight = data->DisplaySize.y * scale.y;
    const float x0 = std::max(0.0f, (cmd->ClipRect.x - off.x) * scale.x);
    const float y0 = std::max(0.0f, (cmd->ClipRect.y - off.y) * scale.y);
    const float x1 = (cmd->ClipRect.z - off.x) * scale.x;
    const float y1 = std::min(fbHeight, (cmd->ClipRect.w - off.y) * scale.y);
    if (x1 <= x0 || y1 <= y0) return;
    const auto colour = static_cast<ImU32>(reinterpret_cast<std::uintptr_t>(cmd->UserCallbackData));
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(colour);
    glEnable(GL_SCISSOR_TEST);
    glScissor(static_cast<GLint>(x0), static_cast<GLint>(fbHeight - y1), static_cast<GLsizei>(x1 - x0),
              static_cast<GLsizei>(y1 - y0));
    glClearColor(c.x, c.y, c.z, c.w);
    glClear(GL_COLOR_BUFFER_BIT);
}

}  // namespace

void fillOpaqueRect(ImDrawList* dl, ImVec2 min, ImVec2 max, ImU32 colour) {
    if ((colour & IM_COL32_A_MASK) != IM_COL32_A_MASK) {
        dl->AddRectFilled(min, max, colour);
        return;
    }
    // Pixel-aligned like the triangles ImGui would rasterise for the same rectangle.
    min = ImVec2(std::round(min.x), std::round(min.y));
    max = ImVec2(std::round(max.x), std::round(max.y));
    dl->PushClipRect(min, max, true);
    dl->AddCallback(&clearClipRect, reinterpret_cast<void*>(static_cast<std::uintptr_t>(colour)));
    dl->PopClipRect();
}

bool beginOpaqueWindow(const char* name, bool* open, ImGuiWindowFlags flags, ImU32 background) {
    ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(0, 0, 0, 0));
    const bool visible = ImGui::Begin(name, open, flags);
    ImGui::PopStyleColor();
    const ImVec2 pos = ImGui::GetWindowPos();
    const ImVec2 size = ImGui::GetWindowSize();
    fillOpaqueRect(ImGui::GetBackgroundDrawList(), pos, ImVec2(pos.x + size.x, pos.y + size.y), background);
    return visible;
}

bool beginOpaqueChild(const char* id, ImVec2 size, bool border, ImGuiWindowFlags flags, ImU32 background) {
    ImDrawList* parent = ImGui::GetWindowDrawList();
    ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(0, 0, 0, 0));
    const bool visible = ImGui::BeginChild(id, size, border, flags);
    ImGui::PopStyleColor();
    const ImVec2 pos = ImGui::GetWindowPos();
    const ImVec2 childSize = ImGui::GetWindowSize();
    fillOpaqueRect(parent, pos, ImVec2(pos.x + childSize.x, pos.y + childSize.y), background);
    return visible;
}

}  // namespace kx::app
