// Occupancy of the current variant, like Nsight Compute's "Occupancy" section: blocks per SM,
// active warps, the limiting resource in a sentence, a carveout selector, and three graphs of
// occupancy against block size, registers per thread and shared memory per block with the
// current launch marked.
//
// Inputs: registers and static shared memory from the compile result (first kernel of the
// ptxas report), threads per block and dynamic shared memory from the launch geometry, the
// selected arch. Computed with engine::nvidiaOccupancy (the CUDA toolkit's own calculator), so it
// needs no GPU. The curves are recomputed only when an input changes, never per frame.
// On AMD arches the view shows AmdOccupancyPanel instead, fed from the HIP compile when there is one.
#pragma once

#include "analysis/occupancy.hpp"
#include "views/amd_occupancy_panel.hpp"
#include "views/view.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kx::app {

class OccupancyView final : public View {
public:
    explicit OccupancyView(ViewContext context) : View("Occupancy", Slot::Centre, context), m_amd(context.theme) {}

    // The waves line as last drawn ("on NVIDIA H100 SXM5 80GB: 288 blocks, 264 at once ..."),
    // empty when the panel had no launch, no compiled kernel or no device for the arch.
    const std::string& wavesText() const { return m_wavesText; }
    // The Split-K count that would fill the idle slots ("SPLITK=44: 132 work units in 1 round,
    // ..."), empty when the template has none or the config's count fills them already.
    const std::string& splitKHintText() const { return m_splitKHint; }

protected:
    void drawContent() override;

private:
    // Everything the numbers depend on; a change of any field recomputes them.
    struct Inputs {
        std::string arch;
        engine::OccupancyInput occ;
        bool operator==(const Inputs& o) const {
            return arch == o.arch && occ.registersPerThread == o.occ.registersPerThread &&
                   occ.threadsPerBlock == o.occ.threadsPerBlock && occ.staticSmemBytes == o.occ.staticSmemBytes &&
                   occ.dynamicSmemBytes == o.occ.dynamicSmemBytes && occ.carveoutPercent == o.occ.carveoutPercent &&
                   occ.barriers == o.occ.barriers;
        }
    };
    // One graph: x values, occupancy in percent, and the calculator's result at each x
    // (nullopt where that launch is impossible, drawn as 0).
    struct Curve {
        std::vector<double> x;
        std::vector<double> percent;
        std::vector<std::optional<engine::OccupancyResult>> results;
        double currentX = 0;
        double currentPercent = 0;
    };
    enum class CurveKind { BlockSize, Registers, SharedMemory };

    // The inputs for the current selection, or nullopt with *why set to what is missing.
    std::optional<Inputs> gatherInputs(std::string* why) const;
    void recompute(const Inputs& in);
    Curve sweep(const engine::Arch& arch, const Inputs& in, CurveKind kind) const;

    void drawSummary(const engine::Arch& arch);
    void drawCarveout(const engine::Arch& arch);
    void drawWaves(const engine::Arch& arch);
    void updateSplitKHint(const engine::Arch& arch, const engine::DeviceSpec& device);
    void drawCurve(const char* id, const Curve& c, CurveKind kind, const engine::Arch& arch, float width, float height);
    std::string pointText(const Curve& c, CurveKind kind, std::size_t i, const engine::Arch& arch) const;
    std::string teachingText(CurveKind kind, const engine::Arch& arch) const;

    int m_manualRegisters = 64;  // analysis-only arches: the user's estimate in place of ptxas's
    int m_carveout = -1;  // -1: no preference, else percent of the SM's maximum shared memory
    std::optional<Inputs> m_inputs;  // what the figures below were computed for
    std::optional<engine::OccupancyResult> m_result;
    std::string m_error;    // the calculator's reason when the current launch cannot run
    std::string m_explain;  // explainOccupancy's sentence
    std::string m_wavesText;
    // splitKHint rates every count: computed when what it depends on changes, not every frame.
    std::string m_splitKHintKey, m_splitKHint;
    Curve m_byBlock;
    Curve m_byRegisters;
    Curve m_bySmem;
    AmdOccupancyPanel m_amd;  // AMD arches: a calculator form instead of the compile's figures
};

}  // namespace kx::app
