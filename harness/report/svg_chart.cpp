#include "harness/report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "harness/report/text_table.h"

namespace gpubench {
namespace {

// Tableau's ten categorical colours: neighbours in the order stay apart in hue. Grey (7) is
// also what reference bars such as a datasheet peak use (kReferenceColour in svg_chart.h).
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr int kPaletteSize = sizeof kPalette / sizeof kPalette[0];

constexpr double kWidth = 760, kLeft = 76, kRight = 24, kTop = 38, kPlotHeight = 300;
constexpr double kAxisBand = 48;  // below the plot: tick labels and the x-axis label
constexpr double kLegendRow = 20;

std::string fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

// A line's dash pattern: the base run's dashed; past the palette's ten colours, a second and
// third round of them dotted and dash-dotted, so that no two curves look alike.
std::string dash_of(int colour, bool base_run) {
  if (base_run) return " stroke-dasharray=\"6 4\"";
  const int round = (colour / kPaletteSize) % 3;
  return round == 1 ? " stroke-dasharray=\"2 3\"" : round == 2 ? " stroke-dasharray=\"9 3 2 3\"" : "";
}

const char* colour_of(int index) { return kPalette[((index % kPaletteSize) + kPaletteSize) % kPaletteSize]; }

struct LegendItem {
  std::string label, colour, dash;
  bool pale = false, line = true;
};

// Legend entries laid out left to right, wrapping at the chart's width; returns its height.
double legend_rows(const std::vector<LegendItem>& items, std::vector<std::pair<double, double>>* at) {
  double x = kLeft, y = 0;
  for (const LegendItem& item : items) {
    const double width = 34 + 6.6 * static_cast<double>(item.label.size());
    if (x + width > kWidth - kRight && x > kLeft) {
      x = kLeft;
      y += kLegendRow;
    }
    at->emplace_back(x, y);
    x += width + 12;
  }
  return items.empty() ? 0 : y + kLegendRow;
}

std::string render_legend(const std::vector<LegendItem>& items, double top) {
  std::vector<std::pair<double, double>> at;
  legend_rows(items, &at);
  std::string out = "<g class=\"legend\">";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const LegendItem& item = items[i];
    const double x = at[i].first, y = top + at[i].second + 10;
    out += "<g class=\"legend-item\" data-index=\"" + std::to_string(i) + "\">";
    if (item.line)
      out += "<line x1=\"" + fixed(x) + "\" y1=\"" + fixed(y) + "\" x2=\"" + fixed(x + 24) + "\" y2=\"" + fixed(y) +
             "\" stroke=\"" + item.colour + "\" stroke-width=\"2.5\"" +
             item.dash + "/>";
    else
      out += "<rect x=\"" + fixed(x + 4) + "\" y=\"" + fixed(y - 6) + "\" width=\"16\" height=\"12\" fill=\"" +
             item.colour + "\"" + (item.pale ? " fill-opacity=\"0.4\"" : "") + "/>";
    out += "<text x=\"" + fixed(x + 30) + "\" y=\"" + fixed(y + 4) + "\">" + xml_escape(item.label) + "</text></g>";
  }
  return out + "</g>";
}

struct Frame {
  double plot_width = kWidth - kLeft - kRight;
  double y_top = 1;  // the y value at the top of the plot
  std::vector<double> y_ticks;
  double y_of(double v) const { return kTop + kPlotHeight * (1 - v / y_top); }
};

Frame y_frame(const Chart& chart) {
  double top = 0;
  for (const ChartSeries& s : chart.series)
    for (const ChartPoint& p : s.points) top = std::max(top, p.y);
  for (const ChartMarker& m : chart.y_markers) top = std::max(top, m.value);
  Frame frame;
  frame.y_ticks = linear_ticks(0, top > 0 ? top * 1.04 : 1, 6);
  frame.y_top = frame.y_ticks.back();
  return frame;
}

std::string y_axis(const Chart& chart, const Frame& frame) {
  std::string out = "<g class=\"axis y\">";
  for (double tick : frame.y_ticks) {
    const std::string y = fixed(frame.y_of(tick));
    out += "<line class=\"grid\" x1=\"" + fixed(kLeft) + "\" y1=\"" + y + "\" x2=\"" + fixed(kWidth - kRight) +
           "\" y2=\"" + y + "\"/><text x=\"" + fixed(kLeft - 6) + "\" y=\"" + y +
           "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + tick_text(tick, AxisFormat::kNumber) + "</text>";
  }
  const std::string mid = fixed(kTop + kPlotHeight / 2);
  out += "<text class=\"axis-label\" transform=\"translate(16 " + mid + ") rotate(-90)\" text-anchor=\"middle\">" +
         xml_escape(chart.y_label) + "</text>";
  return out + "</g>";
}

std::string x_label(const Chart& chart, const Frame& frame) {
  return "<text class=\"axis-label\" x=\"" + fixed(kLeft + frame.plot_width / 2) + "\" y=\"" +
         fixed(kTop + kPlotHeight + 40) + "\" text-anchor=\"middle\">" + xml_escape(chart.x_label) + "</text>";
}

// Each label sits above its line, or below it where the line above is too close for both.
std::string y_markers(const Chart& chart, const Frame& frame) {
  std::vector<ChartMarker> markers = chart.y_markers;
  std::sort(markers.begin(), markers.end(), [](const ChartMarker& a, const ChartMarker& b) { return a.value > b.value; });
  std::string out;
  double last_label = -INFINITY;
  for (const ChartMarker& m : markers) {
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
  return "<title>" + xml_escape(p.name) + ": " + tick_text(p.y, AxisFormat::kNumber) + " " +
         xml_escape(chart.y_label) + "</title>";
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

std::string line_plot(const Chart& chart, const Frame& frame) {
  double lo = INFINITY, hi = -INFINITY;
  for (const ChartSeries& s : chart.series)
    for (const ChartPoint& p : s.points) lo = std::min(lo, p.x), hi = std::max(hi, p.x);
  const bool log_x = chart.log_x && lo > 0;
  const std::function<double(double)> scale = [log_x](double v) { return log_x ? std::log(v) : v; };
  double a = scale(lo), b = scale(hi);
  const double pad = b > a ? (b - a) * 0.04 : (log_x ? std::log(2.0) : std::max(1.0, std::fabs(a) * 0.1));
  a -= pad, b += pad;
  auto x_of = [&](double v) { return kLeft + frame.plot_width * (scale(v) - a) / (b - a); };

  std::string out = "<g class=\"axis x\">";
  const std::vector<double> ticks =
      log_x ? log_ticks(lo, hi, chart.x_format) : linear_ticks(lo, hi, 7);
  for (double tick : ticks) {
    if (x_of(tick) < kLeft - 0.5 || x_of(tick) > kWidth - kRight + 0.5) continue;
    const std::string x = fixed(x_of(tick));
    out += "<line class=\"grid\" x1=\"" + x + "\" y1=\"" + fixed(kTop) + "\" x2=\"" + x + "\" y2=\"" +
           fixed(kTop + kPlotHeight) + "\"/><text x=\"" + x + "\" y=\"" + fixed(kTop + kPlotHeight + 16) +
           "\" text-anchor=\"middle\">" + tick_text(tick, chart.x_format) + "</text>";
  }
  out += "</g>" + x_label(chart, frame) + y_markers(chart, frame);
  for (const ChartMarker& m : chart.x_markers) {
    if (log_x && m.value <= 0) continue;
    const double x = x_of(m.value);
    if (x < kLeft || x > kWidth - kRight) continue;
    out += "<g class=\"marker\"><line x1=\"" + fixed(x) + "\" y1=\"" + fixed(kTop) + "\" x2=\"" + fixed(x) +
           "\" y2=\"" + fixed(kTop + kPlotHeight) + "\"/><text x=\"" + fixed(x + 4) + "\" y=\"" + fixed(kTop + 12) +
           "\">" + xml_escape(m.label) + "</text></g>";
  }
  for (const std::size_t i : drawing_order(chart)) {
    const ChartSeries& s = chart.series[i];
    const std::string colour = colour_of(s.colour);
    out += series_group(s, i);
    std::string path;
    for (const ChartPoint& p : s.points) path += (path.empty() ? "" : " ") + fixed(x_of(p.x)) + "," + fixed(frame.y_of(p.y));
    out += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"" +
           dash_of(s.colour, s.base_run) + (s.base_run ? " stroke-opacity=\"0.8\"" : "") + " points=\"" + path + "\"/>";
    for (const ChartPoint& p : s.points)
      out += "<circle cx=\"" + fixed(x_of(p.x)) + "\" cy=\"" + fixed(frame.y_of(p.y)) + "\" r=\"" +
             (p.flagged ? "5.5" : "3") + "\" fill=\"" + (s.base_run ? "#fff" : colour) + "\" stroke=\"" +
             (p.flagged ? "#000" : colour) + "\"" + (p.flagged ? " stroke-width=\"2\" class=\"flagged\"" : "") +
             ">" + point_title(p, chart) + "</circle>";
    out += "</g>";
  }
  return out;
}

std::string bar_plot(const Chart& chart, const Frame& frame) {
  const double n = std::max<std::size_t>(1, chart.categories.size());
  const double group = frame.plot_width / n;
  const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(1, chart.series.size()));
  std::string out = "<g class=\"axis x\">";
  for (std::size_t c = 0; c < chart.categories.size(); ++c)
    out += "<text x=\"" + fixed(kLeft + group * (static_cast<double>(c) + 0.5)) + "\" y=\"" +
           fixed(kTop + kPlotHeight + 16) + "\" text-anchor=\"middle\">" + xml_escape(chart.categories[c]) + "</text>";
  out += "</g>" + x_label(chart, frame);
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
             (p.flagged ? " stroke=\"#000\" stroke-width=\"2\" class=\"flagged\"" : "") + ">" + point_title(p, chart) +
             "</rect>";
    }
    out += "</g>";
  }
  return out + y_markers(chart, frame);
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : printable(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  std::vector<double> ticks;
  for (double t = std::floor(lo / step) * step; t < hi + step * 0.999; t += step)
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi, AxisFormat format) {
  std::vector<double> ticks;
  if (!(lo > 0) || !(hi >= lo)) return ticks;
  if (format == AxisFormat::kBytes) {
    const int first = static_cast<int>(std::floor(std::log2(lo))), last = static_cast<int>(std::ceil(std::log2(hi)));
    const int stride = last - first > 16 ? 4 : last - first > 8 ? 2 : 1;
    for (int e = first - (first % stride + stride) % stride; e <= last; e += stride) ticks.push_back(std::ldexp(1.0, e));
    return ticks;
  }
  const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi)));
  for (int e = first; e <= last; ++e)
    for (double m : std::log10(hi / lo) < 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1})
      ticks.push_back(m * std::pow(10.0, e));
  return ticks;
}

std::string tick_text(double value, AxisFormat format) {
  char buffer[32];
  if (format == AxisFormat::kBytes && value >= 1) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (value >= 1024 && u < 4) value /= 1024, ++u;
    std::snprintf(buffer, sizeof buffer, "%g %s", value, units[u]);
    return buffer;
  }
  const bool whole = std::fabs(value) < 1e6 && value == std::floor(value);
  std::snprintf(buffer, sizeof buffer, whole ? "%.0f" : std::fabs(value) >= 1e6 ? "%.3g" : "%.4g", value);
  return buffer;
}

std::string render_svg(const Chart& chart) {
  std::vector<LegendItem> legend;
  for (const ChartSeries& s : chart.series)
    legend.push_back({s.label, colour_of(s.colour), dash_of(s.colour, s.base_run), s.base_run,
                      chart.kind == ChartKind::kLine});
  std::vector<std::pair<double, double>> at;
  const double legend_height = legend_rows(legend, &at);
  const double height = kTop + kPlotHeight + kAxisBand + legend_height + 8;
  const Frame frame = y_frame(chart);
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-" + xml_escape(chart.id) +
                    "\" class=\"chart\" viewBox=\"0 0 " + fixed(kWidth) + " " + fixed(height) + "\" width=\"" +
                    fixed(kWidth) + "\" height=\"" + fixed(height) + "\" role=\"img\"><title>" +
                    xml_escape(chart.title) + "</title><text class=\"chart-title\" x=\"" + fixed(kLeft) +
                    "\" y=\"22\">" + xml_escape(chart.title) + "</text>";
  out += y_axis(chart, frame);
  out += chart.kind == ChartKind::kLine ? line_plot(chart, frame) : bar_plot(chart, frame);
  out += "<rect class=\"frame\" x=\"" + fixed(kLeft) + "\" y=\"" + fixed(kTop) + "\" width=\"" +
         fixed(frame.plot_width) + "\" height=\"" + fixed(kPlotHeight) + "\" fill=\"none\"/>";
  out += render_legend(legend, kTop + kPlotHeight + kAxisBand);
  return out + "</svg>";
}

}  // namespace gpubench
