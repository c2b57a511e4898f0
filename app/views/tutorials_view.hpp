// Tutorials: the guided learning path, in a window beside the editor. The list of tutorials with
// each one's progress; a tutorial's step with its prose, "Show me" buttons that drive the app,
// its checkpoints (a tick or a cross with the reason, live as the editor changes), hints, the run
// recorded on a real GPU, and Back / Next. On a first run it opens on a welcome that offers the
// first tutorial.
#pragma once

#include "tutorial_model.hpp"
#include "views/view.hpp"
#include "widgets/image_textures.hpp"

#include "tutorial/prose.hpp"

#include <string>
#include <vector>

namespace kx::app {

class TutorialsView final : public View {
public:
    TutorialsView(ViewContext context, TutorialModel& tutorials);
    bool inViewMenu() const override { return true; }
    // True once the welcome was drawn: closing the window then counts as "not now".
    bool welcomeShown() const { return m_welcomeShown; }
    // The prose images of the step drawn last: how many were shown, and why the others were not.
    int imagesShown() const { return m_imagesShown; }
    const std::vector<std::string>& imageProblems() const { return m_imageProblems; }

protected:
    void drawContent() override;
    void placeWindow() override;
    ImGuiWindowFlags windowFlags() const override { return ImGuiWindowFlags_NoCollapse; }

private:
    void drawWelcome();
    void drawList();
    void drawStep();
    void drawCheckpoints(const engine::TutorialStep& step);
    void drawProse(const std::vector<engine::ProseBlock>& blocks);
    void drawSpans(const std::vector<engine::ProseSpan>& spans);
    // A filled disc with a tick, a cross or a dot, one text line high.
    void statusMark(engine::CheckStatus status);

    TutorialModel& m_tutorials;
    bool m_welcomeShown = false;  // opened once for the welcome
    ImageTextures m_images;
    int m_imagesShown = 0;
    std::vector<std::string> m_imageProblems;
};

}  // namespace kx::app
