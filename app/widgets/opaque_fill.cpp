#include "widgets/opaque_fill.hpp"

#include <GL/gl.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cfloat>
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

void fillOpaqueRect(ImDrawList* dl, ImVec2 min, ImVec2 max, ImU32 colour, float rounding) {
    rounding = std::floor(std::min({rounding, (max.x - min.x) * 0.5f, (max.y - min.y) * 0.5f}));
    if (rounding <= 0 || (colour & IM_COL32_A_MASK) != IM_COL32_A_MASK) {
        dl->AddRectFilled(min, max, colour, rounding);
        return;
    }
    fillOpaqueRect(dl, ImVec2(min.x + rounding, min.y), ImVec2(max.x - rounding, max.y), colour);
    fillOpaqueRect(dl, ImVec2(min.x, min.y + rounding), ImVec2(min.x + rounding, max.y - rounding), colour);
    fillOpaqueRect(dl, ImVec2(max.x - rounding, min.y + rounding), ImVec2(max.x, max.y - rounding), colour);
    const float r = rounding;
    dl->AddRectFilled(min, ImVec2(min.x + r, min.y + r), colour, r, ImDrawFlags_RoundCornersTopLeft);
    dl->AddRectFilled(ImVec2(max.x - r, min.y), ImVec2(max.x, min.y + r), colour, r, ImDrawFlags_RoundCornersTopRight);
    dl->AddRectFilled(ImVec2(min.x, max.y - r), ImVec2(min.x + r, max.y), colour, r, ImDrawFlags_RoundCornersBottomLeft);
    dl->AddRectFilled(ImVec2(max.x - r, max.y - r), max, colour, r, ImDrawFlags_RoundCornersBottomRight);
}

namespace {

bool contains(const ImVec4& outer, const ImVec4& inner) {
    return inner.x >= outer.x && inner.y >= outer.y && inner.z <= outer.z && inner.w <= outer.w;
}

// The rectangle an opaque window's list clears first, or nothing.
const ImVec4* openingClear(const ImDrawList* dl) {
    if (dl->CmdBuffer.Size == 0 || dl->CmdBuffer[0].UserCallback != &clearClipRect) return nullptr;
    return &dl->CmdBuffer[0].ClipRect;
}

}  // namespace

int dropHiddenDrawLists(ImDrawData* data) {
    if (data == nullptr || data->CmdListsCount < 2) return 0;
    int kept = 0;
    for (int i = 0; i < data->CmdListsCount; ++i) {
        ImDrawList* dl = data->CmdLists[i];
        // Where the list draws: each command's triangles, clipped to its rectangle (a window's
        // border is drawn with the whole viewport as clip rectangle).
        ImVec4 bounds(FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX);
        bool otherCallback = false;
        for (const ImDrawCmd& c : dl->CmdBuffer) {
            if (c.UserCallback != nullptr && c.UserCallback != &clearClipRect) otherCallback = true;
            ImVec4 drawn = c.ClipRect;
            if (c.UserCallback == nullptr) {
                if (c.ElemCount == 0) continue;
                ImVec4 v(FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX);
                for (unsigned k = c.IdxOffset; k < c.IdxOffset + c.ElemCount; ++k) {
                    const ImVec2 p = dl->VtxBuffer[static_cast<int>(dl->IdxBuffer[static_cast<int>(k)] + c.VtxOffset)].pos;
                    v = ImVec4(std::min(v.x, p.x), std::min(v.y, p.y), std::max(v.z, p.x), std::max(v.w, p.y));
                }
                drawn = ImVec4(std::max(v.x, c.ClipRect.x), std::max(v.y, c.ClipRect.y), std::min(v.z, c.ClipRect.z),
                               std::min(v.w, c.ClipRect.w));
                if (drawn.x >= drawn.z || drawn.y >= drawn.w) continue;
            }
            bounds = ImVec4(std::min(bounds.x, drawn.x), std::min(bounds.y, drawn.y), std::max(bounds.z, drawn.z), std::max(bounds.w, drawn.w));
        }
        bool hidden = false;
        if (!otherCallback && bounds.x <= bounds.z) {
            for (int j = i + 1; j < data->CmdListsCount && !hidden; ++j) {
                const ImVec4* cover = openingClear(data->CmdLists[j]);
                hidden = cover != nullptr && contains(*cover, bounds);
            }
        }
        if (hidden) {
            data->TotalVtxCount -= dl->VtxBuffer.Size;
            data->TotalIdxCount -= dl->IdxBuffer.Size;
        } else {
            data->CmdLists[kept++] = dl;
        }
    }
    const int dropped = data->CmdListsCount - kept;
    data->CmdListsCount = kept;
    return dropped;
}

bool beginOpaqueWindow(const char* name, bool* open, ImGuiWindowFlags flags, ImU32 background) {
    // A see-through background (SetNextWindowBgAlpha: overlays) stays ImGui's.
    const bool seeThrough = (ImGui::GetCurrentContext()->NextWindowData.Flags & ImGuiNextWindowDataFlags_HasBgAlpha) != 0;
    if (seeThrough || (background & IM_COL32_A_MASK) != IM_COL32_A_MASK) {
        ImGui::PushStyleColor(ImGuiCol_WindowBg, background);
        const bool visible = ImGui::Begin(name, open, flags);
        ImGui::PopStyleColor();
        return visible;
    }
    ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(0, 0, 0, 0));
    const bool visible = ImGui::Begin(name, open, flags);
    ImGui::PopStyleColor();
    // Begin() has already put the title bar and border in the list: the clear goes in front of
    // them. It is a command without vertices, so no other command's offsets move, and ImGui only
    // ever appends to or merges into the list's last command.
    const ImVec2 pos = ImGui::GetWindowPos();
    const ImVec2 size = ImGui::GetWindowSize();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImDrawCmd clear;
    clear.ClipRect = ImVec4(std::round(pos.x), std::round(pos.y), std::round(pos.x + size.x), std::round(pos.y + size.y));
    clear.TextureId = dl->CmdBuffer.Size > 0 ? dl->CmdBuffer[0].TextureId : ImTextureID{};
    clear.UserCallback = &clearClipRect;
    clear.UserCallbackData = reinterpret_cast<void*>(static_cast<std::uintptr_t>(background));
    dl->CmdBuffer.insert(dl->CmdBuffer.begin(), clear);
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
