#pragma once
// Inline SVG charts for the HTML report (html_report.h): a line chart over a log or linear x
// axis and a grouped bar chart, each with axis labels and units, ticks and a legend. Nothing is
// fetched to draw them: the SVG is text inside the page.
#include <string>
#include <vector>

namespace gpubench {

struct ChartPoint {
  double x = 0, y = 0;   // bar charts: x is the category's index
  std::string name;      // the benchmark the figure is of: the point's tooltip
  bool flagged = false;  // its comparison verdict is not "same": drawn ringed
};

struct ChartSeries {
  std::string label;
  std::vector<ChartPoint> points;  // in x order
  int colour = 0;                  // palette index; a base run's series shares its counterpart's
  bool base_run = false;           // the run compared against: drawn dashed (lines) or pale (bars)
};

// A reference line: a peak across the plot, or a size (the L2) up the plot.
struct ChartMarker {
  std::string label;
  double value = 0;
};

// The palette's grey, for a series that is a reference rather than a measurement.
constexpr int kReferenceColour = 7;

enum class ChartKind { kLine, kBar };
enum class AxisFormat { kNumber, kBytes };  // kBytes: ticks at powers of two, "4 KiB", "1 GiB"

struct Chart {
  std::string id;  // the element id in the page, e.g. "transfer-h2d"
  std::string title, x_label, y_label;  // labels carry their unit: "bandwidth (GB/s)"
  ChartKind kind = ChartKind::kLine;
  bool log_x = true;
  AxisFormat x_format = AxisFormat::kNumber;
  std::vector<std::string> categories;  // bar charts: the x axis
  // Bar charts, per category (empty or as many as categories): text shown in place of bars,
  // e.g. "failed" where every result of a precision failed.
  std::vector<std::string> category_notes;
  std::vector<ChartSeries> series;
  std::vector<ChartMarker> y_markers;  // horizontal lines at y = value
  std::vector<ChartMarker> x_markers;  // vertical lines at x = value (line charts)
};

// The <svg> element, with id="chart-<id>" and class="chart".
std::string render_svg(const Chart& chart);

// Text safe inside XML and HTML elements and attribute values; controls and bidirectional
// controls are written visibly first, as printable (text_table.h) writes them for a terminal.
std::string xml_escape(const std::string& text);

// Tick positions: "nice" steps (1, 2, 5 x 10^k) covering [lo, hi], about `target` of them.
std::vector<double> linear_ticks(double lo, double hi, int target);
// Log-axis ticks within [lo, hi]: powers of two for bytes (every second or fourth power when
// the range is wide), else powers of ten with 2 and 5 between them when under two decades.
std::vector<double> log_ticks(double lo, double hi, AxisFormat format);
// A tick's text: "4 KiB", "1 GiB" for bytes; "0", "2.5", "1000", "1.5e+06" for numbers.
std::string tick_text(double value, AxisFormat format);

}  // namespace gpubench
