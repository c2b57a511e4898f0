#include "widgets/chart.hpp"

#include "widgets/opaque_fill.hpp"

#include "theme.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kx::app {

namespace {

ImU32 withAlpha(ImU32 c, float a) {
    ImVec4 v = ImGui::ColorConvertU32ToFloat4(c);
    v.w *= a;
    return ImGui::ColorConvertFloat4ToU32(v);
}

float dist2(ImVec2 a, ImVec2 b) {
    const float dx = a.x - b.x;
    const float dy = a.y - b.y;
    return dx * dx + dy * dy;
}

}  // namespace

ChartColours chartColours(const Theme& theme) {
    const Palette& p = theme.palette();
    ChartColours c{};
    c.plotBg = p.codeBg;
    c.frame = p.border;
    c.grid = withAlpha(p.border, 0.9f);
    c.gridMinor = withAlpha(p.border, 0.45f);
    c.tickText = p.textDim;
    c.axisText = p.textDim;
    c.crosshair = withAlpha(p.textDim, 0.6f);
    c.highlight = p.warn;
    c.legendBg = withAlpha(p.panelBg, 0.88f);
    // Hues that stay apart on the dark plot background: the accent first, then syntax colours,
    // which the palette already keeps distinct from one another.
    c.series[0] = p.accentHover;
    c.series[1] = p.ok;
    c.series[2] = theme.syntax(SyntaxClass::Keyword);
    c.series[3] = theme.syntax(SyntaxClass::Qualifier);
    c.series[4] = theme.syntax(SyntaxClass::Type);
    c.series[5] = p.error;
    c.series[6] = theme.syntax(SyntaxClass::Preprocessor);
    c.series[7] = theme.syntax(SyntaxClass::Number);
    return c;
}

void drawDashedLine(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour, float thickness, float dash, float gap) {
    const float len = std::sqrt(dist2(a, b));
    if (len < 0.5f) return;
    const ImVec2 d((b.x - a.x) / len, (b.y - a.y) / len);
    for (float t = 0; t < len; t += dash + gap) {
        const float e = std::min(len, t + dash);
        dl->AddLine(ImVec2(a.x + d.x * t, a.y + d.y * t), ImVec2(a.x + d.x * e, a.y + d.y * e), colour, thickness);
    }
}

namespace {

// A reference line across the plot (verticalLine, horizontalLine): one pixel, dashed or solid.
void drawRule(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour, bool dashed) {
    if (dashed) {
        drawDashedLine(dl, a, b, colour, 1.0f);
    } else {
        dl->AddLine(a, b, colour, 1.0f);
    }
}

}  // namespace

Chart::Chart(const Theme& theme) : m_theme(theme), m_colours(chartColours(theme)) {}

std::string Chart::formatX(double v) const { return m_x.format ? m_x.format(v) : chart::formatCompact(v); }
std::string Chart::formatY(double v) const { return m_y.format ? m_y.format(v) : chart::formatCompact(v); }

bool Chart::begin(const char* id, ImVec2 size, const ChartAxis& x, const ChartAxis& y) {
    m_x = x;
    m_y = y;
    m_legend.clear();
    m_hit = HoverHit{};
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (size.x <= 0) size.x = std::max(0.0f, avail.x + size.x);
    if (size.y <= 0) size.y = std::max(0.0f, avail.y + size.y);
    const float fh = ImGui::GetFontSize();
    if (size.x < fh * 8 || size.y < fh * 5) {
        ImGui::Dummy(ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
        return false;
    }

    m_dl = ImGui::GetWindowDrawList();
    m_widgetMin = ImGui::GetCursorScreenPos();
    m_widgetMax = ImVec2(m_widgetMin.x + size.x, m_widgetMin.y + size.y);
    // The button claims the region for hover and keeps ImGui's layout cursor honest.
    ImGui::InvisibleButton(id, size);
    m_hovered = ImGui::IsItemHovered();
    m_mouse = ImGui::GetIO().MousePos;

    // Margins: y tick labels on the left, the y label above the plot, x ticks and label below.
    const float pad = fh * 0.5f;
    const float plotH0 = size.y - fh * 3.2f;
    const int yTicksWanted = std::clamp(static_cast<int>(plotH0 / (fh * 2.2f)), 2, std::max(2, m_y.maxTicks));
    const std::vector<chart::Tick> yTicks = chart::ticksFor(m_y.scale, yTicksWanted, m_y.tickUnit);
    float yLabelW = 0;
    for (const auto& t : yTicks) {
        if (t.major) yLabelW = std::max(yLabelW, ImGui::CalcTextSize(formatY(t.value).c_str()).x);
    }
    // The y label sits above the plot; without one, only room for the top tick's text.
    const float top = m_y.label.empty() ? fh * 0.5f + 1 : fh + pad;
    m_plotMin = ImVec2(m_widgetMin.x + yLabelW + pad * 1.5f, m_widgetMin.y + top);
    m_plotMax = ImVec2(m_widgetMax.x - pad * 1.5f, m_widgetMax.y - (m_x.label.empty() ? fh + pad : fh * 2.0f + pad));
    const float plotW = m_plotMax.x - m_plotMin.x;

    fillOpaqueRect(m_dl, m_plotMin, m_plotMax, m_colours.plotBg);

    // Grid and y ticks.
    for (const auto& t : yTicks) {
        const float u = static_cast<float>(m_y.scale.toUnit(t.value));
        if (u < -1e-4f || u > 1 + 1e-4f) continue;
        const float py = m_plotMax.y - u * (m_plotMax.y - m_plotMin.y);
        m_dl->AddLine(ImVec2(m_plotMin.x, py), ImVec2(m_plotMax.x, py), t.major ? m_colours.grid : m_colours.gridMinor);
        if (!t.major) continue;
        const std::string s = formatY(t.value);
        const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
        m_dl->AddText(ImVec2(m_plotMin.x - pad * 0.75f - ts.x, py - ts.y * 0.5f), m_colours.tickText, s.c_str());
    }
    // Grid and x ticks: as many as fit without labels touching.
    float xLabelW = fh * 3;
    for (double v : {m_x.scale.min, m_x.scale.max})
        xLabelW = std::max(xLabelW, ImGui::CalcTextSize(formatX(v).c_str()).x);
    const int xTicksWanted = std::clamp(static_cast<int>(plotW / (xLabelW + fh * 1.5f)), 2, std::max(2, m_x.maxTicks));
    float lastLabelRight = -std::numeric_limits<float>::max();
    for (const auto& t : chart::ticksFor(m_x.scale, xTicksWanted, m_x.tickUnit)) {
        const float u = static_cast<float>(m_x.scale.toUnit(t.value));
        if (u < -1e-4f || u > 1 + 1e-4f) continue;
        const float px = m_plotMin.x + u * plotW;
        m_dl->AddLine(ImVec2(px, m_plotMin.y), ImVec2(px, m_plotMax.y), t.major ? m_colours.grid : m_colours.gridMinor);
        if (!t.major) continue;
        m_dl->AddLine(ImVec2(px, m_plotMax.y), ImVec2(px, m_plotMax.y + pad * 0.5f), m_colours.frame);
        const std::string s = formatX(t.value);
        const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
        float tx = std::clamp(px - ts.x * 0.5f, m_widgetMin.x, m_widgetMax.x - ts.x);
        if (tx < lastLabelRight + fh * 0.5f) continue;  // never overprint a neighbour
        m_dl->AddText(ImVec2(tx, m_plotMax.y + pad * 0.6f), m_colours.tickText, s.c_str());
        lastLabelRight = tx + ts.x;
    }
    m_dl->AddRect(m_plotMin, m_plotMax, m_colours.frame);

    // Axis labels: x centred under the ticks, y above the plot's top-left corner (no rotated text
    // in ImGui, and this is where the eye goes first on a log-log chart anyway).
    if (!m_x.label.empty()) {
        const ImVec2 ts = ImGui::CalcTextSize(m_x.label.c_str());
        m_dl->AddText(ImVec2(m_plotMin.x + (plotW - ts.x) * 0.5f, m_widgetMax.y - ts.y - 1), m_colours.axisText,
                      m_x.label.c_str());
    }
    if (!m_y.label.empty()) {
        m_dl->AddText(ImVec2(m_plotMin.x, m_widgetMin.y), m_colours.axisText, m_y.label.c_str());
    }
    m_dl->PushClipRect(m_plotMin, m_plotMax, true);
    return true;
}

ImVec2 Chart::toScreen(double x, double y) const {
    const double ux = m_x.scale.toUnit(x);
    const double uy = m_y.scale.toUnit(y);
    return ImVec2(m_plotMin.x + static_cast<float>(ux) * (m_plotMax.x - m_plotMin.x),
                  m_plotMax.y - static_cast<float>(uy) * (m_plotMax.y - m_plotMin.y));
}

bool Chart::visible(double x, double y) const {
    if (!std::isfinite(x) || !std::isfinite(y)) return false;
    if (m_x.scale.kind == chart::ScaleKind::Log10 && x <= 0) return false;
    if (m_y.scale.kind == chart::ScaleKind::Log10 && y <= 0) return false;
    return true;
}

void Chart::addLegend(const char* name, ImU32 colour, LegendKind kind, MarkerShape shape) {
    if (name == nullptr || name[0] == '\0') return;
    for (const auto& l : m_legend) {
        if (l.name == name) return;
    }
    m_legend.push_back({name, colour, kind, shape});
}

void Chart::legendEntry(const char* name, ImU32 colour, MarkerShape shape) {
    addLegend(name, colour, LegendKind::Marker, shape);
}

void Chart::considerHover(const char* name, std::span<const double> xs, std::span<const double> ys, ImU32 colour,
                          const PointDescriber& describe) {
    if (!m_hovered) return;
    const std::size_t n = std::min(xs.size(), ys.size());
    std::size_t best = n;
    float bestD = std::numeric_limits<float>::max();
    for (std::size_t i = 0; i < n; ++i) {
        if (!visible(xs[i], ys[i])) continue;
        const float d = dist2(toScreen(xs[i], ys[i]), m_mouse);
        if (d < bestD) {
            bestD = d;
            best = i;
        }
    }
    if (best == n || (m_hit.found && bestD >= m_hit.distance)) return;
    m_hit.found = true;
    m_hit.distance = bestD;
    m_hit.screen = toScreen(xs[best], ys[best]);
    m_hit.colour = colour;
    if (describe) {
        m_hit.text = describe(best);
    } else {
        m_hit.text = (name && name[0] ? std::string(name) + "\n" : std::string()) + m_x.label + ": " +
                     formatX(xs[best]) + "\n" + m_y.label + ": " + formatY(ys[best]);
    }
}

void Chart::line(const char* name, std::span<const double> xs, std::span<const double> ys, ImU32 colour,
                 float thickness, const PointDescriber& describe) {
    const std::size_t n = std::min(xs.size(), ys.size());
    std::vector<ImVec2> pts;
    pts.reserve(n);
    auto flush = [&] {
        if (pts.size() >= 2) m_dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), colour, 0, thickness);
        pts.clear();
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (!visible(xs[i], ys[i])) {
            flush();  // a gap, not a line to nowhere
            continue;
        }
        pts.push_back(toScreen(xs[i], ys[i]));
    }
    flush();
    addLegend(name, colour, LegendKind::Line);
    considerHover(name, xs, ys, colour, describe);
}

void Chart::steps(const char* name, std::span<const double> xs, std::span<const double> ys, ImU32 colour,
                  float thickness, const PointDescriber& describe) {
    const std::size_t n = std::min(xs.size(), ys.size());
    std::vector<ImVec2> pts;
    pts.reserve(n * 2);
    auto flush = [&] {
        if (pts.size() >= 2) m_dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), colour, 0, thickness);
        pts.clear();
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (!visible(xs[i], ys[i])) {
            flush();
            continue;
        }
        const ImVec2 p = toScreen(xs[i], ys[i]);
        // A step to the same height only lengthens the level: move its end instead of adding
        // points (the occupancy curves hold a level over hundreds of values, and every point of a
        // polyline is triangles to rasterise).
        if (pts.size() >= 2 && pts.back().y == p.y && pts[pts.size() - 2].y == p.y) {
            pts.back().x = p.x;
            continue;
        }
        if (!pts.empty() && pts.back().y != p.y) pts.push_back(ImVec2(p.x, pts.back().y));  // hold, then rise or fall
        pts.push_back(p);
    }
    flush();
    addLegend(name, colour, LegendKind::Line);
    considerHover(name, xs, ys, colour, describe);
}

void Chart::area(const char* name, std::span<const double> xs, std::span<const double> ys, double baseline,
                 ImU32 colour, bool stepped) {
    const std::size_t n = std::min(xs.size(), ys.size());
    const float by = toScreen(m_x.scale.min, baseline).y;
    const float base = visible(m_x.scale.min, baseline) ? by : m_plotMax.y;
    // One quad per interval keeps every polygon convex, which AddConvexPolyFilled needs. Stepped:
    // one rectangle per run of intervals at the same height.
    for (std::size_t i = 0; i + 1 < n; ++i) {
        if (!visible(xs[i], ys[i]) || !visible(xs[i + 1], ys[i + 1])) continue;
        const ImVec2 a = toScreen(xs[i], ys[i]);
        ImVec2 b = toScreen(xs[i + 1], ys[i + 1]);
        if (stepped) {
            std::size_t end = i + 1;  // the run's last point
            while (end + 1 < n && ys[end] == ys[i] && visible(xs[end + 1], ys[end + 1])) ++end;
            b = toScreen(xs[end], ys[end]);
            m_dl->AddRectFilled(ImVec2(a.x, std::min(a.y, base)), ImVec2(b.x, std::max(a.y, base)), colour);
            i = end - 1;
            continue;
        }
        const ImVec2 q[4] = {ImVec2(a.x, base), a, b, ImVec2(b.x, base)};
        m_dl->AddConvexPolyFilled(q, 4, colour);
    }
    addLegend(name, colour, LegendKind::Area);
}

void Chart::drawMarker(ImDrawList* dl, ImVec2 p, MarkerShape shape, float r, ImU32 colour) {
    switch (shape) {
    case MarkerShape::Circle: dl->AddCircleFilled(p, r, colour, 16); break;
    case MarkerShape::Square: dl->AddRectFilled(ImVec2(p.x - r, p.y - r), ImVec2(p.x + r, p.y + r), colour); break;
    case MarkerShape::Diamond: {
        const float s = r * 1.3f;
        dl->AddQuadFilled(ImVec2(p.x, p.y - s), ImVec2(p.x + s, p.y), ImVec2(p.x, p.y + s), ImVec2(p.x - s, p.y), colour);
        break;
    }
    case MarkerShape::Triangle: {
        const float s = r * 1.3f;
        dl->AddTriangleFilled(ImVec2(p.x, p.y - s), ImVec2(p.x + s, p.y + s * 0.75f), ImVec2(p.x - s, p.y + s * 0.75f),
                              colour);
        break;
    }
    case MarkerShape::Cross:
        dl->AddLine(ImVec2(p.x - r, p.y - r), ImVec2(p.x + r, p.y + r), colour, 2.0f);
        dl->AddLine(ImVec2(p.x - r, p.y + r), ImVec2(p.x + r, p.y - r), colour, 2.0f);
        break;
    }
}

void Chart::scatter(const char* name, std::span<const double> xs, std::span<const double> ys, MarkerShape shape,
                    ImU32 colour, float radius, const PointDescriber& describe) {
    const std::size_t n = std::min(xs.size(), ys.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (!visible(xs[i], ys[i])) continue;
        const ImVec2 p = toScreen(xs[i], ys[i]);
        // A dark halo keeps a marker readable where it sits on a line of its own colour.
        drawMarker(m_dl, p, shape, radius + 1.5f, m_colours.plotBg);
        drawMarker(m_dl, p, shape, radius, colour);
    }
    addLegend(name, colour, LegendKind::Marker, shape);
    considerHover(name, xs, ys, colour, describe);
}

void Chart::segment(double x0, double y0, double x1, double y1, ImU32 colour, float thickness, bool dashed) {
    if (!visible(x0, y0) || !visible(x1, y1)) return;
    const ImVec2 a = toScreen(x0, y0);
    const ImVec2 b = toScreen(x1, y1);
    if (dashed) {
        drawDashedLine(m_dl, a, b, colour, thickness);
    } else {
        m_dl->AddLine(a, b, colour, thickness);
    }
}

void Chart::verticalLine(double x, ImU32 colour, const char* label, bool dashed) {
    if (!visible(x, m_y.scale.max)) return;
    const float px = toScreen(x, m_y.scale.max).x;
    const ImVec2 a(px, m_plotMin.y);
    const ImVec2 b(px, m_plotMax.y);
    drawRule(m_dl, a, b, colour, dashed);
    if (label != nullptr && label[0] != '\0') {
        const ImVec2 ts = ImGui::CalcTextSize(label);
        // Right of the line, unless that runs off the plot.
        const float tx = px + 4 + ts.x > m_plotMax.x ? px - 4 - ts.x : px + 4;
        m_dl->AddText(ImVec2(tx, m_plotMin.y + 2), colour, label);
    }
}

void Chart::horizontalLine(double y, ImU32 colour, const char* label, bool dashed) {
    if (!visible(m_x.scale.max, y)) return;
    const float py = toScreen(m_x.scale.max, y).y;
    const ImVec2 a(m_plotMin.x, py);
    const ImVec2 b(m_plotMax.x, py);
    drawRule(m_dl, a, b, colour, dashed);
    if (label != nullptr && label[0] != '\0') {
        const ImVec2 ts = ImGui::CalcTextSize(label);
        const float ty = py - ts.y - 1 < m_plotMin.y ? py + 1 : py - ts.y - 1;
        m_dl->AddText(ImVec2(m_plotMin.x + 4, ty), colour, label);
    }
}

void Chart::text(double x, double y, const std::string& s, ImU32 colour, ImVec2 align, ImVec2 offset, bool backdrop) {
    if (!visible(x, y) || s.empty()) return;
    const ImVec2 p = toScreen(x, y);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    ImVec2 at(p.x - ts.x * align.x + offset.x, p.y - ts.y * align.y + offset.y);
    // Keep labels inside the plot so the clip rect never cuts a word in half.
    at.x = std::clamp(at.x, m_plotMin.x + 2, std::max(m_plotMin.x + 2, m_plotMax.x - ts.x - 2));
    at.y = std::clamp(at.y, m_plotMin.y + 1, std::max(m_plotMin.y + 1, m_plotMax.y - ts.y - 1));
    if (backdrop) m_dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + ts.x + 2, at.y + ts.y), m_colours.legendBg, 2.0f);
    m_dl->AddText(at, colour, s.c_str());
}

void Chart::drawLegend() {
    if (m_legend.empty() || m_legendCorner == LegendCorner::None) return;
    const float fh = ImGui::GetFontSize();
    const float swatch = fh * 1.2f;
    const float rowH = fh + 3;
    float w = 0;
    for (const auto& l : m_legend) w = std::max(w, ImGui::CalcTextSize(l.name.c_str()).x);
    const ImVec2 box(w + swatch + fh * 1.2f, rowH * static_cast<float>(m_legend.size()) + fh * 0.5f);
    ImVec2 o(m_plotMax.x - box.x - 6, m_plotMin.y + 6);
    if (m_legendCorner == LegendCorner::TopLeft) o.x = m_plotMin.x + 6;
    if (m_legendCorner == LegendCorner::BottomRight) o.y = m_plotMax.y - box.y - 6;
    m_dl->AddRectFilled(o, ImVec2(o.x + box.x, o.y + box.y), m_colours.legendBg, 3.0f);
    m_dl->AddRect(o, ImVec2(o.x + box.x, o.y + box.y), m_colours.frame, 3.0f);
    float y = o.y + fh * 0.25f;
    for (const auto& l : m_legend) {
        const ImVec2 c(o.x + fh * 0.4f + swatch * 0.5f, y + rowH * 0.5f);
        switch (l.kind) {
        case LegendKind::Line:
            m_dl->AddLine(ImVec2(c.x - swatch * 0.5f, c.y), ImVec2(c.x + swatch * 0.5f, c.y), l.colour, 2.0f);
            break;
        case LegendKind::Area:
            m_dl->AddRectFilled(ImVec2(c.x - swatch * 0.5f, c.y - fh * 0.3f), ImVec2(c.x + swatch * 0.5f, c.y + fh * 0.3f),
                                l.colour);
            break;
        case LegendKind::Marker: drawMarker(m_dl, c, l.shape, fh * 0.28f, l.colour); break;
        }
        m_dl->AddText(ImVec2(o.x + fh * 0.8f + swatch, y + 1), m_theme.palette().text, l.name.c_str());
        y += rowH;
    }
}

void Chart::drawHover() {
    if (!m_hovered) return;
    const bool inPlot = m_mouse.x >= m_plotMin.x && m_mouse.x <= m_plotMax.x && m_mouse.y >= m_plotMin.y &&
                        m_mouse.y <= m_plotMax.y;
    if (!inPlot) return;
    drawDashedLine(m_dl, ImVec2(m_mouse.x, m_plotMin.y), ImVec2(m_mouse.x, m_plotMax.y), m_colours.crosshair, 1.0f, 3, 3);
    drawDashedLine(m_dl, ImVec2(m_plotMin.x, m_mouse.y), ImVec2(m_plotMax.x, m_mouse.y), m_colours.crosshair, 1.0f, 3, 3);
    // Where the cursor is, in data units, printed at the axes.
    const double ux = (m_mouse.x - m_plotMin.x) / (m_plotMax.x - m_plotMin.x);
    const double uy = (m_plotMax.y - m_mouse.y) / (m_plotMax.y - m_plotMin.y);
    const std::string xs = formatX(m_x.scale.fromUnit(ux));
    const std::string ys = formatY(m_y.scale.fromUnit(uy));
    const ImVec2 xts = ImGui::CalcTextSize(xs.c_str());
    const ImVec2 yts = ImGui::CalcTextSize(ys.c_str());
    const ImVec2 xp(m_mouse.x - xts.x * 0.5f, m_plotMax.y - xts.y - 2);
    const ImVec2 yp(m_plotMin.x + 2, m_mouse.y - yts.y - 1);
    m_dl->AddRectFilled(ImVec2(xp.x - 2, xp.y), ImVec2(xp.x + xts.x + 2, xp.y + xts.y), m_colours.legendBg);
    m_dl->AddText(xp, m_colours.tickText, xs.c_str());
    m_dl->AddRectFilled(ImVec2(yp.x - 2, yp.y), ImVec2(yp.x + yts.x + 2, yp.y + yts.y), m_colours.legendBg);
    m_dl->AddText(yp, m_colours.tickText, ys.c_str());

    // The nearest point, ringed, with its description; only when it is reasonably close, so the
    // tooltip never claims a point on the other side of the chart.
    const float near = ImGui::GetFontSize() * 4.0f;
    if (m_hit.found && m_hit.distance <= near * near) {
        m_dl->AddCircle(m_hit.screen, 6.0f, m_colours.highlight, 16, 2.0f);
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34);
        ImGui::TextUnformatted(m_hit.text.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

void Chart::end() {
    drawHover();
    m_dl->PopClipRect();
    drawLegend();
}

}  // namespace kx::app
