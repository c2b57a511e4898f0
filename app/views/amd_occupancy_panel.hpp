// The Occupancy view's face for AMD arches: a calculator form (VGPRs, AGPRs, SGPRs, workgroup
// size, LDS) with the result, the limiting resource in a sentence, and a graph of waves per SIMD
// against VGPRs per thread with the current input marked.
//
// A template with a HIP source fills the form from its clang compile (setCompiled): VGPRs, AGPRs,
// SGPRs, LDS and the launch's workgroup, with the compiler's own occupancy beside ours. Without
// one the user types the figures (hipcc -Rpass-analysis=kernel-resource-usage prints them).
// Computed with engine::amdOccupancy; the curve is recomputed only when an input changes.
#pragma once

#include "analysis/amd_kernel_occupancy.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kx::app {

class Theme;
class ExplorerModel;

class AmdOccupancyPanel {
public:
    explicit AmdOccupancyPanel(const Theme& theme) : m_theme(theme) {}

    // Draws form, result and graph for arch (an AMD arch), filling the available region.
    void draw(const engine::Arch& arch);
    // Takes the current HIP compile's figures from the model (once per new result: edits the
    // user makes to the form stay until the next compile). No-op without a current HIP result.
    void setCompiled(const ExplorerModel& model);

private:
    void recompute(const engine::Arch& arch);
    void drawForm(const engine::Arch& arch);
    void drawResult(const engine::Arch& arch);
    void drawGraph(const engine::Arch& arch, float height);
    void tooltip(const std::string& text) const;

    const Theme& m_theme;
    // The compile the form was last filled from ("name@arch"), and its figures.
    std::string m_compiledKey;
    std::optional<engine::AmdKernelOccupancy> m_compiled;
    std::string m_compiledName;
    // Defaults: a typical HIP kernel (128 VGPRs, 48 SGPRs, 256 threads, 8 KiB of LDS).
    engine::AmdOccupancyInput m_input{128, 0, 48, 256, 8 * 1024};

    // What the figures below were computed for.
    std::string m_computedArch;
    std::optional<engine::AmdOccupancyInput> m_computedInput;
    std::optional<engine::AmdOccupancyResult> m_result;
    std::string m_error;    // why the current input cannot run
    std::string m_explain;  // explainAmdOccupancy's sentence
    // Waves per SIMD at the first VGPR count of each allocation granule (0, 1, 9, 17, ...), the rest
    // of the input held (0 where that launch cannot run); drawn as steps.
    std::vector<double> m_vgprX;
    std::vector<double> m_vgprWaves;
};

}  // namespace kx::app
