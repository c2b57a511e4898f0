#include "explorer_app.hpp"

#include "views/about_view.hpp"
#include "views/config_view.hpp"
#include "views/instruction_mix_view.hpp"
#include "views/kernel_view.hpp"
#include "views/occupancy_view.hpp"
#include "views/resources_view.hpp"
#include "views/run_view.hpp"
#include "views/status_bar_view.hpp"
#include "util/error.hpp"

#include "util/data_paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace kx::app {

namespace {
// Share of the centre's height the code tabs keep when analysis panels sit below them: about
// 25 lines of code, and enough height below for three occupancy graphs.
constexpr float kCentreTopFraction = 0.42f;
// The Variants list's largest share of the left column: the configuration keeps the rest.
constexpr float kLeftBottomMaxFraction = 0.36f;
}  // namespace

ExplorerApp::ExplorerApp(ExplorerModel& model, const Theme& theme) : m_model(model), m_theme(theme) {
    // The registry: every view, once. Order is draw order; the slot says where it goes.
    add<KernelView>();
    add<ConfigView>();
    m_variants = add<VariantsView>();
    m_codeTabs = add<CodeTabsView>();
    add<OccupancyView>();
    m_roofline = add<RooflineView>();
    add<InstructionMixView>();  // closed until opened from the View menu or a script
    add<ResourcesView>();
    add<LaunchView>();
    add<RunView>();
    add<StatusBarView>();
    m_compare = add<CompareView>();  // floating, over the tiled panels; closed until asked for
    m_tileView = add<TileView>();    // floating, over the code and the right column; closed until asked for
    m_about = add<AboutView>();
    m_fileDialog = add<FileDialogView>();
    // Tutorials: a floating window over the editor, closed until asked for or a first run.
    m_tutorialModel = std::make_unique<TutorialModel>(m_model, m_model.dataRoot(), engine::configRoot() / "welcome-dismissed");
    m_tutorialModel->setHooks({[this](const std::string& view) {
                                   if (view == "source" || view == "ptx" || view == "log") {
                                       selectTab(view == "ptx" ? CodeTab::Ptx : view == "log" ? CodeTab::Log : CodeTab::Source);
                                       return true;
                                   }
                                   return showView(view);
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

bool ExplorerApp::showView(std::string_view name) {
    for (auto& v : m_views) {
        const std::string& t = v->title();
        const bool same = t.size() == name.size() &&
                          std::equal(t.begin(), t.end(), name.begin(), [](char a, char b) {
                              return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
                          });
        if (same) {
            v->setOpen(true);
            return true;
        }
    }
    return false;
}

void ExplorerApp::drawMenuBar() {
    drawFileMenu();
    if (ImGui::BeginMenu("View")) {
        for (auto& v : m_views) {
            if (v->inViewMenu()) ImGui::MenuItem(v->title().c_str(), nullptr, v->openFlag());
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Source", "Ctrl+1")) selectTab(CodeTab::Source);
        if (ImGui::MenuItem("PTX", "Ctrl+2")) selectTab(CodeTab::Ptx);
        if (ImGui::MenuItem("Log", "Ctrl+3")) selectTab(CodeTab::Log);
        ImGui::Separator();
        bool prefetch = m_model.prefetch();
        if (ImGui::MenuItem("Precompile neighbouring configs", nullptr, &prefetch)) m_model.setPrefetch(prefetch);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("After each compile, compile the configs one edit away on a spare core, so the next edit's "
                              "PTX is usually ready at once.");
        ImGui::EndMenu();
    }
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
    shortcuts();
}

void ExplorerApp::shortcuts() {
    // Shortcuts shown in the menus (GLFW key codes equal ASCII for letters and digits).
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.KeyCtrl) return;
    if (ImGui::IsKeyPressed('Q')) m_quit = true;
    if (ImGui::IsKeyPressed('1')) selectTab(CodeTab::Source);
    if (ImGui::IsKeyPressed('2')) selectTab(CodeTab::Ptx);
    if (ImGui::IsKeyPressed('3')) selectTab(CodeTab::Log);
    if (!io.KeyShift && ImGui::IsKeyPressed('P')) keepCurrent();
    if (!io.KeyShift && ImGui::IsKeyPressed('N')) newSession();
    if (!io.KeyShift && ImGui::IsKeyPressed('O')) openSession();
    if (io.KeyShift && ImGui::IsKeyPressed('S')) saveSessionAs();
    if (io.KeyShift && ImGui::IsKeyPressed('C')) m_compare->setOpen(!m_compare->isOpen());
    if (io.KeyShift && ImGui::IsKeyPressed('W')) m_sweepView->setOpen(!m_sweepView->isOpen());
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
    if (ImGui::MenuItem("Cancel run", nullptr, false, runs.running())) runs.cancel();
    ImGui::Separator();
    if (ImGui::MenuItem("Sweep configs\u2026", "Ctrl+Shift+W", m_sweepView->isOpen())) m_sweepView->setOpen(!m_sweepView->isOpen());
    ImGui::EndMenu();
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
    View* leftBottom = find(Slot::LeftBottom);
    View* centre = find(Slot::Centre);
    View* rightFill = find(Slot::RightFill);
    View* rightBottom = find(Slot::RightBottom);
    View* status = find(Slot::StatusBar);

    const float statusH = status ? ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2 : 0.0f;
    const float bodyH = full.y - statusH;
    const float leftW = (leftTop || leftFill || leftBottom) ? sz.leftColumnWidth : 0.0f;
    const float rightW = (rightFill || rightBottom || find(Slot::RightTop)) ? sz.rightColumnWidth : 0.0f;

    // Left: Kernel sized to its content, Variants at the bottom sized to its content (at most a
    // share of the column), Configuration takes the rest.
    {
        float y = origin.y;
        float bottom = origin.y + bodyH;
        if (leftTop) {
            const float h = leftFill ? std::min(leftTop->desiredHeight(), bodyH * 0.5f) : bodyH;
            leftTop->setRect(ImVec2(origin.x, y), ImVec2(leftW, h));
            y += h;
        }
        if (leftBottom) {
            const float h = leftFill ? std::min(leftBottom->desiredHeight(), bodyH * kLeftBottomMaxFraction) : bottom - y;
            leftBottom->setRect(ImVec2(origin.x, bottom - h), ImVec2(leftW, h));
            bottom -= h;
        }
        if (leftFill) leftFill->setRect(ImVec2(origin.x, y), ImVec2(leftW, bottom - y));
    }
    // Right: the content-sized views (Resources, Launch) stacked from the top, the fill view
    // (Run) below them taking the rest, and a content-sized bottom view if any.
    {
        const float x = origin.x + full.x - rightW;
        float top = origin.y;
        float bottom = origin.y + bodyH;
        if (rightBottom) {
            const float h = rightFill ? std::min(rightBottom->desiredHeight(), bodyH * 0.5f) : bodyH;
            rightBottom->setRect(ImVec2(x, bottom - h), ImVec2(rightW, h));
            bottom -= h;
        }
        for (auto& v : m_views) {
            if (v->slot() != Slot::RightTop || !v->isOpen()) continue;
            // Leave the fill view at least a third of the column.
            const float h = std::min(v->desiredHeight(), std::max(0.0f, bottom - top - (rightFill ? bodyH / 3 : 0.0f)));
            v->setRect(ImVec2(x, top), ImVec2(rightW, h));
            top += h;
        }
        if (rightFill) rightFill->setRect(ImVec2(x, top), ImVec2(rightW, bottom - top));
    }
    // Centre: the first open centre view (the code tabs) on top; the others (Occupancy, Roofline)
    // side by side below it, so source, occupancy and roofline are in view at once.
    if (centre) {
        std::vector<View*> below;
        for (auto& v : m_views) {
            if (v->slot() == Slot::Centre && v->isOpen() && v.get() != centre) below.push_back(v.get());
        }
        const float x = origin.x + leftW;
        const float w = full.x - leftW - rightW;
        const float topH = below.empty() ? bodyH : std::floor(bodyH * kCentreTopFraction);
        centre->setRect(ImVec2(x, origin.y), ImVec2(w, topH));
        for (std::size_t i = 0; i < below.size(); ++i) {
            const float x0 = std::floor(x + w * static_cast<float>(i) / static_cast<float>(below.size()));
            const float x1 = std::floor(x + w * static_cast<float>(i + 1) / static_cast<float>(below.size()));
            below[i]->setRect(ImVec2(x0, origin.y + topH), ImVec2(x1 - x0, bodyH - topH));
        }
    }
    if (status) status->setRect(ImVec2(origin.x, origin.y + bodyH), ImVec2(full.x, statusH));
}

}  // namespace kx::app
