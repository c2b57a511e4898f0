#include "views/occupancy_view.hpp"

#include "analysis/split_k_hint.hpp"
#include "analysis/tile_layout.hpp"
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

std::string kib(long long bytes) {
    if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
    return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
}

// Registers a warp is charged for r per thread: whole allocation units per warp. Shown as the
// per-thread count that costs the same, the figure people can compare with ptxas's.
int chargedRegistersPerThread(const engine::Arch& arch, int regs) {
    const int unit = std::max(1, arch.nv.regAllocUnit);
    const int perWarp = (regs * arch.warpSize + unit - 1) / unit * unit;
    return perWarp / arch.warpSize;
}

std::string limiterList(const engine::OccupancyResult& r) {
    std::string s;
    for (auto l : r.limiters) s += (s.empty() ? "" : " + ") + std::string(engine::limiterName(l));
    return s.empty() ? "none" : s;
}

// Percent value the carveout API takes for a capacity step: the largest p with
// p * smemPerSm / 100 <= step, which the driver rounds up to exactly that step.
int carveoutPercentFor(const engine::Arch& arch, int stepKiB) {
    if (arch.nv.smemPerSm <= 0) return 0;
    return static_cast<int>(static_cast<long long>(stepKiB) * 1024 * 100 / arch.nv.smemPerSm);
}

}  // namespace

std::optional<OccupancyView::Inputs> OccupancyView::gatherInputs(std::string* why) const {
    const engine::Arch* arch = model().currentArch();
    if (arch == nullptr) {
        *why = "Pick an architecture to see its occupancy.";
        return std::nullopt;
    }
    if (arch->vendor != engine::Vendor::Nvidia) {
        *why = arch->name + " is an AMD arch: see the AMD calculator.";  // drawContent shows AmdOccupancyPanel
        return std::nullopt;
    }
    // An analysis-only arch has no compiler to report registers: the user's estimate stands in,
    // so its occupancy is a calculator (as AMD's is) rather than an empty panel.
    const bool manual = !arch->compilable && model().isValid() && model().launch().has_value();
    if (model().phase() == CompilePhase::Skipped && !manual) {
        *why = "No occupancy: " + model().skipReason() + ".";
        return std::nullopt;
    }
    if (manual) {
        const auto& launch = *model().launch();
        Inputs in;
        in.arch = arch->name;
        in.occ.registersPerThread = m_manualRegisters;
        in.occ.threadsPerBlock = static_cast<int>(launch.threadsPerBlock());
        in.occ.dynamicSmemBytes = launch.dynamicSmemBytes;
        in.occ.carveoutPercent = m_carveout;
        in.occ.barriers = 1;
        return in;
    }
    const engine::CompileResult* r = model().compileResult();
    if (r == nullptr) {
        *why = "Waiting for the first compile: occupancy needs the register count ptxas reports.";
        return std::nullopt;
    }
    if (r->ok && !r->assembled) {
        *why = "PTX is ready; waiting for ptxas's register count.";
        return std::nullopt;
    }
    if (!r->ok || r->kernels.empty()) {
        *why = r->ok ? "The ptxas report listed no kernel." : "The compile failed, so there is no register count. See the Log tab.";
        return std::nullopt;
    }
    const auto& launch = model().launch();
    if (!launch) {
        *why = model().launchError().empty() ? "No launch geometry." : model().launchError();
        return std::nullopt;
    }
    const engine::KernelResources& k = *engine::kernelNamed(r->kernels, launch->kernel);
    Inputs in;
    in.arch = arch->name;
    in.occ.registersPerThread = k.registers;
    in.occ.threadsPerBlock = static_cast<int>(launch->threadsPerBlock());
    in.occ.staticSmemBytes = k.sharedBytes;
    in.occ.dynamicSmemBytes = launch->dynamicSmemBytes;
    in.occ.carveoutPercent = m_carveout;
    in.occ.barriers = k.barriers;
    return in;
}

OccupancyView::Curve OccupancyView::sweep(const engine::Arch& arch, const Inputs& in, CurveKind kind) const {
    Curve c;
    auto eval = [&](double x, engine::OccupancyInput occ) {
        c.x.push_back(x);
        try {
            const engine::OccupancyResult r = engine::nvidiaOccupancy(arch, occ);
            c.percent.push_back(r.occupancy * 100.0);
            c.results.emplace_back(r);
        } catch (const engine::InputError&) {
            c.percent.push_back(0.0);  // that launch cannot run: zero resident warps
            c.results.emplace_back(std::nullopt);
        }
    };
    const engine::NvidiaLimits& nv = arch.nv;
    switch (kind) {
    case CurveKind::BlockSize:
        for (int t = arch.warpSize; t <= nv.maxThreadsPerBlock; t += arch.warpSize) {
            engine::OccupancyInput occ = in.occ;
            occ.threadsPerBlock = t;
            eval(t, occ);
        }
        c.currentX = in.occ.threadsPerBlock;
        break;
    case CurveKind::Registers:
        for (int r = 0; r <= nv.maxRegsPerThread; ++r) {
            engine::OccupancyInput occ = in.occ;
            occ.registersPerThread = r;
            eval(r, occ);
        }
        c.currentX = in.occ.registersPerThread;
        break;
    case CurveKind::SharedMemory: {
        // Steps of the allocation unit, coarsened to ~256 points: finer than any pixel.
        const int unit = std::max(1, nv.smemAllocUnit);
        const long long step = std::max<long long>(unit, (nv.smemPerBlockOptin / 256 + unit - 1) / unit * unit);
        for (long long b = 0; b <= nv.smemPerBlockOptin; b += step) {
            engine::OccupancyInput occ = in.occ;
            occ.staticSmemBytes = 0;
            occ.dynamicSmemBytes = b;
            eval(static_cast<double>(b) / 1024.0, occ);
        }
        c.currentX = static_cast<double>(in.occ.staticSmemBytes + in.occ.dynamicSmemBytes) / 1024.0;
        break;
    }
    }
    c.currentPercent = m_result ? m_result->occupancy * 100.0 : 0.0;
    return c;
}

void OccupancyView::recompute(const Inputs& in) {
    m_inputs = in;
    m_result.reset();
    m_error.clear();
    m_explain.clear();
    const engine::Arch* arch = model().archDatabase().findArch(in.arch);
    if (arch == nullptr) return;
    try {
        m_result = engine::nvidiaOccupancy(*arch, in.occ);
        m_explain = engine::explainOccupancy(*m_result, in.occ);
    } catch (const engine::InputError& e) {
        m_error = e.what();
    }
    m_byBlock = sweep(*arch, in, CurveKind::BlockSize);
    m_byRegisters = sweep(*arch, in, CurveKind::Registers);
    m_bySmem = sweep(*arch, in, CurveKind::SharedMemory);
}

void OccupancyView::drawContent() {
    const Palette& pal = theme().palette();
    if (const engine::Arch* current = model().currentArch(); current != nullptr && current->vendor == engine::Vendor::Amd) {
        m_amd.setCompiled(model());  // the HIP compile's figures, when there is one
        m_amd.draw(*current);
        return;
    }
    std::string why;
    const std::optional<Inputs> in = gatherInputs(&why);
    if (!in) {
        ImGui::Spacing();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", why.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    if (!m_inputs || !(*m_inputs == *in)) recompute(*in);
    const engine::Arch* arch = model().archDatabase().findArch(in->arch);
    if (arch == nullptr) return;
    if (!arch->compilable) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextColored(Theme::toVec4(pal.warn), "Calculator:");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
        ImGui::SliderInt("regs/thread (estimate)", &m_manualRegisters, 16, arch->nv.maxRegsPerThread);
        helpTooltip(arch->name + " is analysis-only: no compiler reports its registers, so set the count you expect "
                                 "(the same config on a compilable arch is a good guess). Threads and shared memory "
                                 "come from the launch.");
    }

    drawSummary(*arch);

    // Three graphs side by side when there is room for ~320 px each, else stacked; sized to
    // fill the panel exactly, so it never needs a scrollbar.
    const float fh = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 gap = ImGui::GetStyle().ItemSpacing;
    const bool row = avail.x >= fh * 60;
    const float w = row ? std::floor((avail.x - 2 * gap.x) / 3) : avail.x;
    const float h = std::max(fh * 6, std::floor(row ? avail.y - 1 : (avail.y - 2 * gap.y) / 3 - 1));
    const struct {
        const char* id;
        const Curve* curve;
        CurveKind kind;
    } graphs[] = {{"##occ_block", &m_byBlock, CurveKind::BlockSize},
                  {"##occ_regs", &m_byRegisters, CurveKind::Registers},
                  {"##occ_smem", &m_bySmem, CurveKind::SharedMemory}};
    for (int i = 0; i < 3; ++i) {
        if (row && i > 0) ImGui::SameLine(0, gap.x);
        drawCurve(graphs[i].id, *graphs[i].curve, graphs[i].kind, *arch, w, h);
    }
}

void OccupancyView::drawSummary(const engine::Arch& arch) {
    const Palette& pal = theme().palette();
    const Inputs& in = *m_inputs;

    if (m_result) {
        const engine::OccupancyResult& r = *m_result;
        occupancyHeadline(theme(), r.occupancy,
                          "Theoretical occupancy: resident warps over the SM's warp slots. Achieved occupancy on a GPU "
                          "is at most this; latency hiding needs enough of it, not all of it.",
                          fmt::format("{} of {} warps  {} block{}/SM", r.activeWarpsPerSm, r.maxWarpsPerSm, r.blocksPerSm,
                                      r.blocksPerSm == 1 ? "" : "s"),
                          limiterList(r),
                          fmt::format("Blocks per SM each resource allows on its own:\n"
                                      "  warps          {}\n  registers      {}\n  shared memory  {}\n  block slots    {}\n"
                                      "  barriers       {}\nThe smallest wins.",
                                      r.blockLimitWarps, r.blockLimitRegisters, r.blockLimitSharedMemory, r.blockLimitBlocks,
                                      r.blockLimitBarriers));
    } else {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.error), "Cannot launch: %s", m_error.c_str());
        ImGui::PopTextWrapPos();
    }

    ImGui::TextColored(Theme::toVec4(pal.textFaint), "%d regs/thread  %d threads  %s smem%s", in.occ.registersPerThread,
                       in.occ.threadsPerBlock, kib(in.occ.staticSmemBytes + in.occ.dynamicSmemBytes).c_str(),
                       model().resultIsCurrent() ? "" : "  (previous compile)");
    helpTooltip("Registers and static shared memory from the ptxas report; threads and dynamic shared memory "
                "from the launch at the template's default sizes.");
    drawCarveout(arch);
    drawWaves(arch);
    if (!m_explain.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", m_explain.c_str());
        ImGui::PopTextWrapPos();
    }
}

// How many waves the launch takes, at the blocks per SM above, on this machine's GPU when it has
// the arch's compute capability, else the arch's usual device (as the roofline chooses): a last
// wave with few blocks costs a whole block's time, so a grid a little over a wave (288 blocks for
// 264 slots) takes nearly twice as long as one just under it.
void OccupancyView::drawWaves(const engine::Arch& arch) {
    m_wavesText.clear();
    const auto& launch = model().launch();
    const engine::DeviceSpec* device = model().deviceForArch(arch);
    if (!m_result || !launch || device == nullptr || device->smCount < 1) return;
    const engine::WaveModel w = engine::launchWaves(*device, *launch, *m_result);
    m_wavesText = fmt::format("on {}: {}", device->name, engine::wavesSentence(w));
    const bool idle = w.busyShare() < 0.8;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(Theme::toVec4(idle ? theme().palette().warn : theme().palette().textFaint), "Waves %s", m_wavesText.c_str());
    updateSplitKHint(arch, *device);
    if (!m_splitKHint.empty()) ImGui::TextColored(Theme::toVec4(theme().palette().textDim), "Fill them with %s", m_splitKHint.c_str());
    ImGui::PopTextWrapPos();
    helpTooltip("The GPU runs as many blocks at once as its SMs hold (SMs x blocks per SM); a larger grid runs in waves, and "
                "the last wave costs a whole block's time however few blocks it holds. A grid just over a wave takes about "
                "twice as long as one just under it. Persistent blocks take the work units in rounds, the same way.\n\n"
                "The block count follows the problem size, the tile and, where the template has it, Split-K; the blocks per "
                "SM follow registers and shared memory. The device is this machine's GPU when it has the arch's compute "
                "capability, else the arch's usual one; the Tiles view draws the waves and can pick another.\n\n"
                "Where the template has a Split-K count, the line under the waves offers the count that fills the idle slots "
                "without adding a wave (each allowed count rated at the same blocks per SM; the smaller one on a tie).");
}

void OccupancyView::updateSplitKHint(const engine::Arch& arch, const engine::DeviceSpec& device) {
    const engine::Template* tmpl = model().currentTemplate();
    if (tmpl == nullptr || !m_result) {
        m_splitKHint.clear();
        return;
    }
    std::string key = fmt::format("{}|{}|{}|{}", model().config().canonical(), arch.name, device.id, m_result->blocksPerSm);
    for (const auto& [name, value] : model().sizes()) key += fmt::format("|{}={}", name, value);
    if (key == m_splitKHintKey) return;
    m_splitKHintKey = key;
    m_splitKHint.clear();
    try {
        if (const auto hint = engine::splitKHint(*tmpl, model().config(), arch, model().sizes(), device, *m_result))
            m_splitKHint = engine::splitKHintSentence(*hint);
    } catch (const engine::InputError&) {
        // A config the panel cannot evaluate gets no hint; the Configuration panel says why.
    }
}

void OccupancyView::drawCarveout(const engine::Arch& arch) {
    const engine::NvidiaLimits& nv = arch.nv;
    auto label = [&](int percent) {
        if (percent < 0) return std::string("no preference");
        const long long bytes = static_cast<long long>(percent) * nv.smemPerSm / 100;
        // The capacity the driver picks: the smallest step at or above the request.
        long long step = nv.smemPerSm;
        for (int s : nv.carveoutStepsKiB) {
            if (static_cast<long long>(s) * 1024 >= bytes) {
                step = static_cast<long long>(s) * 1024;
                break;
            }
        }
        return fmt::format("{}% ({})", percent, kib(step));
    };
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(Theme::toVec4(theme().palette().textDim), "Carveout");
    helpTooltip("cudaFuncAttributePreferredSharedMemoryCarveout: how much of the SM's unified L1/shared storage "
                "to configure as shared memory, in percent of the maximum. The driver rounds up to the next "
                "capacity the SM supports; the rest stays L1 cache. No preference lets the driver choose (it "
                "picks enough for the launch).");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    if (ImGui::BeginCombo("##carveout", label(m_carveout).c_str())) {
        if (ImGui::Selectable(label(-1).c_str(), m_carveout == -1)) m_carveout = -1;
        for (int s : nv.carveoutStepsKiB) {
            const int p = carveoutPercentFor(arch, s);
            if (ImGui::Selectable(label(p).c_str(), m_carveout == p)) m_carveout = p;
        }
        ImGui::EndCombo();
    }
    if (m_result && m_result->smemPerSmConfigured > 0) {
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(theme().palette().textFaint), "SM shared: %s",
                           kib(m_result->smemPerSmConfigured).c_str());
    }
}

std::string OccupancyView::teachingText(CurveKind kind, const engine::Arch& arch) const {
    const engine::NvidiaLimits& nv = arch.nv;
    const int maxWarps = nv.maxThreadsPerSm / std::max(1, arch.warpSize);
    switch (kind) {
    case CurveKind::BlockSize:
        return fmt::format(
            "An SM on {} holds at most {} warps and {} blocks. A block of T threads occupies ceil(T/{}) warp slots, "
            "so blocks smaller than {} threads run out of block slots before warp slots; and the registers and "
            "shared memory of each block must fit too. Sizes that are not a multiple of {} waste lanes.",
            arch.name, maxWarps, nv.maxBlocksPerSm, arch.warpSize, nv.maxThreadsPerSm / std::max(1, nv.maxBlocksPerSm),
            arch.warpSize);
    case CurveKind::Registers: {
        const int r = 65;
        return fmt::format(
            "Registers are allocated per warp in units of {}; {} registers per thread costs as much as {}. The SM "
            "has {} registers ({} per thread at full occupancy); a thread may use at most {}. Beyond that, or under "
            "__launch_bounds__/maxrregcount, the compiler spills to local memory.",
            nv.regAllocUnit, r, chargedRegistersPerThread(arch, r), nv.regsPerSm, nv.regsPerSm / std::max(1, nv.maxThreadsPerSm),
            nv.maxRegsPerThread);
    }
    case CurveKind::SharedMemory:
        return fmt::format(
            "Shared memory is allocated per block in units of {} bytes, plus {} the system reserves per block. All "
            "resident blocks share the SM's configured capacity (up to {}, set by the carveout). A block may use 48 "
            "KiB without opting in, {} with cudaFuncAttributeMaxDynamicSharedMemorySize.",
            nv.smemAllocUnit, kib(nv.smemReservedPerBlock), kib(nv.smemPerSm), kib(nv.smemPerBlockOptin));
    }
    return {};
}

std::string OccupancyView::pointText(const Curve& c, CurveKind kind, std::size_t i, const engine::Arch& arch) const {
    std::string head;
    switch (kind) {
    case CurveKind::BlockSize: {
        const int t = static_cast<int>(c.x[i]);
        head = fmt::format("{} threads per block ({} warps)", t, (t + arch.warpSize - 1) / arch.warpSize);
        break;
    }
    case CurveKind::Registers: {
        const int r = static_cast<int>(c.x[i]);
        const int charged = chargedRegistersPerThread(arch, r);
        head = fmt::format("{} registers per thread", r);
        if (charged != r) head += fmt::format(" (charged as {}: per-warp units of {})", charged, arch.nv.regAllocUnit);
        break;
    }
    case CurveKind::SharedMemory:
        head = fmt::format("{} shared memory per block", kib(std::llround(c.x[i] * 1024)));
        break;
    }
    const auto& r = c.results[i];
    if (!r) return head + "\ncannot launch: over a per-block limit";
    std::string text = fmt::format("{}\n{} block{}/SM -> {} of {} warps ({:.0f}%)\nlimited by {}", head, r->blocksPerSm,
                                   r->blocksPerSm == 1 ? "" : "s", r->activeWarpsPerSm, r->maxWarpsPerSm,
                                   r->occupancy * 100, limiterList(*r));
    if (kind == CurveKind::SharedMemory)
        text += fmt::format("\nallocated {} per block (reserve included)", kib(r->allocatedSmemPerBlock));
    if (kind == CurveKind::Registers)
        text += fmt::format("\n{} registers per block", r->allocatedRegistersPerBlock);
    return text;
}

void OccupancyView::drawCurve(const char* id, const Curve& c, CurveKind kind, const engine::Arch& arch, float width,
                              float height) {
    ChartAxis x;
    ChartAxis y;
    y.scale = {chart::ScaleKind::Linear, 0, 100};
    y.tickUnit = 25;
    y.maxTicks = height > ImGui::GetFontSize() * 10 ? 4 : 2;
    y.format = [](double v) { return chart::formatCompact(v) + "%"; };
    switch (kind) {
    case CurveKind::BlockSize:
        x.label = "occupancy vs threads per block";
        x.scale = {chart::ScaleKind::Linear, 0, static_cast<double>(arch.nv.maxThreadsPerBlock)};
        x.tickUnit = 128;
        break;
    case CurveKind::Registers:
        x.label = "occupancy vs registers per thread";
        x.scale = {chart::ScaleKind::Linear, 0, static_cast<double>(arch.nv.maxRegsPerThread + 1)};
        x.tickUnit = 32;
        break;
    case CurveKind::SharedMemory:
        x.label = "occupancy vs shared memory per block (KiB)";
        x.scale = {chart::ScaleKind::Linear, 0, std::ceil(static_cast<double>(arch.nv.smemPerBlockOptin) / 1024.0)};
        x.tickUnit = 16;
        break;
    }
    const std::string teach = teachingText(kind, arch);

    Chart chart(theme());
    if (!chart.begin(id, ImVec2(width, height), x, y)) return;
    chart.setLegendCorner(LegendCorner::None);
    const ChartColours& cc = chart.colours();
    ImVec4 fill = Theme::toVec4(cc.series[0]);
    fill.w = 0.18f;
    chart.area(nullptr, c.x, c.percent, 0.0, ImGui::ColorConvertFloat4ToU32(fill), true);
    chart.steps("occupancy", c.x, c.percent, cc.series[0], 2.0f,
                [&](std::size_t i) { return pointText(c, kind, i, arch) + "\n\n" + teach; });
    chart.verticalLine(c.currentX, cc.highlight, nullptr, true);
    const double px[] = {c.currentX};
    const double py[] = {c.currentPercent};
    chart.scatter("this launch", px, py, MarkerShape::Diamond, cc.highlight, 5.0f, [&](std::size_t) {
        if (!m_result) return std::string("This launch cannot run: ") + m_error;
        const engine::OccupancyResult& r = *m_result;
        return fmt::format("This launch: {} regs/thread, {} threads, {} shared\n{} block{}/SM -> {} of {} warps "
                           "({:.0f}%)\nlimited by {}\n\n{}",
                           m_inputs->occ.registersPerThread, m_inputs->occ.threadsPerBlock,
                           kib(m_inputs->occ.staticSmemBytes + m_inputs->occ.dynamicSmemBytes), r.blocksPerSm,
                           r.blocksPerSm == 1 ? "" : "s", r.activeWarpsPerSm, r.maxWarpsPerSm, r.occupancy * 100,
                           limiterList(r), teach);
    });
    chart.end();
}

}  // namespace kx::app
