// Right column, below the resource report: run the current variant on the GPU. Problem-size
// fields, a Run button (Cancel while running), the latest result (verdict with max error, time,
// throughput, share of the roof, % of calibrated ceilings, ratio to the same-run baseline),
// scrolled into view when it lands, and the variant's run history. Without a GPU it says so plainly and the rest of the app is unaffected.
#pragma once

#include "views/view.hpp"

#include <string>

namespace kx::app {

struct RunRecord;

class RunView final : public View {
public:
    explicit RunView(ViewContext context) : View("Run", Slot::RightFill, context) {}
    // Run > Run on GPU (Ctrl+R) and the panel's button: starts a run of the current variant, or
    // keeps why it cannot start to show under the button.
    void start();

protected:
    void drawContent() override;

private:
    void drawRunnerStatus();
    void drawControls();
    // Under a failed run: the warning for a window drawn by the GPU that runs the kernels.
    void drawSharedGpuNote();
    void drawResult(const RunRecord& record);
    void drawFaultTest(const RunRecord& record);
    void drawHistory(const std::string& variant);

    std::string m_startError;  // why the last Run click did not start
    // Runs in the history when the panel last drew; -1 before the first frame. A run that lands
    // scrolls its result into view: under the problem sizes it is often below the panel's fold.
    long m_runsSeen = -1;
};

}  // namespace kx::app
