#include "views/amd_occupancy_panel.hpp"

#include "explorer_model.hpp"

#include "theme.hpp"
#include "util/error.hpp"
#include "widgets/chart.hpp"
#include "widgets/tooltip.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::app {

namespace {

bool sameInput(const engine::AmdOccupancyInput& a, const engine::AmdOccupancyInput& b) {
    return a.vgprsPerThread == b.vgprsPerThread && a.agprsPerThread == b.agprsPerThread &&
           a.sgprsPerWave == b.sgprsPerWave && a.workgroupSize == b.workgroupSize &&
           a.ldsBytesPerWorkgroup == b.ldsBytesPerWorkgroup;
}

std::string limiterList(const engine::AmdOccupancyResult& r) {
    std::string s;
    for (auto l : r.limiters) s += (s.empty() ? "" : " + ") + std::string(engine::amdLimiterName(l));
    return s.empty() ? "none" : s;
}

std::string limitText(int limit) { return limit == engine::kAmdNoLimit ? std::string("-") : std::to_string(limit); }

}  // namespace

void AmdOccupancyPanel::tooltip(const std::string& text) const { wrappedTooltip(text); }

void AmdOccupancyPanel::recompute(const engine::Arch& arch) {
    m_computedArch = arch.name;
    m_computedInput = m_input;
    m_result.reset();
    m_error.clear();
    m_explain.clear();
    try {
        m_result = engine::amdOccupancy(arch, m_input);
        m_explain = engine::explainAmdOccupancy(*m_result, m_input, arch);
    } catch (const engine::InputError& e) {
        m_error = e.what();
    }
    m_vgprX.clear();
    m_vgprWaves.clear();
    // With AGPRs the arch VGPRs stop at 256 and the sum at maxVgprsPerWave.
    const int maxVgprs = m_input.agprsPerThread > 0 ? std::min(256, arch.amd.maxVgprsPerWave) : arch.amd.maxVgprsPerWave;
    // Waves change only where a new granule starts (1, 1 + g, 1 + 2g, ...): one point per step.
    const int granule = std::max(1, arch.amd.vgprAllocGranule);
    for (int v = 0; v <= maxVgprs; v = v == 0 ? 1 : v + granule) {
        engine::AmdOccupancyInput in = m_input;
        in.vgprsPerThread = v;
        m_vgprX.push_back(v);
        try {
            m_vgprWaves.push_back(engine::amdOccupancy(arch, in).wavesPerSimd);
        } catch (const engine::InputError&) {
            m_vgprWaves.push_back(0.0);  // that launch cannot run
        }
    }
}

void AmdOccupancyPanel::setCompiled(const ExplorerModel& model) {
    const engine::HipCompileResult* r = model.hipResult();
    const engine::Arch* arch = model.currentArch();
    if (!model.compilesHip() || r == nullptr || !r->ok || !model.hipResultIsCurrent() || arch == nullptr || !model.launch()) {
        if (!model.compilesHip()) {
            m_compiled.reset();
            m_compiledKey.clear();
        }
        return;
    }
    const std::string key = model.resultName() + "@" + arch->name + "#" + r->cacheKey;
    if (key == m_compiledKey) return;
    m_compiledKey = key;
    m_compiled.reset();
    // The kernel the launch describes (the primary one).
    const engine::AmdKernelResources* k = engine::amdKernelNamed(r->kernels, model.launch()->kernel);
    if (k == nullptr) return;
    m_compiledName = k->function;
    const int workgroup = static_cast<int>(model.launch()->threadsPerBlock());
    m_input = engine::amdOccupancyInput(*k, workgroup, model.launch()->dynamicSmemBytes);
    try {
        m_compiled = engine::amdKernelOccupancy(*arch, *k, workgroup, model.launch()->dynamicSmemBytes);
    } catch (const engine::InputError&) {
        // The form shows why the launch cannot run.
    }
}

void AmdOccupancyPanel::draw(const engine::Arch& arch) {
    drawForm(arch);
    if (m_computedArch != arch.name || !m_computedInput || !sameInput(*m_computedInput, m_input)) recompute(arch);
    drawResult(arch);
    const float h = std::max(ImGui::GetFontSize() * 8, std::floor(ImGui::GetContentRegionAvail().y - 1));
    drawGraph(arch, h);
}

void AmdOccupancyPanel::drawForm(const engine::Arch& arch) {
    const Palette& pal = m_theme.palette();
    const engine::AmdLimits& amd = arch.amd;
    ImGui::PushTextWrapPos(0.0f);
    if (m_compiled) {
        const engine::AmdKernelOccupancy& c = *m_compiled;
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s (%s), from clang's compile of %s. Edit a figure to see what it would change.",
                           arch.name.c_str(), arch.family.c_str(), m_compiledName.c_str());
        ImGui::TextColored(Theme::toVec4(c.agreesWithCompiler ? pal.ok : pal.warn),
                           "Compiler: %d waves/SIMD; the same formula from the arch data: %d (%s).", c.compilerWavesPerSimd,
                           c.reproducedWavesPerSimd, c.agreesWithCompiler ? "agrees" : "differs");
        tooltip("clang prints its own occupancy (\"; Occupancy: N\" in the ISA): waves per SIMD for workgroups of the "
                "kernel's maximum size. Worked out again from VGPRs, SGPRs, LDS and this arch's limits, it must come out "
                "the same: that is the check that the calculator's data is the compiler's.");
        if (!c.difference.empty()) ImGui::TextColored(Theme::toVec4(pal.textFaint), "Whole workgroups: %s.", c.difference.c_str());
    } else {
        ImGui::TextColored(Theme::toVec4(pal.textDim),
                           "%s (%s): no HIP compile to start from (the template has no HIP source, or it has not compiled). "
                           "Enter a kernel's figures (hipcc -Rpass-analysis=kernel-resource-usage prints them).",
                           arch.name.c_str(), arch.family.c_str());
    }
    ImGui::PopTextWrapPos();

    // The fields flow onto as many rows as the panel's width needs.
    const float fieldWidth = ImGui::GetFontSize() * 7;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
    bool first = true;
    auto place = [&](const char* label, float width) {
        const float need = ImGui::CalcTextSize(label).x + spacing + width;
        if (!first) {
            ImGui::SameLine();
            if (ImGui::GetCursorScreenPos().x + need > right) ImGui::NewLine();
        }
        first = false;
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(label);
    };
    auto intField = [&](const char* label, const char* id, int* value, int step, const std::string& help) {
        place(label, fieldWidth);
        tooltip(help);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(fieldWidth);
        ImGui::InputInt(id, value, step, step * 4);
        tooltip(help);
    };
    intField("VGPRs", "##amd_vgprs", &m_input.vgprsPerThread, amd.vgprAllocGranule,
             fmt::format("Architectural VGPRs per thread. A SIMD has {} per lane for all its waves, given out in "
                         "granules of {}; a wave may use up to {} (arch VGPRs + AGPRs).",
                         amd.vgprsPerSimd, amd.vgprAllocGranule, amd.maxVgprsPerWave));
    intField("AGPRs", "##amd_agprs", &m_input.agprsPerThread, 4,
             "Accumulation registers (MFMA results). On CDNA2/3 they share the VGPR file: a wave is given "
             "alignTo(VGPRs, 4) + AGPRs, rounded to the granule.");
    intField("SGPRs", "##amd_sgprs", &m_input.sgprsPerWave, amd.sgprAllocGranule,
             fmt::format("Scalar registers per wave as the compiler counts them (VCC, FLAT_SCRATCH, XNACK_MASK "
                         "included); 0 if unknown. A SIMD has {}, given out in granules of {}.",
                         amd.sgprsPerSimd, amd.sgprAllocGranule));
    intField("Threads", "##amd_wg", &m_input.workgroupSize, arch.warpSize,
             fmt::format("Threads per workgroup, up to {}; a wave is {} threads.", amd.maxThreadsPerWorkgroup,
                         arch.warpSize));
    const std::string ldsHelp = fmt::format(
        "Bytes of LDS per workgroup (static + dynamic), up to {}. The CU's {} are shared by its workgroups, "
        "allocated in blocks of {} bytes.",
        amd.maxLdsPerWorkgroup, amd.ldsPerCu, amd.ldsAllocGranule);
    place("LDS", fieldWidth * 1.3f);
    tooltip(ldsHelp);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fieldWidth * 1.3f);
    const long long step = std::max(1, amd.ldsAllocGranule);
    const long long fastStep = 4096;
    ImGui::InputScalar("##amd_lds", ImGuiDataType_S64, &m_input.ldsBytesPerWorkgroup, &step, &fastStep, "%lld");
    tooltip(ldsHelp);
}

void AmdOccupancyPanel::drawResult(const engine::Arch& arch) {
    const Palette& pal = m_theme.palette();
    if (!m_result) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.error), "Cannot launch: %s", m_error.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    const engine::AmdOccupancyResult& r = *m_result;
    occupancyHeadline(m_theme, r.occupancy,
                      "Theoretical occupancy: resident waves over the SIMD's wave slots. Achieved occupancy is at most "
                      "this; latency hiding needs enough of it, not all of it.",
                      fmt::format("{:g} of {} waves/SIMD", r.wavesPerSimd, r.maxWavesPerSimd), limiterList(r),
                      fmt::format("Workgroups per CU each resource allows on its own ({} waves each):\n"
                                  "  VGPRs            {} ({} waves/SIMD)\n  SGPRs            {} ({} waves/SIMD)\n"
                                  "  LDS              {}\n  wave slots       {}\n  workgroup slots  {}\nThe smallest wins.",
                                  r.wavesPerWorkgroup, limitText(r.workgroupLimitVgprs), r.vgprWavesPerSimd,
                                  limitText(r.workgroupLimitSgprs), r.sgprWavesPerSimd, limitText(r.workgroupLimitLds),
                                  limitText(r.workgroupLimitWaves), limitText(r.workgroupLimitSlots)));
    ImGui::Text("%d workgroup%s of %d wave%s per CU = %d waves over %d SIMDs", r.workgroupsPerCu,
                r.workgroupsPerCu == 1 ? "" : "s", r.wavesPerWorkgroup, r.wavesPerWorkgroup == 1 ? "" : "s", r.wavesPerCu,
                arch.amd.simdsPerCu);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(Theme::toVec4(pal.textFaint), "allocated: %d VGPRs/lane, %d SGPRs/wave, %lld bytes of LDS/workgroup",
                       r.allocatedVgprs, r.allocatedSgprs, r.allocatedLds);
    ImGui::PopTextWrapPos();
    if (!m_explain.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", m_explain.c_str());
        ImGui::PopTextWrapPos();
    }
}

void AmdOccupancyPanel::drawGraph(const engine::Arch& arch, float height) {
    const engine::AmdLimits& amd = arch.amd;
    ChartAxis x;
    x.label = "waves per SIMD vs VGPRs per thread";
    const int maxVgprs = m_input.agprsPerThread > 0 ? std::min(256, amd.maxVgprsPerWave) : amd.maxVgprsPerWave;
    x.scale = {chart::ScaleKind::Linear, 0, static_cast<double>(maxVgprs)};
    x.tickUnit = 64;
    ChartAxis y;
    y.scale = {chart::ScaleKind::Linear, 0, static_cast<double>(amd.maxWavesPerSimd)};
    y.tickUnit = 1;
    y.maxTicks = height > ImGui::GetFontSize() * 10 ? 8 : 4;
    const std::string teach = fmt::format(
        "A SIMD's {} VGPRs per lane are shared by its waves, given out in granules of {}: a kernel using V gets "
        "min({}, {} / roundup(V, {})) waves per SIMD. Workgroups are resident whole, so the curve also steps "
        "where whole workgroups stop fitting; LDS, SGPRs and slots cap it from above.",
        amd.vgprsPerSimd, amd.vgprAllocGranule, amd.maxWavesPerSimd, amd.vgprsPerSimd, amd.vgprAllocGranule);

    Chart chart(m_theme);
    if (!chart.begin("##amd_occ_vgprs", ImVec2(-1, height), x, y)) return;
    chart.setLegendCorner(LegendCorner::None);
    const ChartColours& cc = chart.colours();
    ImVec4 fill = Theme::toVec4(cc.series[0]);
    fill.w = 0.18f;
    chart.area(nullptr, m_vgprX, m_vgprWaves, 0.0, ImGui::ColorConvertFloat4ToU32(fill), true);
    chart.steps("waves per SIMD", m_vgprX, m_vgprWaves, cc.series[0], 2.0f, [&](std::size_t i) {
        const int lo = static_cast<int>(m_vgprX[i]);
        const int hi = i + 1 < m_vgprX.size() ? static_cast<int>(m_vgprX[i + 1]) - 1 : maxVgprs;
        const std::string range = lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
        return fmt::format("{} VGPRs/thread -> {:g} waves per SIMD\n\n{}", range, m_vgprWaves[i], teach);
    });
    const double cx = m_input.vgprsPerThread;
    chart.verticalLine(cx, cc.highlight, nullptr, true);
    const double px[] = {cx};
    const double py[] = {m_result ? m_result->wavesPerSimd : 0.0};
    chart.scatter("this kernel", px, py, MarkerShape::Diamond, cc.highlight, 5.0f, [&](std::size_t) {
        if (!m_result) return std::string("This launch cannot run: ") + m_error;
        return fmt::format("This kernel: {} VGPRs, {} threads -> {:g} waves per SIMD ({:.0f}%)\nlimited by {}\n\n{}",
                           m_input.vgprsPerThread, m_input.workgroupSize, m_result->wavesPerSimd,
                           m_result->occupancy * 100, limiterList(*m_result), teach);
    });
    chart.end();
}

}  // namespace kx::app
