// A small 2D chart drawn with ImDrawList: a plot area with linear or log10 axes, 1-2-5 / decade
// ticks, axis labels, a legend, line, step, area and scatter series, reference lines, and a hover
// crosshair whose tooltip describes the nearest point.
//
// Immediate mode, like the rest of the UI: build a Chart on the stack each frame, begin(), add
// series, end(). The chart only maps and draws: callers hand it data they computed beforehand
// (compute, then draw), and the spans must stay alive until end().
//
//   Chart c(theme());
//   if (c.begin("##occ", ImVec2(-1, 220), xAxis, yAxis)) {
//       c.steps("occupancy", xs, ys, c.colours().series[0]);
//       c.scatter("current", cx, cy, MarkerShape::Diamond, c.colours().highlight, 5);
//       c.end();
//   }
#pragma once

#include "widgets/chart_scale.hpp"

#include <imgui.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace kx::app {

class Theme;

enum class MarkerShape { Circle, Square, Diamond, Triangle, Cross };

struct ChartAxis {
    std::string label;                           // drawn under the x axis / above the y axis
    chart::Scale scale;
    int maxTicks = 8;                            // upper bound; fewer when pixels are short
    double tickUnit = 0;                         // linear only: ticks at multiples of this (doubled to fit); 0 = 1-2-5
    std::function<std::string(double)> format;   // tick and tooltip text; formatCompact when empty
};

// The chart's colours, every one taken from the Theme's palette (no RGB spelled here).
struct ChartColours {
    ImU32 plotBg, frame, grid, gridMinor, tickText, axisText, crosshair, highlight, legendBg;
    ImU32 series[8];  // distinct hues for series, in order of preference
};
ChartColours chartColours(const Theme& theme);

// Text for a hovered point: called with the point's index in the series' spans.
using PointDescriber = std::function<std::string(std::size_t index)>;

enum class LegendCorner { TopLeft, TopRight, BottomRight, None };

class Chart {
public:
    explicit Chart(const Theme& theme);

    // Reserves size at the cursor (a component <= 0 fills what is available, less its magnitude),
    // lays out the axes and draws background, grid, ticks and labels. Returns false when the
    // region is too small to draw; then do not call end().
    bool begin(const char* id, ImVec2 size, const ChartAxis& x, const ChartAxis& y);
    // Legend, hover crosshair and tooltip. Call once after the series when begin() returned true.
    void end();

    // --- Series (name shows in the legend when non-empty; xs and ys have equal length) -------
    void line(const char* name, std::span<const double> xs, std::span<const double> ys, ImU32 colour,
              float thickness = 1.5f, const PointDescriber& describe = {});
    // A staircase: each value holds until the next x (how occupancy changes with a resource).
    void steps(const char* name, std::span<const double> xs, std::span<const double> ys, ImU32 colour,
               float thickness = 1.5f, const PointDescriber& describe = {});
    // The region between the curve and baseline, filled with colour (pass a translucent one).
    void area(const char* name, std::span<const double> xs, std::span<const double> ys, double baseline,
              ImU32 colour, bool stepped = false);
    void scatter(const char* name, std::span<const double> xs, std::span<const double> ys, MarkerShape shape,
                 ImU32 colour, float radius = 4.0f, const PointDescriber& describe = {});
    // A line segment in data space (roof segments, a memory ceiling); hoverable at both ends.
    void segment(double x0, double y0, double x1, double y1, ImU32 colour, float thickness = 1.5f,
                 bool dashed = false);

    // --- Annotations --------------------------------------------------------------------------
    void verticalLine(double x, ImU32 colour, const char* label = nullptr, bool dashed = true);
    void horizontalLine(double y, ImU32 colour, const char* label = nullptr, bool dashed = true);
    // Text anchored at a data point; align (0..1, 0..1) says which corner of the text sits there,
    // offset moves it in pixels.
    // With backdrop, a plot-coloured box goes under the text so grid and lines do not cross it.
    void text(double x, double y, const std::string& text, ImU32 colour, ImVec2 align = ImVec2(0, 1),
              ImVec2 offset = ImVec2(4, -2), bool backdrop = false);
    void legendEntry(const char* name, ImU32 colour, MarkerShape shape);  // marker-only legend row

    void setLegendCorner(LegendCorner c) { m_legendCorner = c; }
    const ChartColours& colours() const { return m_colours; }

    // --- Geometry, valid between begin() and end() -------------------------------------------
    ImVec2 toScreen(double x, double y) const;
    ImVec2 widgetMin() const { return m_widgetMin; }  // the whole reserved region (for PNG export)
    ImVec2 widgetMax() const { return m_widgetMax; }
    bool hovered() const { return m_hovered; }

    static void drawMarker(ImDrawList* dl, ImVec2 p, MarkerShape shape, float r, ImU32 colour);

private:
    enum class LegendKind { Line, Marker, Area };
    struct LegendItem {
        std::string name;
        ImU32 colour;
        LegendKind kind;
        MarkerShape shape;
    };
    void addLegend(const char* name, ImU32 colour, LegendKind kind, MarkerShape shape = MarkerShape::Circle);
    // Offers the series' point nearest the mouse as the hover candidate.
    void considerHover(const char* name, std::span<const double> xs, std::span<const double> ys, ImU32 colour,
                       const PointDescriber& describe);
    bool visible(double x, double y) const;
    std::string formatX(double v) const;
    std::string formatY(double v) const;
    void drawLegend();
    void drawHover();

    const Theme& m_theme;
    ChartColours m_colours;
    ChartAxis m_x;
    ChartAxis m_y;
    ImDrawList* m_dl = nullptr;
    ImVec2 m_widgetMin{}, m_widgetMax{};
    ImVec2 m_plotMin{}, m_plotMax{};
    bool m_hovered = false;
    ImVec2 m_mouse{};
    std::vector<LegendItem> m_legend;
    LegendCorner m_legendCorner = LegendCorner::TopRight;

    struct HoverHit {
        bool found = false;
        float distance = 0;
        ImVec2 screen{};
        ImU32 colour = 0;
        std::string text;
    } m_hit;
};

// Dashed polyline segment in screen space (ImDrawList has none).
void drawDashedLine(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour, float thickness, float dash = 5.0f,
                    float gap = 4.0f);

}  // namespace kx::app
