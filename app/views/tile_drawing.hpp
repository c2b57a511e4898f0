// Colours, sizes and small drawing helpers shared by the Tiles window's files (tile_view.cpp:
// window, toolbar, 1-D panels; tile_view_gemm.cpp: GEMM panels). Call them while an ImGui frame
// is being built.
#pragma once

#include "analysis/tile_layout.hpp"

#include <imgui.h>

#include <string>

namespace kx::app::tile_drawing {

constexpr float kGap = 8.0f;            // between panels
constexpr float kCellLabelMin = 14.0f;  // smallest cell that gets a number in it
constexpr int kMaxWarpColumns = 32;     // wgmma accumulators: columns drawn (the pattern repeats every 8)
constexpr int kMaxSmemLines = 8;        // 128-byte lines of a shared-memory tile drawn: one swizzle period

// a blended towards b by t in [0, 1], alpha too.
ImU32 mix(ImU32 a, ImU32 b, float t);
ImU32 withAlpha(ImU32 c, float alpha);
// Distinct hues for n categories (lanes, chunks), muted to sit on the dark panels.
ImU32 categoryColour(int i, int n);
// Black or white, whichever reads on the fill.
ImU32 inkOn(ImU32 fill);
// text centred in [a, b); nothing when it does not fit.
void centredText(ImDrawList* dl, ImVec2 a, ImVec2 b, const std::string& text, ImU32 colour);
bool inside(ImVec2 p, ImVec2 a, ImVec2 b);
// A grid cell [a, b) filled, with a border `gap` pixels wide left showing the panel beneath: the
// look of a fill outlined in the panel's colour, in two triangles instead of ten (a grid has
// hundreds of cells, and a software renderer pays per triangle).
void cellFill(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 fill, float gap);
// Cell size that fits rows x cols cells (of aspect cellW:cellH in elements) into w x h pixels.
float fitScale(float w, float h, double cols, double rows);
// "1 block", "3 blocks".
std::string count(long long n, const char* one, const char* many);
// "W waves of C (S SMs x B), tail T blocks": how the launch's blocks fill the device.
std::string wavesText(const engine::WaveModel& w);

}  // namespace kx::app::tile_drawing
