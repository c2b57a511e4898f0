#include "views/tile_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"
#include "views/tile_drawing.hpp"
#include "widgets/chart.hpp"
#include "widgets/opaque_fill.hpp"
#include "widgets/region_png.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

// Index
//   [SECTION] Window, toolbar, export
//   [SECTION] 1-D: blocks and elements
// The GEMM panels are in tile_view_gemm.cpp, the colours and drawing helpers in tile_drawing.cpp.

namespace kx::app {

using namespace tile_drawing;

// [SECTION] Window, toolbar, export

TileView::TileView(ViewContext context)
    : View("Tiles", Slot::Floating, context), m_tiles(context.model), m_capture(std::make_shared<RegionPng>()) {
    setOpen(false);
}

TileView::~TileView() = default;

void TileView::requestPng(std::filesystem::path file) { m_capture->request(std::move(file)); }

bool TileView::pngPending() const { return m_capture->pending(); }

const std::string& TileView::lastExportMessage() const { return m_capture->done ? m_capture->message : m_exportMessage; }

void TileView::placeWindow() {
    // Over the code and the right column: the Configuration panel on the left stays in reach.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float left = std::min(theme().sizes().leftColumnWidth, vp->WorkSize.x * 0.3f);
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + left, vp->WorkPos.y), ImGuiCond_Appearing);
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - left, vp->WorkSize.y - ImGui::GetFrameHeightWithSpacing()), ImGuiCond_Appearing);
}

void TileView::drawContent() {
    m_tiles.update(ImGui::GetIO().DeltaTime);
    m_capture->takeOutcome(m_exportMessage, m_exportFailed);
    drawToolbar();
    const Palette& pal = theme().palette();
    const auto& scene = m_tiles.scene();
    if (!scene) {
        ImGui::Spacing();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", m_tiles.message().c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.x < 200 || avail.y < 160) return;
    ImGui::InvisibleButton("##tiles", avail);
    m_canvasHovered = ImGui::IsItemHovered();
    m_clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    m_hover.clear();
    const Rect canvas{origin, ImVec2(origin.x + avail.x, origin.y + avail.y)};
    fillOpaqueRect(ImGui::GetWindowDrawList(), canvas.min, canvas.max, pal.windowBg);
    if (scene->kind == engine::TileScene::Kind::Gemm) drawGemm(canvas);
    else drawBlocks(canvas);
    if (m_capture->wanted()) m_capture->queue(ImGui::GetWindowDrawList(), canvas.min, canvas.max);
    if (!m_hover.empty()) {
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(m_hover.c_str());
        ImGui::EndTooltip();
    }
}

void TileView::drawToolbar() {
    const Palette& pal = theme().palette();
    const engine::ArchDatabase& db = model().archDatabase();
    const engine::DeviceSpec* current = db.findDevice(m_tiles.deviceId());
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Device");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    if (ImGui::BeginCombo("##device", current ? current->name.c_str() : "(none)")) {
        for (const engine::DeviceSpec& d : db.devices()) {
            const engine::Arch* a = db.findArch(d.arch);
            if (a == nullptr || a->vendor != engine::Vendor::Nvidia) continue;
            if (ImGui::Selectable(fmt::format("{} ({}, {} SMs)", d.name, d.arch, d.smCount).c_str(), current == &d)) m_tiles.pickDevice(d.id);
        }
        ImGui::EndCombo();
    }
    helpTooltip("The SM count comes from the device; the blocks per SM from the arch's limits and the compiled kernel's registers. "
                "The device's compute capability must be the arch's.");
    ImGui::SameLine();
    if (ImGui::Button(m_tiles.paused() ? "Play" : "Pause")) m_tiles.setPaused(!m_tiles.paused());
    helpTooltip("The K-loop animation: one k-tile per step.");
    ImGui::SameLine();
    if (ImGui::Button("Export PNG")) {
        const auto& scene = m_tiles.scene();
        requestPng(fmt::format("tiles_{}.png", scene ? scene->configName : std::string("none")));
    }
    helpTooltip("Saves the drawing below the toolbar in the current folder.");
    if (const auto& scene = m_tiles.scene()) {
        const engine::WaveModel& w = scene->waves;
        const std::string regs = w.registersSource == "ptxas"      ? fmt::format("{} registers (ptxas)", w.registersPerThread)
                                 : w.registersSource == "estimate" ? fmt::format("~{} registers (estimate until compiled)", w.registersPerThread)
                                                                   : std::string("registers unknown");
        ImGui::SameLine();
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s  \u00b7  %d threads  \u00b7  %s", scene->configName.c_str(), scene->threadsPerBlock,
                           regs.c_str());
    }
    const std::string& note = !m_exportMessage.empty() ? m_exportMessage : m_tiles.note();
    if (!note.empty())
        ImGui::TextColored(Theme::toVec4(m_exportFailed || note == m_tiles.note() ? pal.warn : pal.textFaint), "%s", note.c_str());
}

TileView::Rect TileView::panel(const Rect& r, const std::string& title, const std::string& subtitle) {
    const Palette& pal = theme().palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    fillOpaqueRect(dl, r.min, r.max, pal.panelBg, 4.0f);
    dl->AddRect(r.min, r.max, pal.border, 4.0f);
    const float pad = 8.0f, line = ImGui::GetTextLineHeight();
    ImGui::PushFont(theme().fonts().bold);
    dl->AddText(ImVec2(r.min.x + pad, r.min.y + pad), pal.text, title.c_str());
    ImGui::PopFont();
    dl->PushClipRect(r.min, r.max, true);
    dl->AddText(ImVec2(r.min.x + pad, r.min.y + pad + line + 2), pal.textDim, subtitle.c_str());
    dl->PopClipRect();
    return {ImVec2(r.min.x + pad, r.min.y + pad + 2 * line + 10), ImVec2(r.max.x - pad, r.max.y - pad)};
}

// [SECTION] 1-D: blocks and elements

void TileView::drawBlocks(const Rect& c) {
    const float midY = std::floor(c.min.y + c.height() * 0.42f);
    drawBlockStrip({c.min, ImVec2(c.max.x, midY - kGap / 2)});
    const engine::BlocksLayout& b = m_tiles.scene()->blocks;
    if (b.holdBlocked != b.loadBlocked) {
        const float midX = std::floor(c.min.x + c.width() * 0.5f);
        drawElementMap({ImVec2(c.min.x, midY + kGap / 2), ImVec2(midX - kGap / 2, c.max.y)}, false);
        drawElementMap({ImVec2(midX + kGap / 2, midY + kGap / 2), c.max}, true);
    } else {
        drawElementMap({ImVec2(c.min.x, midY + kGap / 2), c.max}, false);
    }
}

void TileView::drawBlockStrip(const Rect& r) {
    const engine::TileScene& s = *m_tiles.scene();
    const engine::BlocksLayout& b = s.blocks;
    const Rect a = panel(r, fmt::format("{} elements: {} blocks of {} x {} x {} = {} elements per step", b.elements, b.grid, b.block, b.items, b.vector, b.tile),
                         fmt::format("{}, {}; {}", count(b.steps, "grid-stride step", "grid-stride steps"), count(b.tiles, "tile", "tiles"),
                                     wavesText(s.waves)));
    const engine::WaveModel& w = s.waves;
    const Palette& pal = theme().palette();
    const ChartColours cc = chartColours(theme());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    // Blocks in launch order, wrapped into rows; a grid larger than the panel draws one cell per group.
    const long long group = (b.grid + 4095) / 4096;
    const long long cells = (b.grid + group - 1) / group;
    const int perRow = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(cells) * a.width() / std::max(1.0f, a.height())))));
    const long long rows = (cells + perRow - 1) / perRow;
    const float cell = std::floor(std::min(a.width() / static_cast<float>(perRow), a.height() / static_cast<float>(rows)));
    for (long long i = 0; i < cells; ++i) {
        const long long block = i * group;
        const ImVec2 p0(a.min.x + static_cast<float>(i % perRow) * cell, a.min.y + static_cast<float>(i / perRow) * cell), p1(p0.x + cell, p0.y + cell);
        const long long wave = w.waveOf(block);
        const ImU32 fill = w.inTail(block) ? pal.warn : wave % 2 ? mix(cc.series[0], pal.panelBg, 0.3f) : cc.series[0];
        cellFill(dl, p0, p1, fill, cell >= 4 ? 1.0f : 0.0f);
        if (m_canvasHovered && inside(mouse, p0, p1))
            hoverText(fmt::format("block {}{}\nSM {}, wave {}{}\nelements {}..{} in step 0, then every {} further", block,
                                  group > 1 ? fmt::format(" (and the next {})", group - 1) : std::string(), w.smOf(block), wave,
                                  w.inTail(block) ? " (the tail)" : "", block * b.tile, std::min(b.elements, (block + 1) * b.tile) - 1, b.grid * b.tile));
    }
}

void TileView::drawElementMap(const Rect& r, bool held) {
    const engine::BlocksLayout& b = m_tiles.scene()->blocks;
    const Palette& pal = theme().palette();
    const bool blocked = held ? b.holdBlocked : b.loadBlocked;
    const std::string how = blocked ? fmt::format("thread t has elements {}t .. {}t+{}", b.items * b.vector, b.items * b.vector, b.items * b.vector - 1)
                            : b.warpStriped ? std::string("each warp's 32 lanes read 32 neighbouring vectors at a time")
                                            : fmt::format("vector i of thread t is vector {}i + t of the tile", b.block);
    const Rect a = panel(r, fmt::format("One block tile, {} {} ({}-wide vectors)", held ? "held by" : "loaded by", "thread", b.vector),
                         (held ? "after the exchange through shared memory: " : "") + how);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const float captionH = ImGui::GetTextLineHeightWithSpacing();
    // Rows of 32 vectors (one warp-wide load), as many rows as fit.
    const int perRow = 32 * b.vector;
    const float cell = std::max(2.0f, std::floor(a.width() / static_cast<float>(perRow)));
    const long long rowsFit = static_cast<long long>((a.height() - captionH) / cell);
    const long long rows = std::min<long long>(rowsFit, (b.tile + perRow - 1) / perRow);
    for (long long e = 0; e < rows * perRow && e < b.tile; ++e) {
        const engine::BlocksLayout::Owner o = b.ownerOf(e, blocked);
        const ImVec2 p0(a.min.x + static_cast<float>(e % perRow) * cell, a.min.y + static_cast<float>(e / perRow) * cell), p1(p0.x + cell, p0.y + cell);
        const ImU32 fill = categoryColour(o.thread % 32, 32);
        cellFill(dl, p0, p1, (o.thread / 32) % 2 ? mix(fill, pal.panelBg, 0.4f) : fill, cell >= 6 ? 1.0f : 0.0f);
        if (cell >= kCellLabelMin) centredText(dl, p0, p1, std::to_string(o.item), inkOn(fill));
        if (m_canvasHovered && inside(mouse, p0, p1))
            hoverText(fmt::format("element {} of the tile\nthread {} (warp {}, lane {}), item {}, vector element {}", e, o.thread, o.thread / 32,
                                  o.thread % 32, o.item, o.lane));
    }
    dl->AddText(ImVec2(a.min.x, a.max.y - captionH + 4), pal.textFaint,
                fmt::format("elements 0..{} of {}; colour: thread (lane hue, odd warps darker); number: item", std::min(b.tile, rows * perRow) - 1, b.tile)
                    .c_str());
}

}  // namespace kx::app
