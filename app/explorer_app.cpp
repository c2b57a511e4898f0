#include "explorer_app.hpp"

#include "views/about_view.hpp"
#include "views/config_view.hpp"
#include "views/kernel_view.hpp"
#include "views/resources_view.hpp"
#include "views/status_bar_view.hpp"

#include <algorithm>

namespace kx::app {

ExplorerApp::ExplorerApp(ExplorerModel& model, const Theme& theme) : m_model(model), m_theme(theme) {
    // The registry: every view, once. Order is draw order; the slot says where it goes.
    add<KernelView>();
    add<ConfigView>();
    m_codeTabs = add<CodeTabsView>();
    add<ResourcesView>();
    add<LaunchView>();
    add<StatusBarView>();
    m_about = add<AboutView>();
}

void ExplorerApp::draw() {
    float menuBarHeight = 0;
    if (ImGui::BeginMainMenuBar()) {
        drawMenuBar();
        menuBarHeight = ImGui::GetWindowSize().y;
        ImGui::EndMainMenuBar();
    }
    layout(menuBarHeight);
    for (auto& v : m_views) v->draw();
}

void ExplorerApp::drawMenuBar() {
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) m_quit = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (auto& v : m_views) {
            if (v->inViewMenu()) ImGui::MenuItem(v->title().c_str(), nullptr, v->openFlag());
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Source", "Ctrl+1")) selectTab(CodeTab::Source);
        if (ImGui::MenuItem("PTX", "Ctrl+2")) selectTab(CodeTab::Ptx);
        if (ImGui::MenuItem("Log", "Ctrl+3")) selectTab(CodeTab::Log);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("About")) m_about->setOpen(true);
        ImGui::EndMenu();
    }
    // Shortcuts shown in the menus (GLFW key codes equal ASCII for letters and digits).
    const ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl && ImGui::IsKeyPressed('Q')) m_quit = true;
    if (io.KeyCtrl && ImGui::IsKeyPressed('1')) selectTab(CodeTab::Source);
    if (io.KeyCtrl && ImGui::IsKeyPressed('2')) selectTab(CodeTab::Ptx);
    if (io.KeyCtrl && ImGui::IsKeyPressed('3')) selectTab(CodeTab::Log);
}

void ExplorerApp::layout(float menuBarHeight) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const Sizes& sz = m_theme.sizes();
    const ImVec2 origin(vp->Pos.x, vp->Pos.y + menuBarHeight);
    const ImVec2 full(vp->Size.x, vp->Size.y - menuBarHeight);

    auto find = [&](Slot s) -> View* {
        for (auto& v : m_views) {
            if (v->slot() == s && v->isOpen()) return v.get();
        }
        return nullptr;
    };
    View* leftTop = find(Slot::LeftTop);
    View* leftFill = find(Slot::LeftFill);
    View* centre = find(Slot::Centre);
    View* rightFill = find(Slot::RightFill);
    View* rightBottom = find(Slot::RightBottom);
    View* status = find(Slot::StatusBar);

    const float statusH = status ? ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2 : 0.0f;
    const float bodyH = full.y - statusH;
    const float leftW = (leftTop || leftFill) ? sz.leftColumnWidth : 0.0f;
    const float rightW = (rightFill || rightBottom) ? sz.rightColumnWidth : 0.0f;

    // Left: Kernel sized to its content, Configuration takes the rest.
    {
        float y = origin.y;
        if (leftTop) {
            const float h = leftFill ? std::min(leftTop->desiredHeight(), bodyH * 0.5f) : bodyH;
            leftTop->setRect(ImVec2(origin.x, y), ImVec2(leftW, h));
            y += h;
        }
        if (leftFill) leftFill->setRect(ImVec2(origin.x, y), ImVec2(leftW, origin.y + bodyH - y));
    }
    // Right: Resources takes the rest above Launch, which is sized to its content.
    {
        const float x = origin.x + full.x - rightW;
        float bottom = origin.y + bodyH;
        if (rightBottom) {
            const float h = rightFill ? std::min(rightBottom->desiredHeight(), bodyH * 0.5f) : bodyH;
            rightBottom->setRect(ImVec2(x, bottom - h), ImVec2(rightW, h));
            bottom -= h;
        }
        if (rightFill) rightFill->setRect(ImVec2(x, origin.y), ImVec2(rightW, bottom - origin.y));
    }
    if (centre) centre->setRect(ImVec2(origin.x + leftW, origin.y), ImVec2(full.x - leftW - rightW, bodyH));
    if (status) status->setRect(ImVec2(origin.x, origin.y + bodyH), ImVec2(full.x, statusH));
}

}  // namespace kx::app
