// Help > About: versions and where the data comes from.
#pragma once

#include "views/view.hpp"

namespace kx::app {

class AboutView final : public View {
public:
    explicit AboutView(ViewContext context) : View("About Kernel Explorer", Slot::Floating, context) {
        setOpen(false);
    }

protected:
    void drawContent() override;
    void placeWindow() override;
    ImGuiWindowFlags windowFlags() const override {
        return ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;
    }
};

}  // namespace kx::app
