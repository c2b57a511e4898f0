// WCAG 2 contrast ratio between two colours, for the theme's accessibility check (text that
// carries a value needs 4.5:1 against its background). ImU32 colours, alpha ignored.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace kx::app {

// Relative luminance of an sRGB colour (WCAG 2.x definition).
inline double relativeLuminance(ImU32 c) {
    auto channel = [](unsigned v) {
        const double s = static_cast<double>(v) / 255.0;
        return s <= 0.03928 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    const unsigned r = (c >> IM_COL32_R_SHIFT) & 0xFF, g = (c >> IM_COL32_G_SHIFT) & 0xFF, b = (c >> IM_COL32_B_SHIFT) & 0xFF;
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

// 1 (same) to 21 (black on white).
inline double contrastRatio(ImU32 a, ImU32 b) {
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

constexpr double kMinTextContrast = 4.5;

}  // namespace kx::app
