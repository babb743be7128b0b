#include "harness/report/chart_bars.h"

#include <algorithm>
#include <cmath>

#include "harness/report/chart_rules.h"
#include "harness/report/chart_select.h"

namespace gpubench {
namespace {

// Per category and series, the best figure and the benchmark it came from.
struct BestFigures {
  std::vector<std::string> series_order;
  std::map<std::string, std::map<std::string, ChartPoint>> best;  // series -> category -> point
};

BestFigures best_figures(const BarRule& rule, const std::vector<const BenchmarkResult*>& results,
                         std::vector<std::string>& categories, const std::map<std::string, std::string>* verdicts) {
  BestFigures out;
  for (const BenchmarkResult* b : results) {
    const auto it = b->metrics.find(rule.metric);
    if (it == b->metrics.end() || !std::isfinite(it->second.median)) continue;
    const std::string category = param_or(*b, rule.category);
    if (std::find(categories.begin(), categories.end(), category) == categories.end()) categories.push_back(category);
    const std::string series = rule.series_param.empty() ? "measured" : rule.series_param + ":" + param_or(*b, rule.series_param);
    if (!out.best.count(series)) out.series_order.push_back(series);
    ChartPoint& p = out.best[series][category];
    if (p.name.empty() || it->second.median > p.y)
      p = {0, it->second.median, b->name, verdict_of(verdicts, b->name), PointMark::kMeasured};
  }
  return out;
}

void append_bar_series(Chart& chart, const BestFigures& figures, const std::vector<std::string>& categories,
                       bool base_run, std::map<std::string, int>& colours) {
  for (const std::string& label : figures.series_order) {
    ChartSeries s;
    s.label = label + (base_run ? " (base)" : "");
    s.colour = colours.try_emplace(label, static_cast<int>(colours.size())).first->second;
    s.base_run = base_run;
    for (const auto& [category, point] : figures.best.at(label)) {
      ChartPoint p = point;
      p.x = static_cast<double>(std::find(categories.begin(), categories.end(), category) - categories.begin());
      s.points.push_back(p);
    }
    std::sort(s.points.begin(), s.points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    chart.series.push_back(std::move(s));
  }
}

// The context's datasheet rate of a precision ("fp8_e4m3" is an fp8 rate), where a result
// records no peak of its own; 0 when the table has none.
double datasheet_tflops(const ResultFile& run, const std::string& precision) {
  double rate = 0;
  for (const GpuInfo& g : run.gpus)
    for (const std::string& name : {precision, precision.substr(0, precision.find('_'))})
      if (const auto it = g.tflops_peak.find(name); it != g.tflops_peak.end()) {
        rate = std::max(rate, it->second);
        break;
      }
  return rate;
}

void bar_chart(const BarRule& rule, const ChartRun& run, const ChartRun* base, const std::map<std::string, std::string>& verdicts,
               std::vector<ReportChart>& out) {
  const auto now = select(run.figures, rule.family, rule.fixed, rule.category);
  const auto then = select(base ? base->figures : nullptr, rule.family, rule.fixed, rule.category);
  Chart chart;
  chart.id = rule.id;
  chart.title = rule.title;
  chart.kind = ChartKind::kBar;
  chart.x_label = rule.x_label;
  chart.y_label = rule.y_label;
  const BestFigures mine = best_figures(rule, now, chart.categories, &verdicts);
  if (mine.series_order.empty()) return;
  const BestFigures theirs = best_figures(rule, then, chart.categories, nullptr);
  std::map<std::string, int> colours;
  append_bar_series(chart, mine, chart.categories, false, colours);
  append_bar_series(chart, theirs, chart.categories, true, colours);
  if (run.figures)
    for (const BenchmarkResult& b : run.figures->benchmarks)
      if (!b.ok() && in_family(b.suite, b.family, rule.family) && holds_fixed(b, rule.fixed) &&
          b.params.count(rule.category) &&
          std::find(chart.categories.begin(), chart.categories.end(), b.params.at(rule.category)) ==
              chart.categories.end())
        chart.categories.push_back(b.params.at(rule.category));
  chart.category_notes.assign(chart.categories.size(), "");
  for (std::size_t c = 0; c < chart.categories.size(); ++c)
    if (std::none_of(now.begin(), now.end(), [&](auto* b) { return param_or(*b, rule.category) == chart.categories[c]; }))
      chart.category_notes[c] = "no figure: not ok";
  ChartSeries peak{"datasheet peak", {}, kReferenceColour, false};
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    double best = 0;
    for (const BenchmarkResult* b : now)
      if (param_or(*b, rule.category) == chart.categories[c] && b->peak && b->primary_metric == rule.metric)
        best = std::max(best, *b->peak);
    if (best <= 0) best = datasheet_tflops(*run.figures, chart.categories[c]);
    if (best > 0) peak.points.push_back({static_cast<double>(c), best, "datasheet peak, " + chart.categories[c], "", PointMark::kMeasured});
  }
  if (!peak.points.empty()) chart.series.push_back(std::move(peak));
  out.push_back({suite_of_family(rule.family), std::move(chart)});
}

}  // namespace

void bar_charts(const ChartRun& run, const ChartRun* base, const std::map<std::string, std::string>& verdicts,
                std::vector<ReportChart>& out) {
  for (const BarRule& rule : bar_rules()) bar_chart(rule, run, base, verdicts, out);
}

}  // namespace gpubench
