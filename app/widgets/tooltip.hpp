// Tooltips and the small text rows the panels share.
#pragma once

#include <string>

namespace kx::app {

class Theme;

// `text` in a tooltip wrapped at widthInFonts font heights, while the last item is hovered (also
// when it is disabled); nothing for an empty text.
void wrappedTooltip(const std::string& text, float widthInFonts = 36.0f);

// The occupancy panels' headline: the percentage in bold, green from 50 %, amber from 25 %, red
// below (`meaning` in its tooltip); `detail` beside it; then "limit:" and the limiting resources,
// with what each resource alone allows (`limits`) in their tooltip.
void occupancyHeadline(const Theme& theme, double occupancy, const std::string& meaning, const std::string& detail,
                       const std::string& limiters, const std::string& limits);

}  // namespace kx::app
