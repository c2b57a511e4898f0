// Tiles: how the live config splits its work, drawn to scale from engine::TileScene.
//
// GEMM: C in block tiles numbered in the kernel's raster order and coloured by the wave that runs
// them on the chosen device (the tail wave in amber); one block's warp tiles; one warp's thread
// tiles or MMA fragments (which lane holds which element); the K loop stepping through the
// pipeline stages (animated, pausable); and one stage of shared memory as 128-byte bank lines,
// showing padding and the XOR swizzle. 1-D templates: the grid's blocks by wave, and one block
// tile's elements by the thread that loads and holds them. Hover shows indices; click picks the
// block tile and warp; Export PNG saves the drawing.
//
// A floating window over the code and the right column (View > Tiles, script `tiles open`), so
// the Configuration panel stays in reach: edit a tile size and watch the picture follow.
#pragma once

#include "tile_model.hpp"
#include "views/view.hpp"

#include <filesystem>
#include <memory>
#include <string>

namespace kx::app {

struct RegionPng;

class TileView final : public View {
public:
    explicit TileView(ViewContext context);
    ~TileView() override;

    bool inViewMenu() const override { return true; }

    TileModel& tiles() { return m_tiles; }
    // Writes the drawing (everything below the toolbar) as PNG at the end of the next frame's
    // rendering. The outcome shows in the window and in lastExportMessage().
    void requestPng(std::filesystem::path file);
    bool pngPending() const;
    const std::string& lastExportMessage() const;
    // How the last frame drew C's block grid: its size in pixels and whether a side too thin to see
    // at scale was widened ("C drawn 48 x 375 px, not to scale"); empty before a GEMM is drawn.
    const std::string& blockGridText() const { return m_blockGridText; }

protected:
    void drawContent() override;
    void placeWindow() override;
    ImGuiWindowFlags windowFlags() const override { return ImGuiWindowFlags_NoCollapse; }

private:
    struct Rect {
        ImVec2 min, max;
        float width() const { return max.x - min.x; }
        float height() const { return max.y - min.y; }
    };
    void drawToolbar();
    // Each panel draws its frame and title into r and returns the area left for the drawing.
    Rect panel(const Rect& r, const std::string& title, const std::string& subtitle);
    void drawGemm(const Rect& canvas);
    void drawBlockGrid(const Rect& r);
    void drawBlock(const Rect& r);
    void drawWarp(const Rect& r);
    void drawKLoop(const Rect& r);
    void drawSharedMemory(const Rect& r);
    void drawBlocks(const Rect& canvas);
    void drawBlockStrip(const Rect& r);
    void drawElementMap(const Rect& r, bool held);
    // Hover text for this frame (shown once, after drawing, so the PNG has no tooltip in it).
    void hoverText(std::string text) { m_hover = std::move(text); }

    TileModel m_tiles;
    std::shared_ptr<RegionPng> m_capture;
    std::string m_exportMessage;
    bool m_exportFailed = false;
    std::string m_hover;
    bool m_canvasHovered = false;
    bool m_clicked = false;
    std::string m_blockGridText;
};

}  // namespace kx::app
