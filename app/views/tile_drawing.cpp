// Colours and small drawing helpers of the Tiles window (tile_drawing.hpp).
#include "views/tile_drawing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kx::app::tile_drawing {

ImU32 mix(ImU32 a, ImU32 b, float t) {
    const ImVec4 x = ImGui::ColorConvertU32ToFloat4(a), y = ImGui::ColorConvertU32ToFloat4(b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(x.x + (y.x - x.x) * t, x.y + (y.y - x.y) * t, x.z + (y.z - x.z) * t, x.w + (y.w - x.w) * t));
}

ImU32 withAlpha(ImU32 c, float alpha) {
    ImVec4 v = ImGui::ColorConvertU32ToFloat4(c);
    v.w = alpha;
    return ImGui::ColorConvertFloat4ToU32(v);
}

// Distinct hues for n categories (lanes, chunks), muted to sit on the dark panels.
ImU32 categoryColour(int i, int n) {
    float r = 0, g = 0, b = 0;
    ImGui::ColorConvertHSVtoRGB(static_cast<float>(i % std::max(1, n)) / static_cast<float>(std::max(1, n)), 0.45f, 0.80f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

// Black or white, whichever reads on the fill.
ImU32 inkOn(ImU32 fill) {
    const ImVec4 v = ImGui::ColorConvertU32ToFloat4(fill);
    return 0.299f * v.x + 0.587f * v.y + 0.114f * v.z > 0.55f ? IM_COL32(20, 20, 20, 255) : IM_COL32(240, 240, 240, 255);
}

void centredText(ImDrawList* dl, ImVec2 a, ImVec2 b, const std::string& text, ImU32 colour) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    if (size.x > b.x - a.x - 2 || size.y > b.y - a.y) return;
    dl->AddText(ImVec2(std::floor((a.x + b.x - size.x) * 0.5f), std::floor((a.y + b.y - size.y) * 0.5f)), colour, text.c_str());
}

bool inside(ImVec2 p, ImVec2 a, ImVec2 b) { return p.x >= a.x && p.x < b.x && p.y >= a.y && p.y < b.y; }

// Cell size that fits rows x cols cells (of aspect cellW:cellH in elements) into w x h pixels.
float fitScale(float w, float h, double cols, double rows) {
    return static_cast<float>(std::max(0.0, std::min(w / cols, h / rows)));
}

void cellFill(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 fill, float gap) {
    dl->AddRectFilled(ImVec2(a.x + gap, a.y + gap), ImVec2(b.x - gap, b.y - gap), fill);
}

std::string count(long long n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

std::string wavesText(const engine::WaveModel& w) {
    std::string text = fmt::format("{} of {} ({} SMs x {})", count(w.waves, "wave", "waves"), w.capacity, w.smCount, w.occupancy.blocksPerSm);
    if (w.tailBlocks > 0) text += fmt::format(", tail {}", count(w.tailBlocks, "block", "blocks"));
    if (w.persistent && w.gridBlocks > w.blocks)
        text += fmt::format("; persistent: {} blocks for a grid of {}, {}", w.blocks, w.gridBlocks, count(w.rounds(), "round", "rounds"));
    return text;
}

}  // namespace kx::app::tile_drawing
