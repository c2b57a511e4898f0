// The bottom strip: what the compiler is doing, where the data comes from, whether runs are possible.
#pragma once

#include "views/view.hpp"

namespace kx::app {

class StatusBarView final : public View {
public:
    explicit StatusBarView(ViewContext context) : View("##statusbar", Slot::StatusBar, context) {}

protected:
    void drawContent() override;
    ImGuiWindowFlags windowFlags() const override {
        return ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
    }
};

// Draws an animated arc the size of a text line at the cursor and advances it.
void spinner(const Theme& theme, ImU32 colour);

}  // namespace kx::app
