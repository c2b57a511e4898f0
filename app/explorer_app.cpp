#include "explorer_app.hpp"

#include "views/about_view.hpp"
#include "views/config_view.hpp"
#include "views/instruction_mix_view.hpp"
#include "views/kernel_view.hpp"
#include "views/occupancy_view.hpp"
#include "views/performance_view.hpp"
#include "views/resources_view.hpp"
#include "views/run_view.hpp"
#include "views/status_bar_view.hpp"
#include "util/error.hpp"

#include "util/data_paths.hpp"

#include <imgui_internal.h>
#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace kx::app {

namespace {

bool sameTitle(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

ExplorerApp::ExplorerApp(ExplorerModel& model, const Theme& theme, WorkspaceSettings workspace, WorkspaceSettings defaults,
                         std::filesystem::path workspaceFile)
    : m_model(model),
      m_theme(theme),
      m_workspace(std::move(workspace)),
      m_workspaceDefaults(std::move(defaults)),
      m_workspaceFile(std::move(workspaceFile)),
      m_savedWorkspace(m_workspace) {
    // The registry: every view, once. Order is draw order; the slot says where it goes.
    add<KernelView>();
    add<ConfigView>();
    m_variants = add<VariantsView>();
    m_codeTabs = add<CodeTabsView>();
    m_occupancy = add<OccupancyView>();
    m_roofline = add<RooflineView>();
    add<InstructionMixView>();  // closed until opened from the View menu or a script
    add<ResourcesView>();
    add<LaunchView>();
    m_run = add<RunView>();
    add<StatusBarView>();
    m_compare = add<CompareView>();  // floating, over the tiled panels; closed until asked for
    m_tileView = add<TileView>();    // floating, over the code and the right column; closed until asked for
    m_about = add<AboutView>();
    m_fileDialog = add<FileDialogView>();
    // Tutorials: a floating window over the editor, closed until asked for or a first run.
    m_tutorialModel = std::make_unique<TutorialModel>(m_model, m_model.dataRoot(), engine::configRoot() / "welcome-dismissed");
    m_tutorialModel->setHooks({[this](const std::string& view) {
                                   if (view == "source" || view == "ptx" || view == "sass" || view == "log") {
                                       selectTab(view == "ptx" ? CodeTab::Ptx : view == "sass" ? CodeTab::Sass : view == "log" ? CodeTab::Log : CodeTab::Source);
                                       return true;
                                   }
                                   if (!showView(view)) return false;
                                   // A floating view takes the focus when it appears; the learner
                                   // is still reading the step, so the Tutorials window comes back
                                   // in front once the view has been drawn.
                                   m_refocusTutorialsIn = 2;
                                   return true;
                               },
                               [this](int a, int b) {
                                   m_compare->setOpen(true);
                                   m_compare->selectPair(a, b);
                               }});
    auto tutorials = std::make_unique<TutorialsView>(ViewContext{m_model, m_theme}, *m_tutorialModel);
    m_tutorialsView = tutorials.get();
    m_views.push_back(std::move(tutorials));
    // Sweeps: a floating window like Compare, closed until asked for.
    m_sweepModel = std::make_unique<SweepModel>(m_model);
    auto sweep = std::make_unique<SweepView>(ViewContext{m_model, m_theme}, *m_sweepModel);
    m_sweepView = sweep.get();
    m_views.push_back(std::move(sweep));
    // Your kernel: a floating window like Compare, closed until asked for.
    m_userTemplates = std::make_unique<UserTemplateModel>(m_model);
    auto userView = std::make_unique<UserTemplateView>(ViewContext{m_model, m_theme}, *m_userTemplates);
    m_userTemplateView = userView.get();
    m_views.push_back(std::move(userView));
    auto performance =
        std::make_unique<PerformanceView>(ViewContext{m_model, m_theme}, m_frameTimes, m_buildTimes, [this] { return activity(); });
    m_views.push_back(std::move(performance));
}

void ExplorerApp::draw() {
    float menuBarHeight = 0;
    if (ImGui::BeginMainMenuBar()) {
        drawMenuBar();
        menuBarHeight = ImGui::GetWindowSize().y;
        ImGui::EndMainMenuBar();
    }
    m_layout.place(m_views, menuBarHeight);
    for (auto& v : m_views) v->draw();
    if (m_refocusTutorialsIn > 0 && --m_refocusTutorialsIn == 0 && m_tutorialsView->isOpen())
        ImGui::SetWindowFocus(m_tutorialsView->title().c_str());
    for (auto& v : m_views)
        if (v->takeTitleDoubleClick()) toggleMaximised(v->title());
    if (m_layout.takeChanged()) saveWorkspace();
}

std::string ExplorerApp::frontWindow() const {
    const ImGuiContext* g = ImGui::GetCurrentContext();
    if (g == nullptr) return {};
    for (int i = g->WindowsFocusOrder.Size - 1; i >= 0; --i) {
        const ImGuiWindow* w = g->WindowsFocusOrder[i];
        // Tiled panels never come to the front; only floating windows can stand over others.
        const ImGuiWindowFlags skip = ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup |
                                      ImGuiWindowFlags_NoBringToFrontOnFocus;
        if (w->Active && !w->Hidden && (w->Flags & skip) == 0) return w->Name;
    }
    return {};
}

std::string ExplorerApp::activity() const {
    if (!m_model.compileIdle()) return "a compile is in flight";
    const RunModel& runs = m_model.runs();
    if (runs.running()) return "a run is in flight";
    if (runs.runnerState() == RunnerState::Probing) return "looking for a GPU";
    if (m_sweepModel->running()) return "a sweep is in flight";
    if (m_tileView->isOpen() && !m_tileView->tiles().paused()) return "the Tiles animation plays";
    if (ImGui::GetCurrentContext() != nullptr && ImGui::IsMouseDragging(0)) return "a drag";
    return "";
}

bool ExplorerApp::measuringOnGpu() const {
    return m_model.runs().running() || (m_sweepModel->running() && m_sweepModel->measuring());
}

bool ExplorerApp::pollSoon() const {
    // The Code view's disassembly finishes on a worker: look for its result soon.
    return m_model.session().busy() || m_nativeDialog.busy() || !m_model.compileIdle() || m_codeTabs->links().disassembling();
}

View* ExplorerApp::findView(std::string_view title) {
    for (auto& v : m_views)
        if (sameTitle(v->title(), title)) return v.get();
    return nullptr;
}

bool ExplorerApp::toggleMaximised(std::string_view title) {
    if (title.empty() || sameTitle(m_workspace.maximised, title)) {
        m_workspace.maximised.clear();
        saveWorkspace();
        return true;
    }
    View* v = findView(title);
    if (v == nullptr || !v->tiled()) return false;
    v->setOpen(true);
    m_workspace.maximised = v->title();
    saveWorkspace();
    return true;
}

void ExplorerApp::resetLayout() {
    m_workspace.resetLayout(m_workspaceDefaults);
    saveWorkspace();
}

void ExplorerApp::setTheme(ThemeKind kind) {
    if (m_workspace.theme == kind) return;
    m_workspace.theme = kind;
    m_appearanceChanged = true;
    saveWorkspace();
}

void ExplorerApp::setZoom(float zoom) {
    const float z = std::clamp(std::round(zoom * 100.0f) / 100.0f, WorkspaceSettings::kMinZoom, WorkspaceSettings::kMaxZoom);
    if (z == m_workspace.zoom) return;
    m_workspace.zoom = z;
    m_appearanceChanged = true;
    saveWorkspace();
}

void ExplorerApp::zoomBy(int steps) {
    setZoom(steps == 0 ? 1.0f : m_workspace.zoom + static_cast<float>(steps) * WorkspaceSettings::kZoomStep);
}

void ExplorerApp::saveWorkspace() {
    if (m_workspaceFile.empty() || m_workspace == m_savedWorkspace) return;
    std::string error;
    if (m_workspace.save(m_workspaceFile, error)) {
        m_savedWorkspace = m_workspace;
        m_workspaceMessage.clear();
    } else {
        m_workspaceMessage = error;
    }
}

void ExplorerApp::cycleFocus(int direction) {
    std::vector<View*> order;
    for (auto& v : m_views)
        if (v->tiled() && v->isOpen() && !v->isHidden()) order.push_back(v.get());
    if (order.empty()) return;
    int current = -1;
    for (std::size_t i = 0; i < order.size(); ++i)
        if (order[i]->focused()) current = static_cast<int>(i);
    const int n = static_cast<int>(order.size());
    const int next = current < 0 ? 0 : ((current + direction) % n + n) % n;
    ImGui::SetWindowFocus(order[static_cast<std::size_t>(next)]->title().c_str());
}

bool ExplorerApp::showView(std::string_view name, bool open) {
    View* v = findView(name);
    if (v == nullptr) return false;
    v->setOpen(open);
    return true;
}

void ExplorerApp::drawMenuBar() {
    drawFileMenu();
    drawEditMenu();
    drawViewMenu();
    drawSessionMenu();
    drawRunMenu();
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("Tutorials", nullptr, m_tutorialsView->isOpen())) m_tutorialsView->setOpen(!m_tutorialsView->isOpen());
        if (ImGui::MenuItem("Open Demo Session")) openDemo();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("GEMM and reduction variants with real runs measured on an NVIDIA H100, ready to compare (a copy; "
                              "the original stays as shipped).");
        ImGui::Separator();
        if (ImGui::MenuItem("About")) m_about->setOpen(true);
        ImGui::EndMenu();
    }
    if (!m_notice.empty() && ImGui::GetTime() < m_noticeUntil) {
        const float w = ImGui::CalcTextSize(m_notice.c_str()).x;
        ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w - ImGui::GetStyle().ItemSpacing.x * 2));
        ImGui::TextColored(Theme::toVec4(m_noticeFailed ? m_theme.palette().error : m_theme.palette().ok), "%s", m_notice.c_str());
    } else if (!m_workspace.maximised.empty()) {
        // Say where the other panels went and how to get them back.
        const std::string text = m_workspace.maximised + " maximised \u2013 Restore (Ctrl+M)";
        ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(text.c_str()).x - ImGui::GetStyle().ItemSpacing.x * 2);
        if (ImGui::MenuItem(text.c_str())) toggleMaximised("");
    }
    shortcuts();
}

void ExplorerApp::drawViewMenu() {
    if (ImGui::BeginMenu("View")) {
        for (auto& v : m_views) {
            if (v->inViewMenu()) ImGui::MenuItem(v->title().c_str(), nullptr, v->openFlag());
        }
        ImGui::Separator();
        {
            // The panel Ctrl+M acts on: the focused one (menus take the focus, so remember it
            // from the panels' last frame) or the code.
            std::string target = m_workspace.maximised;
            if (target.empty())
                for (auto& v : m_views)
                    if (v->tiled() && v->focused()) target = v->title();
            if (target.empty()) target = m_codeTabs->title();
            const std::string label = m_workspace.maximised.empty() ? "Maximise " + target : "Restore layout";
            if (ImGui::MenuItem(label.c_str(), "Ctrl+M")) toggleMaximised(target);
        }
        if (ImGui::MenuItem("Reset layout")) resetLayout();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Splitters back where they start. Double-click one splitter to reset only it.");
        if (ImGui::BeginMenu("Theme")) {
            if (ImGui::MenuItem("Dark", nullptr, m_workspace.theme == ThemeKind::Dark)) setTheme(ThemeKind::Dark);
            if (ImGui::MenuItem("Light", nullptr, m_workspace.theme == ThemeKind::Light)) setTheme(ThemeKind::Light);
            ImGui::EndMenu();
        }
        if (ImGui::MenuItem("Zoom in", "Ctrl++")) zoomBy(1);
        if (ImGui::MenuItem("Zoom out", "Ctrl+-")) zoomBy(-1);
        if (ImGui::MenuItem(fmt::format("Actual size (now {:.0f}%)", m_workspace.zoom * 100).c_str(), "Ctrl+0")) zoomBy(0);
        ImGui::Separator();
        if (ImGui::MenuItem("Source", "Ctrl+1")) selectTab(CodeTab::Source);
        if (ImGui::MenuItem("PTX", "Ctrl+2")) selectTab(CodeTab::Ptx);
        if (ImGui::MenuItem("Log", "Ctrl+3")) selectTab(CodeTab::Log);
        if (ImGui::MenuItem("SASS", "Ctrl+4")) selectTab(CodeTab::Sass);
        ImGui::Separator();
        bool prefetch = m_model.prefetch();
        if (ImGui::MenuItem("Precompile neighbouring configs", nullptr, &prefetch)) m_model.setPrefetch(prefetch);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("After each compile, compile the configs one edit away on a spare core, so the next edit's "
                              "PTX is usually ready at once.");
        ImGui::Separator();
        if (View* perf = findView("Performance")) ImGui::MenuItem("Performance", nullptr, perf->openFlag());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Frame times (p50, p99), CPU use, and why the app is drawing or asleep.");
        ImGui::EndMenu();
    }
}

void ExplorerApp::shortcuts() {
    // Shortcuts shown in the menus (GLFW key codes equal ASCII for letters and digits).
    const ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsKeyPressed(GLFW_KEY_F6)) cycleFocus(io.KeyShift ? -1 : 1);
    if (!io.KeyCtrl) return;
    // Zoom: '=' is '+' without Shift on most layouts; the keypad's keys too.
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)) zoomBy(1);
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)) zoomBy(-1);
    if (ImGui::IsKeyPressed(GLFW_KEY_0) || ImGui::IsKeyPressed(GLFW_KEY_KP_0)) zoomBy(0);
    if (!io.KeyShift && ImGui::IsKeyPressed('M')) {
        std::string target;
        for (auto& v : m_views)
            if (v->tiled() && !v->isHidden() && v->focused()) target = v->title();
        if (target.empty())
            for (auto& v : m_views)
                if (v->tiled() && !v->isHidden() && v->hovered()) target = v->title();
        if (!m_workspace.maximised.empty()) target = m_workspace.maximised;
        toggleMaximised(target.empty() ? m_codeTabs->title() : target);
    }
    if (!io.KeyShift && ImGui::IsKeyPressed('R')) m_run->start();
    if (ImGui::IsKeyPressed('Q')) m_quit = true;
    if (ImGui::IsKeyPressed('1')) selectTab(CodeTab::Source);
    if (ImGui::IsKeyPressed('2')) selectTab(CodeTab::Ptx);
    if (ImGui::IsKeyPressed('3')) selectTab(CodeTab::Log);
    if (ImGui::IsKeyPressed('4')) selectTab(CodeTab::Sass);
    if (!io.KeyShift && ImGui::IsKeyPressed('P')) keepCurrent();
    if (!io.KeyShift && ImGui::IsKeyPressed('N')) newSession();
    if (!io.KeyShift && ImGui::IsKeyPressed('O')) openSession();
    if (io.KeyShift && ImGui::IsKeyPressed('S')) saveSessionAs();
    if (io.KeyShift && ImGui::IsKeyPressed('C')) m_compare->setOpen(!m_compare->isOpen());
    if (io.KeyShift && ImGui::IsKeyPressed('W')) m_sweepView->setOpen(!m_sweepView->isOpen());
    if (io.KeyShift && ImGui::IsKeyPressed('K')) m_userTemplateView->setOpen(!m_userTemplateView->isOpen());
}

void ExplorerApp::updateTutorials() {
    m_tutorialModel->update();
    if (!m_tutorialModel->welcomeDue()) return;
    if (m_tutorialsView->isOpen()) return;
    if (m_tutorialsView->welcomeShown()) m_tutorialModel->dismissWelcome();  // closed with its X
    else m_tutorialsView->setOpen(true);
}

void ExplorerApp::drawFileMenu() {
    if (!ImGui::BeginMenu("File")) return;
    SessionModel& session = m_model.session();
    if (ImGui::MenuItem("New Session\u2026", "Ctrl+N")) newSession();
    if (ImGui::MenuItem("Open Session\u2026", "Ctrl+O")) openSession();
    if (ImGui::BeginMenu("Open Recent", !session.recent().empty())) {
        for (const auto& p : session.recent()) {
            const bool current = session.data() && session.data()->path == p;
            if (ImGui::MenuItem(p.filename().c_str(), nullptr, current)) session.open(p);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.c_str());
        }
        ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Save Session As\u2026", "Ctrl+Shift+S", false, session.isOpen())) saveSessionAs();
    ImGui::Separator();
    ImGui::TextDisabled("Every change is saved as you make it");
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) m_quit = true;
    ImGui::EndMenu();
}

void ExplorerApp::drawEditMenu() {
    if (!ImGui::BeginMenu("Edit")) return;
    if (ImGui::MenuItem("Your kernel\u2026", "Ctrl+Shift+K", m_userTemplateView->isOpen())) m_userTemplateView->setOpen(!m_userTemplateView->isOpen());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Edit your own templates: their source, manifest and compiler flags, compiled as you type.");
    if (ImGui::MenuItem("New kernel from clipboard")) {
        m_userTemplateView->setOpen(true);
        try {
            const char* clip = ImGui::GetClipboardText();
            m_userTemplates->createFromKernel(clip ? clip : "");
            m_userTemplateView->showMessage("made the template " + m_userTemplates->id() + " from the clipboard's kernel", false);
        } catch (const std::exception& e) {
            m_userTemplateView->showMessage(std::string("cannot make a template of the clipboard: ") + e.what(), true);
        }
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy one __global__ kernel first: it becomes a user template with a 1-D launch.");
    ImGui::Separator();
    if (ImGui::MenuItem("Copy share string", nullptr, false, m_model.currentTemplate() != nullptr)) copyShareString();
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The variant in the editor (template, arch, values, compiler flags, sizes; a user template's files too) as "
                          "one line to paste into another Kernel Explorer or `kx open`.");
    if (ImGui::MenuItem("Open share string from clipboard")) openShareString(nullptr);
    ImGui::EndMenu();
}

void ExplorerApp::notify(std::string text, bool failed) {
    m_notice = std::move(text);
    m_noticeFailed = failed;
    m_noticeUntil = ImGui::GetCurrentContext() ? ImGui::GetTime() + 8.0 : 0;
}

std::string ExplorerApp::copyShareString(std::string* why) {
    try {
        std::string text = m_userTemplates->shareString();
        ImGui::SetClipboardText(text.c_str());
        notify(fmt::format("share string copied ({} characters)", text.size()), false);
        return text;
    } catch (const std::exception& e) {
        if (why != nullptr) *why = e.what();
        notify(std::string("cannot share: ") + e.what(), true);
        return {};
    }
}

bool ExplorerApp::openShareString(const char* text, std::string* message) {
    if (text == nullptr) text = ImGui::GetClipboardText();
    try {
        const std::string what = m_userTemplates->openShareString(text ? text : "");
        notify(what, false);
        // A user template came with it: its editor shows what arrived.
        if (const engine::Template* t = m_model.currentTemplate(); t != nullptr && m_model.library().isUser(t->id())) {
            m_userTemplateView->setOpen(true);
            m_userTemplateView->showMessage(what, false);
        }
        if (message != nullptr) *message = what;
        return true;
    } catch (const std::exception& e) {
        notify(e.what(), true);
        if (message != nullptr) *message = e.what();
        return false;
    }
}

void ExplorerApp::requestFile(FileRequest request) {
    if (m_nativeDialog.available() && m_nativeDialog.error().empty()) {
        if (m_nativeDialog.request(request)) return;
        if (m_nativeDialog.busy()) return;  // one dialog at a time
    }
    m_fileDialog->show(std::move(request));
}

namespace {
std::filesystem::path sessionFolder(const SessionModel& session) {
    if (session.data() && !session.data()->temporary) return session.data()->path.parent_path();
    return engine::sessionsRoot();
}
}  // namespace

void ExplorerApp::newSession() {
    SessionModel& session = m_model.session();
    requestFile({FileRequest::Mode::Save, "New session", sessionFolder(session), "untitled.kxs",
                 [&session](const std::filesystem::path& file) {
                     // The dialogs asked before replacing a file; a new session starts empty.
                     std::error_code ec;
                     std::filesystem::remove(file, ec);
                     session.create(file);
                 }});
}

void ExplorerApp::openSession() {
    SessionModel& session = m_model.session();
    requestFile({FileRequest::Mode::Open, "Open session", sessionFolder(session), "",
                 [&session](const std::filesystem::path& file) { session.open(file); }});
}

void ExplorerApp::saveSessionAs() {
    SessionModel& session = m_model.session();
    if (!session.isOpen()) return;
    const std::string name = session.data()->temporary ? "untitled.kxs" : session.data()->path.filename().string();
    requestFile({FileRequest::Mode::Save, "Save session as", sessionFolder(session), name,
                 [&session](const std::filesystem::path& file) { session.saveAs(file); }});
}

void ExplorerApp::openDemo() {
    m_model.session().openDemo(m_model.dataRoot() / "sessions" / "demo.kxs");
    m_compare->setOpen(true);
}

bool ExplorerApp::keepCurrent(std::string* why) {
    try {
        m_model.compare().keep(m_model);
        return true;
    } catch (const engine::InputError& e) {
        if (why != nullptr) *why = e.what();
        return false;
    }
}

void ExplorerApp::drawSessionMenu() {
    if (!ImGui::BeginMenu("Session")) return;
    const std::string why = CompareModel::cannotKeepReason(m_model);
    if (ImGui::MenuItem("Keep current variant", "Ctrl+P", false, why.empty())) keepCurrent();
    if (!why.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", why.c_str());
    if (ImGui::MenuItem("Compare variants", "Ctrl+Shift+C", m_compare->isOpen())) m_compare->setOpen(!m_compare->isOpen());
    ImGui::MenuItem("Variants list", nullptr, m_variants->openFlag());
    ImGui::EndMenu();
}

void ExplorerApp::drawRunMenu() {
    if (!ImGui::BeginMenu("Run")) return;
    RunModel& runs = m_model.runs();
    const bool ready = runs.runnerState() == RunnerState::Ready && !runs.running();
    if (ImGui::BeginMenu("Test fault isolation", ready)) {
        // Each launches a planted faulty kernel in the runner process: the Run panel then shows
        // what happened, and the app carries on with a fresh runner.
        if (ImGui::MenuItem("Out-of-bounds write")) runs.startPlantedFault("out_of_bounds");
        if (ImGui::MenuItem("Trap")) runs.startPlantedFault("trap");
        if (ImGui::MenuItem(fmt::format("Hang (killed after {:.0f} s)", runs.timeoutSeconds).c_str())) runs.startPlantedFault("hang");
        ImGui::EndMenu();
    }
    if (!ready && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", runs.running() ? "a run is in flight" : "running needs an NVIDIA GPU and its driver");
    if (ImGui::MenuItem("Run on GPU", "Ctrl+R", false, ready)) m_run->start();
    if (ImGui::MenuItem("Cancel run", nullptr, false, runs.running())) runs.cancel();
    ImGui::Separator();
    if (ImGui::MenuItem("Sweep configs\u2026", "Ctrl+Shift+W", m_sweepView->isOpen())) m_sweepView->setOpen(!m_sweepView->isOpen());
    ImGui::EndMenu();
}

}  // namespace kx::app
