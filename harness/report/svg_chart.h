#pragma once
// Inline SVG charts for the HTML report (html_report.h): a small line chart over log or linear
// axes and a grouped bar chart, each with axis labels and units, ticks that cover the data, and
// a legend. Nothing is fetched to draw them: the SVG is text inside the page.
#include <string>
#include <vector>

#include "harness/report/chart_ticks.h"

#include "harness/report/svg_parts.h"  // xml_escape

namespace gpubench {

// kFailed: a result of the series at that x with no figure (failed, timed out): drawn as a
// cross on the x axis, never joined by a line.
enum class PointMark { kMeasured, kThrottled, kFailed };

struct ChartPoint {
  double x = 0, y = 0;   // bar charts: x is the category's index
  std::string name;      // the benchmark the figure is of: the point's tooltip
  // Compare's verdict where it is not "same": "regressed" is ringed red, "improved" green,
  // anything else ("noisy", "not ok") black.
  std::string verdict;
  PointMark mark = PointMark::kMeasured;
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

struct Chart {
  std::string id;  // the element id in the page, e.g. "transfer-h2d"
  std::string title, x_label, y_label;  // labels carry their unit: "bandwidth (GB/s)"
  std::string subtitle;  // the parameter slice the chart holds: "model gpt2, type bf16"
  ChartKind kind = ChartKind::kLine;
  // Line charts: whether an axis may be logarithmic. It is where its values span more than
  // kLogSpan (bytes: any span, ticks at powers of two); a time axis is kept linear.
  bool log_x = true, log_y = true;
  AxisFormat x_format = AxisFormat::kNumber;
  std::vector<std::string> categories;  // bar charts: the x axis
  // Bar charts, per category (empty or as many as categories): text shown in place of bars,
  // e.g. "failed" where every result of a precision failed.
  std::vector<std::string> category_notes;
  std::vector<ChartSeries> series;
  std::vector<ChartMarker> y_markers;  // horizontal lines at y = value
  std::vector<ChartMarker> x_markers;  // vertical lines at x = value (line charts)
};

// 10^1.5: over about a decade and a half, a linear axis squeezes the small values into its
// first few pixels.
constexpr double kLogSpan = 31.6;
// The <svg> element, with id="chart-<id>" and class="chart".
std::string render_svg(const Chart& chart);


}  // namespace gpubench
