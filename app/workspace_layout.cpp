#include "workspace_layout.hpp"

#include "theme.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace kx::app {

namespace {

// Narrowest columns, in pixels at scale 1: the configuration's labels and dropdowns, the
// resources' figures, and enough code to read a line.
constexpr float kMinLeftPx = 300.0f, kMinRightPx = 270.0f, kMinCentrePx = 320.0f;
// Below zero in the settings: these panels size to their content, up to a share of the body.
constexpr float kKernelMaxShare = 0.36f;
constexpr float kVariantsMaxShare = 0.36f;
constexpr float kGapPx = 5.0f;

}  // namespace

float WorkspaceLayout::gap() const { return std::round(kGapPx * m_theme.scale()); }

// The body below the menu bar and above the status bar, and its columns this frame.
struct WorkspaceLayout::Body {
    ImVec2 origin;       // top-left of the body
    ImVec2 full;         // the body's width, and its height with the status bar
    float bodyH = 0;     // height without the status bar
    float gap = 0;
    float minRow = 0;    // the shortest panel: a title bar and a line or two
    float leftW = 0, rightW = 0;
    float centreX = 0, centreW = 0, rightX = 0;
};

void WorkspaceLayout::place(const std::vector<std::unique_ptr<View>>& views, float menuBarHeight) {
    m_splitters.clear();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    Body b;
    b.gap = gap();
    b.origin = ImVec2(vp->Pos.x, vp->Pos.y + menuBarHeight);
    b.full = ImVec2(vp->Size.x, vp->Size.y - menuBarHeight);

    auto find = [&](Slot slot) -> View* {
        for (auto& v : views)
            if (v->slot() == slot && v->isOpen()) return v.get();
        return nullptr;
    };
    View* status = find(Slot::StatusBar);
    const float statusH = status ? std::floor(ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2) : 0.0f;
    b.bodyH = b.full.y - statusH;
    if (status) status->setRect(ImVec2(b.origin.x, b.origin.y + b.bodyH), ImVec2(b.full.x, statusH));
    for (auto& v : views) v->setHidden(false);
    if (placeMaximised(views, b)) return;

    View* leftTop = find(Slot::LeftTop);
    View* leftFill = find(Slot::LeftFill);
    View* leftBottom = find(Slot::LeftBottom);
    View* centre = find(Slot::Centre);
    View* rightFill = find(Slot::RightFill);
    View* rightBottom = find(Slot::RightBottom);
    const bool haveLeft = leftTop || leftFill || leftBottom;
    const bool haveRight = rightFill || rightBottom || find(Slot::RightTop);
    placeColumns(haveLeft, haveRight, b);
    b.minRow = ImGui::GetFrameHeight() * 3;  // a title bar and a line or two
    if (haveLeft) placeLeft(leftTop, leftFill, leftBottom, b);
    if (haveRight) placeRight(views, rightFill, rightBottom, b);
    if (centre) placeCentre(views, centre, b);
    drawSplitters();
}

// Maximised: one panel takes the body; the rest wait, open, until it is restored. False when
// none is maximised (any more).
bool WorkspaceLayout::placeMaximised(const std::vector<std::unique_ptr<View>>& views, const Body& b) {
    WorkspaceSettings& s = m_settings;
    if (s.maximised.empty()) return false;
    View* big = nullptr;
    for (auto& v : views)
        if (v->tiled() && v->isOpen() && v->title() == s.maximised) big = v.get();
    if (big == nullptr) {
        s.maximised.clear();  // closed meanwhile: nothing to restore to
        return false;
    }
    for (auto& v : views)
        if (v->tiled()) v->setHidden(v.get() != big);
    big->setRect(b.origin, ImVec2(b.full.x, b.bodyH));
    return true;
}

// Columns: shares of the width, kept above their pixel minimums while the window allows.
void WorkspaceLayout::placeColumns(bool haveLeft, bool haveRight, Body& b) {
    const float scale = m_theme.scale();
    const ImVec2 origin = b.origin, full = b.full;
    const float g = b.gap, bodyH = b.bodyH;
    WorkspaceSettings& s = m_settings;
    const float minLeft = std::min(kMinLeftPx * scale, full.x * 0.3f);
    const float minRight = std::min(kMinRightPx * scale, full.x * 0.3f);
    const float minCentre = std::min(kMinCentrePx * scale, full.x * 0.3f);
    float leftW = haveLeft ? std::max(std::floor(s.leftWidth * full.x), minLeft) : 0.0f;
    float rightW = haveRight ? std::max(std::floor(s.rightWidth * full.x), minRight) : 0.0f;
    if (full.x - leftW - rightW < minCentre) {
        const float excess = minCentre - (full.x - leftW - rightW);
        const float share = leftW + rightW > 0 ? leftW / (leftW + rightW) : 0.5f;
        leftW = std::floor(leftW - excess * share);
        rightW = std::floor(rightW - excess * (1 - share));
    }
    const float leftGap = haveLeft ? g : 0.0f;
    const float rightGap = haveRight ? g : 0.0f;
    b.leftW = leftW;
    b.rightW = rightW;
    b.centreX = origin.x + leftW + leftGap;
    b.rightX = origin.x + full.x - rightW;
    b.centreW = b.rightX - rightGap - b.centreX;
    const float rightX = b.rightX;
    if (haveLeft) {
        Splitter sp{ImVec2(origin.x + leftW, origin.y), ImVec2(origin.x + leftW + g, origin.y + bodyH), true, &s.leftWidth, leftW / full.x,
                    1.0f / full.x, minLeft / full.x, (full.x - rightW - minCentre) / full.x, m_defaults.leftWidth};
        m_splitters.push_back(sp);
    }
    if (haveRight) {
        Splitter sp{ImVec2(rightX - g, origin.y), ImVec2(rightX, origin.y + bodyH), true, &s.rightWidth, rightW / full.x,
                    -1.0f / full.x, minRight / full.x, (full.x - leftW - minCentre) / full.x, m_defaults.rightWidth};
        m_splitters.push_back(sp);
    }
}

// Left: Kernel on top, Variants at the bottom, Configuration between them.
void WorkspaceLayout::placeLeft(View* leftTop, View* leftFill, View* leftBottom, const Body& b) {
    const ImVec2 origin = b.origin;
    const float bodyH = b.bodyH, g = b.gap, minRow = b.minRow;
    WorkspaceSettings& s = m_settings;
    const float leftW = b.leftW;
    float top = origin.y;
    float bottom = origin.y + bodyH;
    if (leftTop) {
        float h = s.kernelHeight >= 0 ? std::floor(s.kernelHeight * bodyH) : std::min(leftTop->desiredHeight(), bodyH * kKernelMaxShare);
        h = leftFill ? std::clamp(h, minRow, bodyH * 0.6f) : bodyH;
        leftTop->setRect(ImVec2(origin.x, top), ImVec2(leftW, h));
        if (leftFill)
            m_splitters.push_back({ImVec2(origin.x, top + h), ImVec2(origin.x + leftW, top + h + g), false, &s.kernelHeight, h / bodyH,
                                   1.0f / bodyH, minRow / bodyH, 0.6f, m_defaults.kernelHeight});
        top += h + (leftFill ? g : 0.0f);
    }
    if (leftBottom) {
        float h = s.variantsHeight >= 0 ? std::floor(s.variantsHeight * bodyH)
                                        : std::min(leftBottom->desiredHeight(), bodyH * kVariantsMaxShare);
        h = leftFill ? std::clamp(h, minRow, std::max(minRow, bottom - top - minRow - g)) : bottom - top;
        leftBottom->setRect(ImVec2(origin.x, bottom - h), ImVec2(leftW, h));
        if (leftFill)
            m_splitters.push_back({ImVec2(origin.x, bottom - h - g), ImVec2(origin.x + leftW, bottom - h), false, &s.variantsHeight,
                                   h / bodyH, -1.0f / bodyH, minRow / bodyH, 0.7f, m_defaults.variantsHeight});
        bottom -= h + (leftFill ? g : 0.0f);
    }
    if (leftFill) leftFill->setRect(ImVec2(origin.x, top), ImVec2(leftW, bottom - top));
}

// Right: Resources and Launch stacked from the top at their content's height, Run below
// them taking the rest (from where the user put its splitter, when they did).
void WorkspaceLayout::placeRight(const std::vector<std::unique_ptr<View>>& views, View* rightFill, View* rightBottom, const Body& b) {
    const ImVec2 origin = b.origin;
    const float bodyH = b.bodyH, g = b.gap, minRow = b.minRow;
    WorkspaceSettings& s = m_settings;
    const float rightX = b.rightX, rightW = b.rightW;
    float top = origin.y;
    float bottom = origin.y + bodyH;
    if (rightBottom) {
        const float h = rightFill ? std::min(rightBottom->desiredHeight(), bodyH * 0.5f) : bodyH;
        rightBottom->setRect(ImVec2(rightX, bottom - h), ImVec2(rightW, h));
        bottom -= h;
    }
    std::vector<View*> stacked;
    for (auto& v : views)
        if (v->slot() == Slot::RightTop && v->isOpen()) stacked.push_back(v.get());
    // Content heights while they fit above the Run panel's third of the column; when they
    // do not, each gets a share of the room in proportion to what it wants (and scrolls).
    const float fillTop = rightFill && s.runTop >= 0 ? origin.y + std::floor(s.runTop * bodyH) : -1.0f;
    const float room = std::max(minRow * static_cast<float>(stacked.size()),
                                (fillTop >= 0 ? fillTop - g : bottom - (rightFill ? std::max(bodyH / 3, minRow) + g : 0.0f)) - top);
    float wanted = 0;
    for (View* v : stacked) wanted += v->desiredHeight();
    const float squeeze = wanted > room ? room / wanted : 1.0f;
    for (std::size_t i = 0; i < stacked.size(); ++i) {
        const bool last = i + 1 == stacked.size();
        float h = std::max(minRow, std::floor(stacked[i]->desiredHeight() * squeeze));
        if (last && fillTop >= 0) h = std::max(minRow, fillTop - g - top);  // down to the user's splitter
        stacked[i]->setRect(ImVec2(rightX, top), ImVec2(rightW, h));
        top += h;
    }
    if (rightFill) {
        if (!stacked.empty()) {
            m_splitters.push_back({ImVec2(rightX, top), ImVec2(rightX + rightW, top + g), false, &s.runTop, (top + g - origin.y) / bodyH,
                                   1.0f / bodyH, 0.1f, 0.85f, m_defaults.runTop});
            top += g;
        }
        rightFill->setRect(ImVec2(rightX, top), ImVec2(rightW, std::max(minRow, bottom - top)));
    }
}

// Centre: the code tabs on top; the analysis panels (Occupancy, Roofline, ...) side by
// side below them, so source, occupancy and roofline are in view at once.
void WorkspaceLayout::placeCentre(const std::vector<std::unique_ptr<View>>& views, View* centre, const Body& b) {
    const ImVec2 origin = b.origin;
    const float bodyH = b.bodyH, g = b.gap;
    WorkspaceSettings& s = m_settings;
    const float centreX = b.centreX, centreW = b.centreW;
    std::vector<View*> below;
    for (auto& v : views)
        if (v->slot() == Slot::Centre && v->isOpen() && v.get() != centre) below.push_back(v.get());
    m_belowCount = static_cast<int>(below.size());
    const float topH = below.empty() ? bodyH : std::floor(bodyH * s.centreTop);
    centre->setRect(ImVec2(centreX, origin.y), ImVec2(centreW, topH));
    if (!below.empty()) {
        m_splitters.push_back({ImVec2(centreX, origin.y + topH), ImVec2(centreX + centreW, origin.y + topH + g), false, &s.centreTop,
                               topH / bodyH, 1.0f / bodyH, 0.15f, 0.85f, m_defaults.centreTop});
        const float y = origin.y + topH + g;
        const float h = bodyH - topH - g;
        const bool custom = s.belowSplits.size() + 1 == below.size();
        float x0 = centreX;
        for (std::size_t i = 0; i < below.size(); ++i) {
            const bool last = i + 1 == below.size();
            const float share = custom && !last ? s.belowSplits[i] : static_cast<float>(i + 1) / static_cast<float>(below.size());
            const float x1 = last ? centreX + centreW : std::floor(centreX + centreW * share);
            below[i]->setRect(ImVec2(x0, y), ImVec2(x1 - x0 - (last ? 0.0f : g), h));
            if (!last) {
                const float lo = i == 0 ? 0.1f : (custom ? s.belowSplits[i - 1] + 0.1f : share - 0.1f);
                Splitter sp{ImVec2(x1 - g, y), ImVec2(x1, y + h), true, nullptr, share, 1.0f / centreW, lo, 0.9f, -1.0f};
                sp.index = static_cast<int>(i);
                m_splitters.push_back(sp);
            }
            x0 = x1;
        }
    }
}

void WorkspaceLayout::drawSplitters() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->Pos);
    ImGui::SetNextWindowSize(vp->Size);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoBackground |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoScrollWithMouse;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::Begin("##workspace", nullptr, flags);
    ImGui::PopStyleVar(2);
    // The splitters' window covers the whole viewport, so it must stay behind every panel: there
    // it is the window under the mouse only in the gaps between panels. ImGui puts a window with
    // NoBringToFrontOnFocus behind all others when it is created, and the panels are created after
    // this window (and some later still, when first opened), each going behind it; without this the
    // splitters' window would take the mouse's hover, clicks and wheel from every panel.
    ImGui::BringWindowToDisplayBack(ImGui::GetCurrentWindow());
    const Palette& pal = m_theme.palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (std::size_t i = 0; i < m_splitters.size(); ++i) {
        Splitter& sp = m_splitters[i];
        const ImVec2 size(sp.max.x - sp.min.x, sp.max.y - sp.min.y);
        if (size.x < 1 || size.y < 1) continue;
        ImGui::SetCursorScreenPos(sp.min);
        ImGui::PushID(static_cast<int>(i));
        ImGui::InvisibleButton("##split", size);
        ImGui::PopID();
        const bool hovered = ImGui::IsItemHovered();
        const bool active = ImGui::IsItemActive();
        if (hovered || active) ImGui::SetMouseCursor(sp.vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
        if (hovered && ImGui::IsMouseDoubleClicked(0)) {
            // Back to the shipped layout for this one splitter.
            if (sp.index >= 0) m_settings.belowSplits.clear();
            else *sp.value = sp.defaultValue;
            m_changed = true;
        } else if (ImGui::IsItemActivated()) {
            m_dragging = static_cast<int>(i);
            m_dragStartValue = sp.current;
        } else if (active && m_dragging == static_cast<int>(i)) {
            const ImVec2 d = ImGui::GetMouseDragDelta(0, 0.0f);
            const float next = std::clamp(m_dragStartValue + (sp.vertical ? d.x : d.y) * sp.perPixel, sp.lo, std::max(sp.lo, sp.hi));
            if (sp.index >= 0) {
                // The first drag of a boundary fixes every boundary where it is now.
                auto& splits = m_settings.belowSplits;
                if (splits.size() + 1 != static_cast<std::size_t>(m_belowCount)) {
                    splits.clear();
                    for (int k = 1; k < m_belowCount; ++k) splits.push_back(static_cast<float>(k) / static_cast<float>(m_belowCount));
                }
                splits[static_cast<std::size_t>(sp.index)] = next;
            } else {
                *sp.value = next;
            }
        }
        if (ImGui::IsItemDeactivated() && m_dragging == static_cast<int>(i)) {
            m_dragging = -1;
            m_changed = true;
        }
        // A faint grip says "drag me"; the whole gap lights up under the mouse.
        if (hovered || active) {
            dl->AddRectFilled(sp.min, sp.max, active ? pal.accentActive : pal.accent);
        } else {
            const ImVec2 c((sp.min.x + sp.max.x) * 0.5f, (sp.min.y + sp.max.y) * 0.5f);
            const float len = 12.0f * m_theme.scale();
            if (sp.vertical) dl->AddLine(ImVec2(c.x, c.y - len), ImVec2(c.x, c.y + len), pal.border, 2.0f);
            else dl->AddLine(ImVec2(c.x - len, c.y), ImVec2(c.x + len, c.y), pal.border, 2.0f);
        }
    }
    ImGui::End();
}

}  // namespace kx::app
