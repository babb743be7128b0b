#include "harness/report/chart_data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "harness/report/chart_bars.h"
#include "harness/report/chart_rules.h"
#include "harness/report/chart_select.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

// The axes that take more than one value among `results`, other than `skip`: what slices them.
std::vector<std::string> varying_axes(const std::vector<const BenchmarkResult*>& results,
                                      const std::set<std::string>& skip) {
  std::map<std::string, std::set<std::string>> values;
  for (const BenchmarkResult* b : results)
    for (const auto& [axis, value] : b->params)
      if (!skip.count(axis)) values[axis].insert(value);
  std::vector<std::string> out;
  for (const auto& [axis, seen] : values)
    if (seen.size() > 1) out.push_back(axis);
  return out;
}

std::string series_label(const std::string& metric_label, const BenchmarkResult& b,
                         const std::vector<std::string>& axes) {
  std::string label = metric_label;
  for (const std::string& axis : axes)
    if (b.params.count(axis)) label += (label.empty() ? "" : ", ") + axis + ":" + param_or(b, axis);
  return label.empty() ? "measured" : label;
}

// Adds a point to the series of that label, making the series on its first point (`order`
// keeps first appearance).
void add_series(std::map<std::string, ChartSeries>& by_label, std::vector<std::string>& order,
                const std::string& label, ChartPoint point) {
  auto [it, added] = by_label.try_emplace(label);
  if (added) {
    it->second.label = label;
    order.push_back(label);
  }
  it->second.points.push_back(std::move(point));
}

// One run's series onto the chart, each sorted by x; `colours` gives a label one colour in
// both runs.
void append_run_series(Chart& chart, std::map<std::string, ChartSeries> by_label, const std::vector<std::string>& order,
                       bool base_run, std::map<std::string, int>& colours) {
  for (const std::string& label : order) {
    ChartSeries s = std::move(by_label[label]);
    std::sort(s.points.begin(), s.points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    const auto colour = colours.try_emplace(label, static_cast<int>(colours.size())).first->second;
    s.colour = colour;
    s.base_run = base_run;
    if (base_run) s.label += " (base)";
    chart.series.push_back(std::move(s));
  }
}

std::string unit_of(const BenchmarkResult& b, const std::string& metric) {
  const auto it = b.metrics.find(metric);
  return it == b.metrics.end() ? "" : it->second.unit;
}

// What each result's peak is of ("HBM", "PCIe Gen5 x16 of gpu0"): its peak_source up to the
// first colon. The merged figures do not carry it; the document's repetitions do.
std::map<std::string, std::string> peak_kinds(const RunDocument* document) {
  std::map<std::string, std::string> out;
  if (!document) return out;
  for (const BenchResult& r : document->results)
    if (!r.peak_source.empty()) out.emplace(r.name, r.peak_source.substr(0, r.peak_source.find(':')));
  return out;
}

// A line per distinct peak of the results measured against one: a figure above it that has
// no peak of its own (an L2-resident working set) is not measured against it.
std::vector<ChartMarker> peak_markers(const std::vector<const BenchmarkResult*>& results, const std::string& metric,
                                      const RunDocument* document) {
  const std::map<std::string, std::string> kinds = peak_kinds(document);
  std::map<double, std::string> peaks;
  for (const BenchmarkResult* b : results)
    if (b->peak && b->primary_metric == metric) {
      const auto kind = kinds.find(b->name);
      peaks.emplace(*b->peak, (kind == kinds.end() ? "" : kind->second + " ") + "peak " + tick_text(*b->peak, AxisFormat::kNumber) +
                                  " " + unit_of(*b, metric));
    }
  std::vector<ChartMarker> out;
  for (const auto& [value, label] : peaks) out.push_back({label, value});
  return out;
}

std::vector<ChartMarker> l2_markers(const ResultFile& run) {
  std::set<std::uint64_t> sizes;
  for (const GpuInfo& g : run.gpus)
    if (g.l2_bytes > 0) sizes.insert(g.l2_bytes);
  std::vector<ChartMarker> out;
  for (std::uint64_t s : sizes)
    out.push_back({"L2 " + tick_text(static_cast<double>(s), AxisFormat::kBytes), static_cast<double>(s)});
  return out;
}

// The run's (or base run's) series of one curve chart.
void curve_series(const CurveRule& rule, const std::vector<const BenchmarkResult*>& results,
                  const std::map<std::string, std::string>* verdicts, std::map<std::string, ChartSeries>& by_label,
                  std::vector<std::string>& order) {
  for (const BenchmarkResult* b : results) {
    const double x = std::strtod(param_or(*b, rule.x_param).c_str(), nullptr);
    if (!std::isfinite(x)) continue;
    for (const SeriesMetric& m : rule.metrics) {
      const std::string label = series_label(m.label, *b, rule.series);
      if (!b->ok()) {
        add_series(by_label, order, label, {x, 0, b->name, verdict_of(verdicts, b->name), PointMark::kFailed});
        continue;
      }
      const auto it = b->metrics.find(m.metric);
      if (it == b->metrics.end() || !std::isfinite(it->second.median)) continue;
      add_series(by_label, order, label,
                 {x, it->second.median, b->name, verdict_of(verdicts, b->name),
                  b->throttled ? PointMark::kThrottled : PointMark::kMeasured});
    }
  }
}

// A parameter slice: the values of the slicing axes that one chart holds.
using Slice = std::vector<std::string>;

Slice slice_of(const BenchmarkResult& b, const std::vector<std::string>& axes) {
  Slice out;
  for (const std::string& axis : axes) out.push_back(param_or(b, axis));
  return out;
}

std::vector<const BenchmarkResult*> in_slice(std::vector<const BenchmarkResult*> all, const std::vector<std::string>& axes,
                                             const Slice& slice) {
  all.erase(std::remove_if(all.begin(), all.end(), [&](auto* b) { return slice_of(*b, axes) != slice; }), all.end());
  return all;
}

void name_slice(const CurveRule& rule, const std::vector<std::string>& axes, const Slice& slice, Chart& chart) {
  chart.id = rule.id;
  std::string held;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    chart.id += "-" + slice[a];
    held += (held.empty() ? "" : ", ") + axes[a] + " " + slice[a];
  }
  chart.title = rule.title;
  chart.subtitle = held;
  chart.x_label = rule.x_label;
  chart.y_label = rule.y_label;
  chart.x_format = rule.x_format;
}

bool has_figure(const Chart& chart) {
  for (const ChartSeries& s : chart.series)
    for (const ChartPoint& p : s.points)
      if (p.mark != PointMark::kFailed) return true;
  return false;
}

void curve_charts(const CurveRule& rule, const ChartRun& run, const ChartRun* base,
                  const std::map<std::string, std::string>& verdicts, std::vector<ReportChart>& out) {
  if (!rule.unless.empty() && std::any_of(out.begin(), out.end(), [&](const ReportChart& c) {
        return c.chart.id == rule.unless || c.chart.id.rfind(rule.unless + "-", 0) == 0;
      }))
    return;
  const auto now = select(run.figures, rule.family, rule.fixed, rule.x_param, true);
  const auto then = select(base ? base->figures : nullptr, rule.family, rule.fixed, rule.x_param);
  auto both = now;
  both.insert(both.end(), then.begin(), then.end());
  std::set<std::string> skip(rule.series.begin(), rule.series.end());
  skip.insert(rule.x_param);
  for (const auto& [axis, value] : rule.fixed) skip.insert(axis);
  const std::vector<std::string> axes = varying_axes(both, skip);
  std::vector<Slice> slices;
  for (const BenchmarkResult* b : now)
    if (std::find(slices.begin(), slices.end(), slice_of(*b, axes)) == slices.end()) slices.push_back(slice_of(*b, axes));
  for (const Slice& slice : slices) {
    const auto now_slice = in_slice(now, axes, slice);
    Chart chart;
    name_slice(rule, axes, slice, chart);
    std::map<std::string, ChartSeries> by_label;
    std::vector<std::string> order;
    curve_series(rule, now_slice, &verdicts, by_label, order);
    std::map<std::string, int> colours;
    append_run_series(chart, std::move(by_label), order, false, colours);
    if (!has_figure(chart)) continue;
    by_label.clear(), order.clear();
    curve_series(rule, in_slice(then, axes, slice), nullptr, by_label, order);
    append_run_series(chart, std::move(by_label), order, true, colours);
    if (rule.peak_marker) chart.y_markers = peak_markers(now_slice, rule.metrics.front().metric, run.document);
    if (rule.l2_marker) chart.x_markers = l2_markers(*run.figures);
    out.push_back({suite_of_family(rule.family), std::move(chart)});
  }
}

// A family's slices (notes.series: t_s and what was read at each) as a trace per result.
void trace_series(const RunDocument* document, const TraceRule& rule, bool base_run, std::map<std::string, int>& colours,
                  Chart& chart) {
  if (!document) return;
  const std::string& quantity = rule.quantity;
  for (const BenchResult& r : document->results) {
    if (r.status != Status::kOk || !in_family(r.suite, r.family, rule.family)) continue;
    ChartSeries s;
    s.label = r.params.value("gpu", std::string("gpu")) +
              (r.repetitions > 1 ? ", repetition " + std::to_string(r.repetition_index + 1) : "");
    s.colour = colours.try_emplace(s.label, static_cast<int>(colours.size())).first->second;
    s.base_run = base_run;
    if (base_run) s.label += " (base)";
    for (const TimeSlice& slice : r.series)
      if (const auto value = slice.values.find(quantity); value != slice.values.end())
        s.points.push_back({slice.t_s, value->second, r.name, "", PointMark::kMeasured});
    if (!s.points.empty()) chart.series.push_back(std::move(s));
  }
}

double trace_limit(TraceLimit limit, const GpuInfo& g) {
  switch (limit) {
    case TraceLimit::kMaxSmClock: return static_cast<double>(g.sm_clock_max_mhz);
    case TraceLimit::kPowerLimit: return g.power_limit_w;
  }
  return 0;
}

// A trace chart: one quantity of the slices, and the GPU's limit of it as a reference line.
void trace_charts(const ChartRun& run, const ChartRun* base, std::vector<ReportChart>& out) {
  for (const TraceRule& t : trace_rules()) {
    Chart chart;
    chart.id = t.id;
    chart.title = t.title;
    chart.x_label = "time into the benchmark (s)";
    chart.y_label = t.y_label;
    chart.log_x = chart.log_y = false;
    std::map<std::string, int> colours;
    trace_series(run.document, t, false, colours, chart);
    if (chart.series.empty()) continue;
    trace_series(base ? base->document : nullptr, t, true, colours, chart);
    std::set<double> limits;
    for (const GpuInfo& g : run.figures->gpus)
      if (trace_limit(t.limit, g) > 0) limits.insert(trace_limit(t.limit, g));
    for (double limit : limits)
      chart.y_markers.push_back({t.limit_label + " " + tick_text(limit, AxisFormat::kNumber) + " " + t.unit, limit});
    out.push_back({suite_of_family(t.family), std::move(chart)});
  }
}

std::size_t suite_rank(const std::string& suite) {
  const auto& order = report_suite_order();
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), suite) - order.begin());
}

}  // namespace

const std::vector<std::string>& report_suite_order() {
  static const std::vector<std::string> order = declared_suite_names(false);
  return order;
}

std::vector<ReportChart> report_charts(const ChartRun& run, const ChartRun* base,
                                       const std::map<std::string, std::string>& verdicts) {
  std::vector<ReportChart> out;
  if (!run.figures) return out;
  for (const CurveRule& rule : curve_rules()) curve_charts(rule, run, base, verdicts, out);
  bar_charts(run, base, verdicts, out);
  trace_charts(run, base, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const ReportChart& a, const ReportChart& b) { return suite_rank(a.suite) < suite_rank(b.suite); });
  return out;
}

}  // namespace gpubench
