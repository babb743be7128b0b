#include "harness/report/svg_chart.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "harness/report/chart_lines.h"
#include "harness/report/svg_parts.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

using namespace svg;

// One axis: its ends in data units (its first and last tick, so that the ticks cover the data)
// and whether it is logarithmic.
struct Scale {
  bool log = false;
  double lo = 0, hi = 1;
  AxisFormat format = AxisFormat::kNumber;
  std::vector<double> ticks;
  double fraction(double v) const {
    return log ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
  }
};

Scale make_scale(const std::vector<double>& values, bool allow_log, AxisFormat format, bool from_zero) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(lo <= hi)) lo = 0, hi = 1;
  Scale s;
  s.format = format;
  // Sizes are powers of two: a log2 axis reads best over any span. One value alone on a
  // number axis is also given a log axis, a factor of two either side of it.
  s.log = allow_log && lo > 0 && (format == AxisFormat::kBytes || hi == lo || hi / lo > kLogSpan);
  if (s.log && hi == lo) lo /= 2, hi *= 2;  // a lone value in the middle of its axis
  s.ticks = s.log ? log_ticks(lo, hi, format) : linear_ticks(from_zero ? std::min(0.0, lo) : lo, hi, 5);
  s.lo = s.ticks.front();
  s.hi = s.ticks.back();
  return s;
}

struct Frame {
  Scale x, y;
  double x_of(double v) const { return kLeft + kInset + (kPlotWidth - 2 * kInset) * x.fraction(v); }
  double y_of(double v) const { return kTop + kPlotHeight * (1 - y.fraction(v)); }
};

// The y values a chart must show: its figures (a failed point has none) and its markers.
std::vector<double> y_values(const Chart& chart, bool positive_only) {
  std::vector<double> out;
  for (const ChartSeries& s : chart.series)
    for (const ChartPoint& p : s.points)
      if (p.mark != PointMark::kFailed) out.push_back(p.y);
  for (const ChartMarker& m : chart.y_markers) out.push_back(m.value);
  if (positive_only) out.erase(std::remove_if(out.begin(), out.end(), [](double v) { return !(v > 0); }), out.end());
  return out;
}

Frame frame_of(const Chart& chart) {
  Frame f;
  if (chart.kind == ChartKind::kBar) {
    f.y = make_scale(y_values(chart, false), false, AxisFormat::kNumber, true);
    return f;
  }
  std::vector<double> xs;
  for (const ChartSeries& s : chart.series)
    for (const ChartPoint& p : s.points) xs.push_back(p.x);
  f.x = make_scale(xs, chart.log_x, chart.x_format, false);
  const std::vector<double> ys = y_values(chart, false);
  const bool positive = std::all_of(ys.begin(), ys.end(), [](double v) { return v > 0; });
  f.y = make_scale(ys, chart.log_y && positive, AxisFormat::kNumber, true);
  if (f.y.log && f.y.format == AxisFormat::kNumber) {
    // On a log y axis a lone value needs no bracketing; numbers under kLogSpan stay linear.
    const auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
    if (ys.empty() || *hi / *lo <= kLogSpan) f.y = make_scale(ys, false, AxisFormat::kNumber, true);
  }
  return f;
}

// A y tick in at most about five characters, to fit beside the plot: 800000 is "800k"; a log
// axis reads as such from its ticks (0.01, 0.1, 1).
std::string short_tick_text(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e9) return tick_text(value / 1e9, AxisFormat::kNumber) + "G";
  if (magnitude >= 1e6) return tick_text(value / 1e6, AxisFormat::kNumber) + "M";
  if (magnitude >= 1e4) return tick_text(value / 1e3, AxisFormat::kNumber) + "k";
  return tick_text(value, AxisFormat::kNumber);
}

std::string y_axis(const Chart& chart, const Frame& frame) {
  std::string out = "<g class=\"axis y\">";
  for (double tick : frame.y.ticks) {
    const std::string y = fixed(frame.y_of(tick));
    out += "<line class=\"grid\" x1=\"" + fixed(kLeft) + "\" y1=\"" + y + "\" x2=\"" + fixed(kWidth - kRight) +
           "\" y2=\"" + y + "\"/><text x=\"" + fixed(kLeft - 6) + "\" y=\"" + y +
           "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + short_tick_text(tick) + "</text>";
  }
  const std::string mid = fixed(kTop + kPlotHeight / 2);
  out += "<text class=\"axis-label\" transform=\"translate(14 " + mid + ") rotate(-90)\" text-anchor=\"middle\">" +
         xml_escape(chart.y_label) + "</text>";
  return out + "</g>";
}

std::string x_label(const Chart& chart, bool log) {
  return "<text class=\"axis-label\" x=\"" + fixed(kLeft + kPlotWidth / 2) + "\" y=\"" +
         fixed(kTop + kPlotHeight + 36) + "\" text-anchor=\"middle\">" + xml_escape(chart.x_label) +
         (log ? ", log scale" : "") + "</text>";
}

// Each label sits above its line, or below it where the line above is too close for both.
std::string y_markers(const Chart& chart, const Frame& frame) {
  std::vector<ChartMarker> markers = chart.y_markers;
  std::sort(markers.begin(), markers.end(), [](const ChartMarker& a, const ChartMarker& b) { return a.value > b.value; });
  std::string out;
  double last_label = -INFINITY;
  for (const ChartMarker& m : markers) {
    if (frame.y.log && !(m.value > 0)) continue;
    const double line = frame.y_of(m.value);
    const double label = line - 4 - last_label < 13 ? line + 13 : line - 4;
    last_label = label;
    const std::string y = fixed(line);
    out += "<g class=\"marker\"><line x1=\"" + fixed(kLeft) + "\" y1=\"" + y + "\" x2=\"" + fixed(kWidth - kRight) +
           "\" y2=\"" + y + "\"/><text x=\"" + fixed(kWidth - kRight - 4) + "\" y=\"" + fixed(label) +
           "\" text-anchor=\"end\">" + xml_escape(m.label) + "</text></g>";
  }
  return out;
}

std::string point_title(const ChartPoint& p, const Chart& chart) {
  const std::string figure = p.mark == PointMark::kFailed ? "no figure (not ok)"
                                                          : tick_text(p.y, AxisFormat::kNumber) + " " + chart.y_label;
  return "<title>" + xml_escape(p.name) + ": " + xml_escape(figure) + (p.mark == PointMark::kThrottled ? ", throttled" : "") +
         (p.verdict.empty() ? "" : ", " + xml_escape(p.verdict)) + "</title>";
}

// A base run's series first, so that the run's own are drawn over them.
std::vector<std::size_t> drawing_order(const Chart& chart) {
  std::vector<std::size_t> order;
  for (bool base : {true, false})
    for (std::size_t i = 0; i < chart.series.size(); ++i)
      if (chart.series[i].base_run == base) order.push_back(i);
  return order;
}

// The legend's item i and series i share an index: the page's script toggles one by the other.
std::string series_group(const ChartSeries& s, std::size_t index) {
  return "<g class=\"series\" data-index=\"" + std::to_string(index) + "\" data-series=\"" + xml_escape(s.label) + "\">";
}

// The series' lines, one polyline per run of joined points (chart_lines.h).
std::string series_lines(const Chart& chart, std::size_t index, const std::vector<std::vector<std::size_t>>& runs,
                         const Frame& frame) {
  const ChartSeries& s = chart.series[index];
  std::string out;
  for (const std::vector<std::size_t>& run : runs) {
    std::string path;
    for (std::size_t i : run) path += (path.empty() ? "" : " ") + fixed(frame.x_of(s.points[i].x)) + "," + fixed(frame.y_of(s.points[i].y));
    out += "<polyline fill=\"none\" stroke=\"" + std::string(colour_of(s.colour)) + "\" stroke-width=\"2\"" +
           dash_of(s.colour, s.base_run) + (s.base_run ? " stroke-opacity=\"0.8\"" : "") + " points=\"" + path + "\"/>";
  }
  return out;
}

std::string series_points(const ChartSeries& s, const Chart& chart, const Frame& frame) {
  const std::string colour = colour_of(s.colour);
  std::string out;
  for (const ChartPoint& p : s.points) {
    const double x = frame.x_of(p.x);
    if (p.mark == PointMark::kFailed) {
      out += cross(x, kTop + kPlotHeight - 6, colour) + point_title(p, chart) + "</path>";
      continue;
    }
    const double y = frame.y_of(p.y);
    if (p.mark == PointMark::kThrottled)
      out += triangle(x, y, s.base_run ? "#fff" : colour) + point_title(p, chart) + "</polygon>";
    else {  // appended piece by piece: a history chart holds thousands of these
      out += "<circle cx=\"";
      out += fixed(x);
      out += "\" cy=\"";
      out += fixed(y);
      out += "\" r=\"3\" fill=\"";
      out += s.base_run ? "#fff" : colour;
      out += "\" stroke=\"";
      out += colour;
      out += "\">";
      out += point_title(p, chart);
      out += "</circle>";
    }
    if (!p.verdict.empty()) out += ring(x, y, p.verdict);
  }
  return out;
}

std::string x_axis(const Chart& chart, const Frame& frame) {
  std::string out = "<g class=\"axis x\">";
  for (double tick : frame.x.ticks) {
    const std::string x = fixed(frame.x_of(tick));
    out += "<line class=\"grid\" x1=\"" + x + "\" y1=\"" + fixed(kTop) + "\" x2=\"" + x + "\" y2=\"" +
           fixed(kTop + kPlotHeight) + "\"/><text x=\"" + x + "\" y=\"" + fixed(kTop + kPlotHeight + 15) +
           "\" text-anchor=\"middle\">" + tick_text(tick, chart.x_format) + "</text>";
  }
  return out + "</g>" + x_label(chart, frame.x.log);
}

std::string line_plot(const Chart& chart, const Frame& frame) {
  std::string out = x_axis(chart, frame) + y_markers(chart, frame);
  for (const ChartMarker& m : chart.x_markers) {
    if ((frame.x.log && m.value <= 0) || m.value < frame.x.lo || m.value > frame.x.hi) continue;
    const double x = frame.x_of(m.value);
    out += "<g class=\"marker\"><line x1=\"" + fixed(x) + "\" y1=\"" + fixed(kTop) + "\" x2=\"" + fixed(x) +
           "\" y2=\"" + fixed(kTop + kPlotHeight) + "\"/><text x=\"" + fixed(x + 4) + "\" y=\"" + fixed(kTop + kPlotHeight - 6) +
           "\">" + xml_escape(m.label) + "</text></g>";
  }
  const auto runs = joined_runs(chart, frame.x.log);
  for (const std::size_t i : drawing_order(chart))
    out += series_group(chart.series[i], i) + series_lines(chart, i, runs[i], frame) +
           series_points(chart.series[i], chart, frame) + "</g>";
  return out;
}

std::string bar_plot(const Chart& chart, const Frame& frame) {
  const double n = std::max<std::size_t>(1, chart.categories.size());
  const double group = kPlotWidth / n;
  const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(1, chart.series.size()));
  std::string out = "<g class=\"axis x\">";
  for (std::size_t c = 0; c < chart.categories.size(); ++c)
    out += "<text x=\"" + fixed(kLeft + group * (static_cast<double>(c) + 0.5)) + "\" y=\"" +
           fixed(kTop + kPlotHeight + 15) + "\" text-anchor=\"middle\">" + xml_escape(chart.categories[c]) + "</text>";
  out += "</g>" + x_label(chart, false);
  for (std::size_t c = 0; c < chart.category_notes.size() && c < chart.categories.size(); ++c)
    if (!chart.category_notes[c].empty())
      out += "<text class=\"category-note\" x=\"" + fixed(kLeft + group * (static_cast<double>(c) + 0.5)) +
             "\" y=\"" + fixed(kTop + kPlotHeight - 12) + "\" text-anchor=\"middle\">" +
             xml_escape(chart.category_notes[c]) + "</text>";
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    out += series_group(s, i);
    for (const ChartPoint& p : s.points) {
      const double x = kLeft + group * (p.x + 0.1) + bar * static_cast<double>(i);
      const double y = frame.y_of(p.y);
      out += "<rect x=\"" + fixed(x) + "\" y=\"" + fixed(y) + "\" width=\"" + fixed(bar * 0.92) + "\" height=\"" +
             fixed(kTop + kPlotHeight - y) + "\" fill=\"" + colour_of(s.colour) + "\"" +
             (s.base_run ? " fill-opacity=\"0.4\"" : "") +
             (p.verdict.empty() ? ""
                                : " stroke=\"" + std::string(verdict_colour(p.verdict)) +
                                      "\" stroke-width=\"2\" class=\"verdict " + p.verdict + "\"") +
             ">" + point_title(p, chart) + "</rect>";
    }
    out += "</g>";
  }
  return out + y_markers(chart, frame);
}

std::vector<LegendItem> legend_of(const Chart& chart) {
  std::vector<LegendItem> legend;
  std::set<std::string> symbols;
  for (const ChartSeries& s : chart.series) {
    legend.push_back({s.label, colour_of(s.colour), dash_of(s.colour, s.base_run), "", s.base_run,
                      chart.kind == ChartKind::kLine});
    for (const ChartPoint& p : s.points) {
      if (p.mark == PointMark::kThrottled) symbols.insert("throttled");
      if (p.mark == PointMark::kFailed) symbols.insert("failed");
      if (!p.verdict.empty()) symbols.insert(p.verdict);
    }
  }
  for (const std::string& symbol : symbols)
    legend.push_back({symbol == "failed" ? "failed: no figure" : symbol, "", "", symbol, false, false});
  return legend;
}

}  // namespace


std::string render_svg(const Chart& chart) {
  const std::vector<LegendItem> legend = legend_of(chart);
  std::vector<std::pair<double, double>> at;
  const double legend_height = legend_rows(legend, &at);
  const double height = kTop + kPlotHeight + kAxisBand + legend_height + 6;
  const Frame frame = frame_of(chart);
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-" + xml_escape(chart.id) +
                    "\" class=\"chart\" viewBox=\"0 0 " + fixed(kWidth) + " " + fixed(height) + "\" width=\"" +
                    fixed(kWidth) + "\" height=\"" + fixed(height) + "\" role=\"img\"><title>" +
                    xml_escape(chart.title + (chart.subtitle.empty() ? "" : ": " + chart.subtitle)) +
                    "</title><text class=\"chart-title\" x=\"" + fixed(kLeft) + "\" y=\"16\">" +
                    xml_escape(chart.title) + "</text>";
  if (!chart.subtitle.empty())
    out += "<text class=\"chart-subtitle\" x=\"" + fixed(kLeft) + "\" y=\"33\">" + xml_escape(chart.subtitle) + "</text>";
  out += y_axis(chart, frame);
  out += chart.kind == ChartKind::kLine ? line_plot(chart, frame) : bar_plot(chart, frame);
  out += "<rect class=\"frame\" x=\"" + fixed(kLeft) + "\" y=\"" + fixed(kTop) + "\" width=\"" + fixed(kPlotWidth) +
         "\" height=\"" + fixed(kPlotHeight) + "\" fill=\"none\"/>";
  out += render_legend(legend, kTop + kPlotHeight + kAxisBand);
  return out + "</svg>";
}

}  // namespace gpubench
