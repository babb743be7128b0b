#pragma once
// The pieces of an SVG chart that are not its plot: numbers as SVG writes them, the palette and
// dash patterns, the symbols a point may carry, and the legend (harness/report/svg_chart.cpp
// draws the plots with them).
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

// Text safe inside XML and HTML elements and attribute values; controls and bidirectional
// controls are written visibly first, as printable (text_table.h) writes them for a terminal.
std::string xml_escape(const std::string& text);

namespace svg {

// Small charts, two to a row of the page: the page scales the viewBox to its column.
constexpr double kWidth = 520, kLeft = 62, kRight = 30, kTop = 44, kPlotHeight = 210;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kInset = 8;      // points at the ends of the x axis stay clear of the frame
constexpr double kAxisBand = 44;  // below the plot: tick labels and the x-axis label
constexpr double kLegendRow = 18;

std::string fixed(double value);
// A line's dash pattern: the base run's dashed; past the palette's ten colours, a second and
// third round of them dotted and dash-dotted, so that no two curves look alike.
std::string dash_of(int colour, bool base_run);
const char* colour_of(int index);
const char* verdict_colour(const std::string& verdict);

// The symbols a point may carry, drawn at (x, y); the triangle's and the cross's elements are
// left open for a title.
std::string triangle(double x, double y, const std::string& fill);
std::string cross(double x, double y, const std::string& colour);
std::string ring(double x, double y, const std::string& verdict);

// A legend entry: a series (a line or a bar swatch, toggled by a click), or what a symbol on
// the plot means (`symbol`: "throttled", "failed", or a verdict).
struct LegendItem {
  std::string label, colour, dash, symbol;
  bool pale = false, line = true;
};

// Legend entries laid out left to right, wrapping at the chart's width; returns its height.
double legend_rows(const std::vector<LegendItem>& items, std::vector<std::pair<double, double>>* at);
// Series entries carry data-index (the page's script toggles series i by entry i); symbol
// entries come after them and toggle nothing.
std::string render_legend(const std::vector<LegendItem>& items, double top);

}  // namespace svg
}  // namespace gpubench
