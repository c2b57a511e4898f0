// Kernel panel: which template and which architecture.
#pragma once

#include "views/view.hpp"

namespace kx::app {

class KernelView final : public View {
public:
    explicit KernelView(ViewContext context) : View("Kernel", Slot::LeftTop, context) {}

protected:
    void drawContent() override;

private:
    void drawTemplatePicker();
    void drawArchPicker();
    void drawSummary();  // the template's category and description
};

}  // namespace kx::app
