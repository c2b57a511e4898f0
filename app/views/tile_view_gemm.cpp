// The Tiles window's GEMM panels (the class is declared in tile_view.hpp): the block grid by
// wave, one block's warp tiles, one warp's fragments, the K loop, and shared memory's banks.
#include "views/tile_view.hpp"

#include "theme.hpp"
#include "views/tile_drawing.hpp"
#include "widgets/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::app {

using namespace tile_drawing;

// [SECTION] GEMM: block grid, block, warp, K loop, shared memory

void TileView::drawGemm(const Rect& c) {
    const float midX = std::floor(c.min.x + c.width() * 0.5f), midY = std::floor(c.min.y + c.height() * 0.52f);
    drawBlockGrid({c.min, ImVec2(midX - kGap / 2, midY - kGap / 2)});
    drawBlock({ImVec2(midX + kGap / 2, c.min.y), ImVec2(c.max.x, midY - kGap / 2)});
    drawWarp({ImVec2(c.min.x, midY + kGap / 2), ImVec2(midX - kGap / 2, c.max.y)});
    // The K loop needs its title, two rows of boxes and a caption; shared memory takes the rest.
    const float kloopH = std::max((c.max.y - midY) * 0.36f, 5.5f * ImGui::GetTextLineHeight() + 60.0f);
    const float kloopBottom = std::floor(std::min(midY + kloopH, c.max.y - 4 * ImGui::GetTextLineHeight()));
    drawKLoop({ImVec2(midX + kGap / 2, midY + kGap / 2), ImVec2(c.max.x, kloopBottom - kGap / 2)});
    drawSharedMemory({ImVec2(midX + kGap / 2, kloopBottom + kGap / 2), c.max});
}

void TileView::drawBlockGrid(const Rect& r) {
    const engine::TileScene& s = *m_tiles.scene();
    const engine::GemmLayout& g = s.gemm;
    const engine::WaveModel& w = s.waves;
    const Palette& pal = theme().palette();
    const ChartColours cc = chartColours(theme());
    const std::string order = g.groupM > 1 ? fmt::format("numbered down groups of {} block rows", g.groupM) : std::string("numbered row by row");
    const std::string waves = wavesText(w);
    // A kernel that swaps the operands computes C^T: say so, rows and columns being C's columns and rows.
    const std::string computed = g.transposed ? "C^T (operands swapped: C^T = B A^T)" : "C";
    const Rect a = panel(r, fmt::format("{} {} x {}: {} block tiles of {} x {}", computed, g.m, g.n, g.tiles, g.blockM, g.blockN), order + "; " + waves);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float legendH = ImGui::GetTextLineHeightWithSpacing() + 4;
    // Draw C to scale, unless a side would be too thin to see (a convolution's backward data into 3
    // channels is 1.6 M rows by 3 columns): that side is widened to kMinSide pixels and the legend
    // says so. A grid too fine to see is drawn in groups of tiles (each the colour of its first),
    // counted per side.
    constexpr float kMinSide = 48;
    const float gridH = a.height() - legendH;
    float sx = fitScale(a.width(), gridH, static_cast<double>(g.n), static_cast<double>(g.m)), sy = sx;
    bool stretched = false;
    if (static_cast<float>(g.n) * sx < std::min(kMinSide, a.width())) sx = std::min(kMinSide, a.width()) / static_cast<float>(g.n), stretched = true;
    if (static_cast<float>(g.m) * sy < std::min(kMinSide, gridH)) sy = std::min(kMinSide, gridH) / static_cast<float>(g.m), stretched = true;
    m_blockGridText = fmt::format("C drawn {:.0f} x {:.0f} px{}", static_cast<float>(g.n) * sx, static_cast<float>(g.m) * sy, stretched ? ", not to scale" : "");
    const long long strideM = std::max<long long>(1, static_cast<long long>(std::ceil(static_cast<double>(g.blocksM) / 256.0)));
    const long long strideN = std::max<long long>(1, static_cast<long long>(std::ceil(static_cast<double>(g.blocksN) / 256.0)));
    const bool single = strideM == 1 && strideN == 1;
    const ImVec2 o = a.min;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    // Tiles are coloured by the wave they run in: a persistent grid walks them in rounds of one
    // wave of blocks each, so a tile's wave counts the rounds before it.
    const long long tileWaves = g.tiles > 0 ? s.waveOfTile(g.tiles - 1) + 1 : 0;
    const long long lastFull = std::max<long long>(0, tileWaves - (w.tailBlocks > 0 ? 1 : 0) - 1);
    auto waveColour = [&](long long wave) {
        if (w.tailBlocks > 0 && wave == tileWaves - 1) return pal.warn;
        const ImU32 base = mix(cc.series[0], cc.series[1], lastFull > 0 ? static_cast<float>(wave) / static_cast<float>(lastFull) : 0.0f);
        return wave % 2 ? mix(base, pal.panelBg, 0.3f) : base;
    };
    long long tm = 0, tn = 0;
    g.tileOfId(m_tiles.selectedTile(), tm, tn);
    const long long selM = tm, selN = tn;
    for (long long i = 0; i < g.blocksM; i += strideM)
        for (long long j = 0; j < g.blocksN; j += strideN) {
            const engine::TileRect t = g.tileRect(i, j);
            const ImVec2 p0(o.x + static_cast<float>(t.col0) * sx, o.y + static_cast<float>(t.row0) * sy);
            const ImVec2 p1(o.x + static_cast<float>(std::min(g.n, t.col0 + strideN * g.blockN)) * sx,
                            o.y + static_cast<float>(std::min(g.m, t.row0 + strideM * g.blockM)) * sy);
            const long long id = g.idOfTile(i, j);
            const ImU32 fill = waveColour(s.waveOfTile(id));
            cellFill(dl, p0, p1, fill, p1.x - p0.x >= 4 ? 1.0f : 0.0f);
            if (single && p1.y - p0.y >= kCellLabelMin) centredText(dl, p0, p1, std::to_string(id), inkOn(fill));
            if (m_canvasHovered && inside(mouse, p0, p1)) {
                const long long block = g.blockOfId(id), wave = s.waveOfTile(id);
                hoverText(fmt::format("block tile ({}, {})  raster id {}\nrows {}..{}, columns {}..{} of {}\nblock {}, SM {}, wave {}{}", i, j, id,
                                      t.row0, t.row0 + t.rows - 1, t.col0, t.col0 + t.cols - 1, g.cName, block, s.smOfTile(id), wave,
                                      w.inTail(block) ? " (the tail)" : ""));
                if (m_clicked) m_tiles.selectTile(id);
            }
        }
    // The raster order: a path through the first wave's tiles (or the first 400), when they are distinct.
    if (single && sx * static_cast<float>(g.blockN) >= 4) {
        const long long n = std::min<long long>({g.tiles, std::max<long long>(w.capacity, 2), 400});
        std::vector<ImVec2> path;
        for (long long id = 0; id < n; ++id) {
            g.tileOfId(id, tm, tn);
            const engine::TileRect t = g.tileRect(tm, tn);
            path.emplace_back(o.x + (static_cast<float>(t.col0) + static_cast<float>(t.cols) * 0.5f) * sx,
                              o.y + (static_cast<float>(t.row0) + static_cast<float>(t.rows) * 0.5f) * sy);
        }
        dl->AddPolyline(path.data(), static_cast<int>(path.size()), withAlpha(pal.windowBg, 0.6f), 0, 1.2f);
        dl->AddCircleFilled(path.front(), 3.5f, pal.windowBg);
    }
    const engine::TileRect sel = g.tileRect(selM, selN);
    dl->AddRect(ImVec2(o.x + static_cast<float>(sel.col0) * sx - 1, o.y + static_cast<float>(sel.row0) * sy - 1),
                ImVec2(o.x + static_cast<float>(sel.col0 + sel.cols) * sx + 1, o.y + static_cast<float>(sel.row0 + sel.rows) * sy + 1),
                pal.text, 0, 0, 2.0f);
    // Legend: first wave, last full wave, tail.
    float x = a.min.x;
    const float y = a.max.y - legendH + 4;
    auto key = [&](ImU32 colour, const std::string& text) {
        dl->AddRectFilled(ImVec2(x, y + 2), ImVec2(x + 12, y + 14), colour);
        dl->AddText(ImVec2(x + 16, y), pal.textDim, text.c_str());
        x += 16 + ImGui::CalcTextSize(text.c_str()).x + 14;
    };
    key(waveColour(0), "wave 0");
    if (lastFull > 0) key(waveColour(lastFull), fmt::format("wave {}", lastFull));
    if (w.tailBlocks > 0)
        key(pal.warn, fmt::format("tail {}/{} ({:.0f}%)", w.tailBlocks, w.capacity,
                                  100.0 * static_cast<double>(w.tailBlocks) / static_cast<double>(w.capacity)));
    key(pal.windowBg, single ? std::string("raster order") : fmt::format("groups of {}x{} tiles", strideM, strideN));
    if (stretched) dl->AddText(ImVec2(x, y), pal.warn, "not to scale: a thin side widened");
}

void TileView::drawBlock(const Rect& r) {
    const engine::TileScene& s = *m_tiles.scene();
    const engine::GemmLayout& g = s.gemm;
    const Palette& pal = theme().palette();
    const ChartColours cc = chartColours(theme());
    long long tm = 0, tn = 0;
    g.tileOfId(m_tiles.selectedTile(), tm, tn);
    const engine::TileRect tile = g.tileRect(tm, tn);
    const char* unit = g.warpThreads == 128 ? "warpgroups" : "warps";
    const Rect a = panel(r, fmt::format("Block tile ({}, {}): {} x {} {} of {} x {}", tm, tn, g.warpsM, g.warpsN, unit, g.warpM, g.warpN),
                         fmt::format("rows {}..{}, columns {}..{} of {}; {} threads; click a {} to see it below", tile.row0,
                                     tile.row0 + tile.rows - 1, tile.col0, tile.col0 + tile.cols - 1, g.cName, s.threadsPerBlock,
                                     g.warpThreads == 128 ? "warpgroup" : "warp"));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float bandH = g.producerThreads > 0 ? ImGui::GetTextLineHeight() + 10 : 0.0f;
    const float scale = fitScale(a.width(), a.height() - bandH, g.blockN, g.blockM);
    const ImVec2 o(a.min.x, a.min.y + bandH);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (g.producerThreads > 0) {
        const ImVec2 p0(o.x, a.min.y), p1(o.x + static_cast<float>(g.blockN) * scale, a.min.y + bandH - 4);
        dl->AddRectFilled(p0, p1, withAlpha(pal.textFaint, 0.6f), 3.0f);
        centredText(dl, p0, p1, fmt::format("producer: {} threads issue the TMA loads, own no {}", g.producerThreads, g.cName), pal.text);
    }
    for (const engine::WarpTile& w : g.warps) {
        if (w.producer) continue;
        const ImVec2 p0(o.x + static_cast<float>(w.rect.col0) * scale, o.y + static_cast<float>(w.rect.row0) * scale);
        const ImVec2 p1(o.x + static_cast<float>(w.rect.col0 + w.rect.cols) * scale, o.y + static_cast<float>(w.rect.row0 + w.rect.rows) * scale);
        const ImU32 fill = mix(cc.series[static_cast<std::size_t>(w.index) % 8], pal.panelBg, 0.35f);
        dl->AddRectFilled(p0, p1, fill);
        dl->AddRect(p0, p1, pal.panelBg, 0, 0, 2.0f);
        centredText(dl, p0, p1, fmt::format("{} {}", g.warpThreads == 128 ? "wg" : "w", w.index), inkOn(fill));
        if (w.index == m_tiles.selectedWarp()) dl->AddRect(p0, p1, pal.text, 0, 0, 2.0f);
        if (m_canvasHovered && inside(mouse, p0, p1)) {
            hoverText(fmt::format("{} {} ({}, {})\nrows {}..{}, columns {}..{} of the block\nrows {}..{}, columns {}..{} of {}", unit, w.index,
                                  w.warpM, w.warpN, w.rect.row0, w.rect.row0 + w.rect.rows - 1, w.rect.col0, w.rect.col0 + w.rect.cols - 1,
                                  tile.row0 + w.rect.row0, tile.row0 + w.rect.row0 + w.rect.rows - 1, tile.col0 + w.rect.col0,
                                  tile.col0 + w.rect.col0 + w.rect.cols - 1, g.cName));
            if (m_clicked) m_tiles.selectWarp(w.index);
        }
    }
    // The part of the tile past the edge of C computes nothing useful.
    if (tile.rows < g.blockM || tile.cols < g.blockN) {
        const ImVec2 p0(o.x + static_cast<float>(tile.cols) * scale, o.y), p1(o.x + static_cast<float>(g.blockN) * scale, o.y + static_cast<float>(g.blockM) * scale);
        const ImVec2 q0(o.x, o.y + static_cast<float>(tile.rows) * scale);
        dl->AddRectFilled(p0, p1, withAlpha(pal.windowBg, 0.7f));
        dl->AddRectFilled(q0, p1, withAlpha(pal.windowBg, 0.7f));
    }
}

namespace {

// Where a lane's thread-tile elements lie in the warp tile: along each axis, runs of `chunk`
// elements, one run every lanes x chunk.
std::string threadTileSpread(const engine::GemmLayout& g) {
    if (g.rowChunk == g.threadM && g.colChunk == g.threadN) return "one contiguous block";
    auto axis = [](const char* what, int extent, int chunk, int lanes) {
        if (chunk == extent) return fmt::format("{} contiguous", what);
        if (chunk == 1) return fmt::format("{} {} apart", what, lanes);
        return fmt::format("{} in runs of {}, {} apart", what, chunk, lanes * chunk);
    };
    return axis("rows", g.threadM, g.rowChunk, g.atomsM) + "; " + axis("columns", g.threadN, g.colChunk, g.atomsN);
}

}  // namespace

void TileView::drawWarp(const Rect& r) {
    const engine::TileScene& s = *m_tiles.scene();
    const engine::GemmLayout& g = s.gemm;
    const Palette& pal = theme().palette();
    const int warp = m_tiles.selectedWarp();
    const engine::WarpTile& wt = g.warps[static_cast<std::size_t>(std::clamp<int>(warp, 0, static_cast<int>(g.warps.size()) - 1))];
    std::string subtitle;
    switch (g.fragment) {
    case engine::FragmentKind::Thread:
        subtitle = fmt::format("{} x {} lanes; each lane's {} x {} registers: {}", g.atomsM, g.atomsN, g.threadM, g.threadN, threadTileSpread(g));
        break;
    case engine::FragmentKind::MmaM16N8K16:
        subtitle = fmt::format("{} x {} mma tiles of 16 x 8 per k-step of 16; a lane holds 8 A, 4 B and 4 C values", g.atomsM, g.atomsN);
        break;
    case engine::FragmentKind::WgmmaM64NNK16:
        subtitle = g.aFromRegisters
                       ? fmt::format("{} wgmma of 64 x {} per k-step of 16; A from registers, B from shared memory", g.atomsM, g.atomN)
                       : fmt::format("{} wgmma of 64 x {} per k-step of 16; A and B are read from shared memory", g.atomsM, g.atomN);
        break;
    }
    const Rect a = panel(r, fmt::format("{} {}: {}", g.warpThreads == 128 ? "Warpgroup" : "Warp", wt.index, g.fragmentLabel), subtitle);
    if (wt.producer) {
        centredText(ImGui::GetWindowDrawList(), a.min, a.max, "the producer holds no accumulators: pick a consumer above", pal.textDim);
        return;
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const float captionH = ImGui::GetTextLineHeightWithSpacing();
    // Pieces side by side, one cell size for all, columns clipped for wide wgmma accumulators.
    int totalCols = 0, maxRows = 0;
    for (const engine::FragmentPiece& p : g.pieces) {
        totalCols += std::min(p.cols, kMaxWarpColumns);
        maxRows = std::max(maxRows, p.rows);
    }
    const float gap = 24.0f;
    const float cell = std::floor(std::min(30.0f, fitScale(a.width() - gap * static_cast<float>(g.pieces.size() - 1), a.height() - 2 * captionH,
                                                           totalCols, maxRows)));
    if (cell < 2) return;
    float x = a.min.x;
    const int lanes = g.warpThreads == 128 ? 32 : g.warpThreads;
    // One lane stands out (the hovered one, else lane 0): its elements show how a lane's
    // registers spread over the tile.
    int focus = 0;
    {
        float fx = a.min.x;
        for (const engine::FragmentPiece& p : g.pieces) {
            const int cols = std::min(p.cols, kMaxWarpColumns);
            const ImVec2 o(fx, a.min.y + captionH);
            if (m_canvasHovered && inside(mouse, o, ImVec2(o.x + static_cast<float>(cols) * cell, o.y + static_cast<float>(p.rows) * cell)))
                focus = p.laneAt(static_cast<int>((mouse.y - o.y) / cell), static_cast<int>((mouse.x - o.x) / cell));
            fx += static_cast<float>(cols) * cell + gap;
        }
    }
    for (const engine::FragmentPiece& p : g.pieces) {
        const int cols = std::min(p.cols, kMaxWarpColumns);
        const ImVec2 o(x, a.min.y + captionH);
        // Each caption keeps to its piece: narrow pieces side by side must not overprint.
        dl->PushClipRect(ImVec2(x, a.min.y), ImVec2(x + static_cast<float>(cols) * cell + gap - 6, a.min.y + captionH), true);
        dl->AddText(ImVec2(x, a.min.y), pal.textDim,
                    fmt::format("{} {}x{} ({},{}){}", p.name, p.rows, p.cols, p.rowsLabel, p.colsLabel,
                                cols < p.cols ? fmt::format(", columns 0..{}", cols - 1) : std::string())
                        .c_str());
        dl->PopClipRect();
        for (int i = 0; i < p.rows; ++i)
            for (int j = 0; j < cols; ++j) {
                const int lane = p.laneAt(i, j);
                const ImVec2 p0(o.x + static_cast<float>(j) * cell, o.y + static_cast<float>(i) * cell);
                const ImVec2 p1(p0.x + cell, p0.y + cell);
                const ImU32 fill = categoryColour(lane % lanes, lanes);
                cellFill(dl, p0, p1, lane == focus ? pal.text : mix(fill, pal.panelBg, lane / 32 % 2 ? 0.55f : 0.3f), cell >= 6 ? 1.0f : 0.0f);
                if (cell >= kCellLabelMin) centredText(dl, p0, p1, std::to_string(lane), inkOn(lane == focus ? pal.text : fill));
                if (m_canvasHovered && inside(mouse, p0, p1)) {
                    std::string where = fmt::format("{} row {} ({}), column {} ({})", p.name, i, p.rowsLabel, j, p.colsLabel);
                    if (g.fragment == engine::FragmentKind::Thread)
                        where += fmt::format("\nrow {}, column {} of the block tile", wt.rect.row0 + i, wt.rect.col0 + j);
                    hoverText(fmt::format("{}\n{} {} (warp {}, lane {}), register {}", where, g.warpThreads == 128 ? "thread" : "lane", lane,
                                          lane / 32, lane % 32, p.regAt(i, j)));
                }
            }
        // Warps of a warpgroup own 16-row bands.
        if (g.warpThreads == 128)
            for (int band = 1; band < p.rows / 16; ++band)
                dl->AddLine(ImVec2(o.x, o.y + static_cast<float>(band * 16) * cell), ImVec2(o.x + static_cast<float>(cols) * cell, o.y + static_cast<float>(band * 16) * cell),
                            pal.text, 2.0f);
        x += static_cast<float>(cols) * cell + gap;
    }
    dl->AddText(ImVec2(a.min.x, a.max.y - captionH + 4), pal.textFaint,
                fmt::format("white: {} {}'s elements (hover another)  \u00b7  colour{}: the {} holding each{}", g.warpThreads == 128 ? "thread" : "lane", focus,
                            cell >= kCellLabelMin ? " and number" : "", g.warpThreads == 128 ? "thread" : "lane",
                            g.warpThreads == 128 ? "  \u00b7  lines: the 4 warps' 16-row bands" : "")
                    .c_str());
}

void TileView::drawKLoop(const Rect& r) {
    const engine::GemmLayout& g = m_tiles.scene()->gemm;
    const Palette& pal = theme().palette();
    const long long step = m_tiles.step();
    const engine::KStep& ks = g.kSteps[static_cast<std::size_t>(step)];
    const std::string loading = ks.loading.empty() ? std::string("nothing loading")
                                                   : fmt::format("k-tiles {}..{} loading", ks.loading.front(), ks.loading.back());
    const Rect a = g.staged ? panel(r, fmt::format("K loop: {} k-tiles of {}, {} stages", g.kTiles, g.blockK, g.stages),
                                    fmt::format("step {}: multiply k-tile {} from stage {}, {}{}", step, ks.kTile, ks.stage, loading,
                                                m_tiles.paused() ? " (paused)" : ""))
                            : panel(r, fmt::format("K loop: {} steps of {}, straight from global memory", g.kTiles, g.blockK),
                                    fmt::format("step {}: multiply-add k = {}, reading A and B from global memory{}", step, ks.kTile,
                                                m_tiles.paused() ? " (paused)" : ""));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line = ImGui::GetTextLineHeight();
    // The k-tiles around the current one, then the stage buffers with what they hold.
    const int shown = std::clamp(static_cast<int>(a.width() / 46.0f), 4, 24);
    const long long first = std::clamp<long long>(step - 2, 0, std::max<long long>(0, g.kTiles - shown));
    const float w = std::floor((a.width() - 4.0f * static_cast<float>(shown - 1)) / static_cast<float>(shown));
    const float h = std::min(2.2f * line, (a.height() - line) / 2.6f);
    for (int i = 0; i < shown && first + i < g.kTiles; ++i) {
        const long long kt = first + i;
        const ImVec2 p0(a.min.x + static_cast<float>(i) * (w + 4), a.min.y), p1(p0.x + w, p0.y + h);
        const bool current = kt == ks.kTile;
        const bool inFlight = std::find(ks.loading.begin(), ks.loading.end(), kt) != ks.loading.end();
        const ImU32 fill = current ? pal.accent : inFlight ? mix(pal.warn, pal.panelBg, 0.55f) : kt < ks.kTile ? pal.border : pal.windowBg;
        dl->AddRectFilled(p0, p1, fill, 3.0f);
        if (inFlight) {  // the copy's progress through this step
            const float f = static_cast<float>(std::clamp(m_tiles.stepPhase(), 0.0, 1.0));
            dl->AddRectFilled(p0, ImVec2(p0.x + w * f, p1.y), withAlpha(pal.warn, 0.55f), 3.0f);
        }
        centredText(dl, p0, p1, std::to_string(kt), current ? pal.text : pal.textDim);
    }
    const float y = a.min.y + h + line;
    if (!g.staged) {
        dl->AddText(ImVec2(a.min.x, y - line - 2), pal.textFaint, "k steps (blue: multiplied); no stage buffers: nothing is loaded ahead");
        return;
    }
    dl->AddText(ImVec2(a.min.x, y - line - 2), pal.textFaint, "k-tiles (blue: multiplied, amber: loading)  \u2193 stage buffers");
    const float sw = std::floor((a.width() - 6.0f * static_cast<float>(g.stages - 1)) / static_cast<float>(g.stages));
    for (int st = 0; st < g.stages; ++st) {
        const ImVec2 p0(a.min.x + static_cast<float>(st) * (sw + 6), y + 4), p1(p0.x + sw, std::min(a.max.y, y + 4 + h));
        std::string holds = "free";
        ImU32 fill = pal.windowBg;
        if (ks.stage == st) {
            holds = fmt::format("k {}: multiply", ks.kTile);
            fill = pal.accent;
        }
        for (long long kt : ks.loading)
            if (kt % g.stages == st) {
                holds = fmt::format("k {}: loading", kt);
                fill = mix(pal.warn, pal.panelBg, 0.4f);
            }
        for (long long kt : ks.held)
            if (kt % g.stages == st) {
                holds = fmt::format("k {}: still read", kt);
                fill = mix(pal.accent, pal.panelBg, 0.6f);
            }
        dl->AddRectFilled(p0, p1, fill, 3.0f);
        dl->AddRect(p0, p1, pal.border, 3.0f);
        std::string label = fmt::format("stage {}  {}", st, holds);
        if (ImGui::CalcTextSize(label.c_str()).x > sw - 4) label = fmt::format("s{} {}", st, holds);
        centredText(dl, p0, p1, label, inkOn(fill));
    }
}

void TileView::drawSharedMemory(const Rect& r) {
    const engine::GemmLayout& g = m_tiles.scene()->gemm;
    const Palette& pal = theme().palette();
    if (!g.staged) {
        const Rect a = panel(r, "Shared memory: none", "A and B are read from global memory at every multiply-add");
        ImGui::GetWindowDrawList()->AddText(ImVec2(a.min.x, a.min.y), pal.textDim,
                                            "Each value is fetched again by every thread that needs it; only the L1 and L2\n"
                                            "caches stand between the threads and DRAM. Shared-memory tiles load a tile once\n"
                                            "per block and serve it to all of the block's threads.");
        return;
    }
    const bool swizzled = g.smem[0].swizzled;
    const bool padded = std::any_of(g.smem.begin(), g.smem.end(), [](const engine::SmemOperand& o) { return o.padChunks > 0; });
    const Rect a = panel(r, fmt::format("Shared memory: {} B per stage, {} x {} = {} B", g.stageBytes, g.stages, g.stageBytes, g.stages * g.stageBytes),
                         swizzled ? "16-byte chunks XOR-swizzled within 128-byte lines"
                         : padded ? "rows padded so each starts in another bank group"
                                  : "rows stored as they are");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const float line = ImGui::GetTextLineHeight();
    const float gap = 20.0f;
    const float colW = std::floor((a.width() - gap) / 2.0f);
    for (std::size_t k = 0; k < g.smem.size(); ++k) {
        const engine::SmemOperand& op = g.smem[k];
        const float x0 = a.min.x + static_cast<float>(k) * (colW + gap);
        const int linesTotal = (op.totalChunks() + 7) / 8;
        const float cellW = std::floor(colW / 8.0f);
        const float gridH = a.height() - 4 * line;  // the operand's caption above, two lines of captions below
        const float cellH = std::clamp(std::floor(gridH / static_cast<float>(std::min(linesTotal, kMaxSmemLines))), 3.0f, 20.0f);
        const int lines = std::min({linesTotal, kMaxSmemLines, static_cast<int>(gridH / cellH)});
        dl->AddText(ImVec2(x0, a.min.y), pal.textDim,
                    fmt::format("{}: {} rows ({}) x {} {}{}", op.name, op.rows, op.rowsLabel, op.dataChunks * op.elemsPerChunk, op.colsLabel,
                                op.padChunks > 0 ? fmt::format(" + {} pad", op.padChunks * op.elemsPerChunk) : std::string())
                        .c_str());
        const ImVec2 o(x0, a.min.y + line + 4);
        for (int l = 0; l < lines; ++l)
            for (int b = 0; b < 8; ++b) {
                const int pos = l * 8 + b;
                if (pos >= op.totalChunks()) break;
                const ImVec2 p0(o.x + static_cast<float>(b) * cellW, o.y + static_cast<float>(l) * cellH), p1(p0.x + cellW, p0.y + cellH);
                const int occupant = op.occupantAt(pos);
                const int row = occupant < 0 ? pos / op.pitchChunks() : occupant / op.dataChunks;
                const int chunk = occupant < 0 ? -1 : occupant % op.dataChunks;
                const ImU32 fill = occupant < 0 ? pal.border : categoryColour(chunk, std::max(8, op.dataChunks));
                cellFill(dl, p0, p1, fill, 1.0f);
                if (cellH >= kCellLabelMin) {
                    const std::string label = occupant < 0 ? "pad" : fmt::format("r{}c{}", row, chunk);
                    centredText(dl, p0, p1, ImGui::CalcTextSize(label.c_str()).x < cellW - 2 ? label : occupant < 0 ? "-" : std::to_string(row), inkOn(fill));
                }
                if (m_canvasHovered && inside(mouse, p0, p1))
                    hoverText(occupant < 0 ? fmt::format("{}: padding after row {}\nbytes {}..{}, banks {}..{}", op.name, row, pos * 16, pos * 16 + 15, b * 4, b * 4 + 3)
                                           : fmt::format("{}: row {} ({}), chunk {}: elements {}..{} along {}\nbytes {}..{} of the stage's {} tile, banks {}..{}",
                                                         op.name, row, op.rowsLabel, chunk, chunk * op.elemsPerChunk, (chunk + 1) * op.elemsPerChunk - 1,
                                                         op.colsLabel, pos * 16, pos * 16 + 15, op.name, b * 4, b * 4 + 3));
            }
        dl->AddText(ImVec2(x0, o.y + static_cast<float>(lines) * cellH + 4), pal.textFaint,
                    fmt::format("{}/{} lines \u00b7 {} B", lines, linesTotal, op.bytes).c_str());
    }
    if (g.smem.size() == 1)  // B stays out of shared memory (a preshuffled B)
        dl->AddText(ImVec2(a.min.x + colW + gap, a.min.y), pal.textDim,
                    "B: no shared-memory tile.\n"
                    "Preshuffled once into the mma's\n"
                    "fragment order, B goes from global\n"
                    "memory straight to registers: 16\n"
                    "bytes a lane per pair of mma tiles\n"
                    "and k-step, 512 bytes a warp.");
    dl->AddText(ImVec2(a.min.x, a.max.y - line), pal.textFaint, "rNcK: row N, 16-byte chunk K  \u00b7  column: bank group (4 banks)");
}

}  // namespace kx::app
