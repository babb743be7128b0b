#include "harness/cli/history_render.h"

#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "harness/analysis/compare.h"
#include "harness/report/svg_chart.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

// The shortest text that reads back as the same double: CSV and JSON carry plain numbers.
std::string exact(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

void append_csv_field(std::string& out, const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) c == '"' ? void(out += "\"\"") : void(out += c);
  out += '"';
}

// A UUID is long: a table shows its first 12 characters ("GPU-1512e1e2"), enough to tell GPUs
// apart; "any" for a series per host.
std::string short_uuids(const std::string& uuids) {
  std::string out, part;
  auto flush = [&] { out += (out.empty() ? "" : ",") + part.substr(0, 12); part.clear(); };
  for (char c : uuids) c == ',' ? flush() : void(part += c);
  flush();
  return out.empty() ? "any" : out;
}

std::string render_table(const HistoryData& data) {
  TextTable table{{"host", "benchmark", "metric", "gpu", "nights", "first", "latest", "first figure", "latest figure",
                   "change", "noise"},
                  {}, {false, false, false, false, true, false, false, true, true, true, true}};
  for (const HistorySeries& s : data.series) {
    const HistoryPoint &first = s.points.front(), &last = s.points.back();
    const bool points = is_percentage_metric(s.metric, s.unit);
    table.rows.push_back({printable(s.host), printable(s.name), printable(s.metric), printable(short_uuids(s.gpu_uuid)), std::to_string(s.points.size()),
                          printable(data.runs[first.run].date.substr(0, 10)), printable(data.runs[last.run].date.substr(0, 10)),
                          format_number(first.median) + " " + printable(s.unit),
                          format_number(last.median) + " " + printable(s.unit),
                          format_change(change_between(first.median, last.median, points), points),
                          "±" + format_number(last.noise_pct, 2) + "%"});
  }
  return table.to_text() + std::to_string(data.series.size()) + " series from " +
         std::to_string(data.runs.size()) + " runs.\n";
}

std::string render_csv(const HistoryData& data) {
  std::string out = "host,date,benchmark,gpu_uuid,metric,unit,better,median,noise_pct,samples,gpubench,git_commit,"
                    "driver,cuda_runtime,cublas,cudnn,nccl\n";
  std::size_t rows = 0;
  for (const HistorySeries& s : data.series) rows += s.points.size();
  out.reserve(out.size() + 320 * rows);  // over a row's length: grown by doubling, 56 MB were copied twice over
  for (const HistorySeries& s : data.series)
    for (const HistoryPoint& p : s.points) {
      const HistoryRun& r = data.runs[p.run];
      for (const std::string* field : {&s.host, &r.date, &s.name, &s.gpu_uuid, &s.metric, &s.unit}) {
        append_csv_field(out, *field);
        out += ',';
      }
      out += s.higher_is_better ? "higher," : "lower,";
      out += exact(p.median);
      out += ',';
      out += exact(p.noise_pct);
      out += ',';
      out += std::to_string(p.samples);
      for (const std::string* field : {&r.version, &r.git_commit, &r.driver, &r.cuda_runtime, &r.cublas, &r.cudnn, &r.nccl}) {
        out += ',';
        append_csv_field(out, *field);
      }
      out += '\n';
    }
  return out;
}

nlohmann::json run_json(const HistoryRun& r) {
  return {{"host", r.host}, {"date", r.date}, {"complete", r.complete}, {"gpubench", r.version},
          {"git_commit", r.git_commit}, {"command_line", r.command_line}, {"driver", r.driver},
          {"cuda_driver", r.cuda_driver}, {"cuda_runtime", r.cuda_runtime}, {"cublas", r.cublas},
          {"cudnn", r.cudnn}, {"nccl", r.nccl}, {"gpu_models", r.gpu_models}, {"gpu_uuids", r.gpu_uuids},
          {"health", r.health}, {"source", r.source}};
}

nlohmann::json series_key(const HistorySeries& s) {
  return {{"host", s.host}, {"benchmark", s.name}, {"gpu_uuid", s.gpu_uuid}, {"metric", s.metric},
          {"unit", s.unit}, {"better", s.higher_is_better ? "higher" : "lower"}};
}

// Written as it goes rather than built as one document: 1000 nights of 2000 series are 200 000
// points, whose DOM alone took a second. The keys and strings are nlohmann's to escape.
std::string render_json(const HistoryData& data) {
  std::string out = "{\n \"schema\": \"gpubench-history/1\",\n \"runs\": [";
  for (std::size_t i = 0; i < data.runs.size(); ++i) {
    nlohmann::json run = run_json(data.runs[i]);
    run["index"] = i;
    out += (i ? ",\n  " : "\n  ") + run.dump();
  }
  out += "\n ],\n \"series\": [";
  for (std::size_t i = 0; i < data.series.size(); ++i) {
    const HistorySeries& s = data.series[i];
    std::string key = series_key(s).dump();
    key.pop_back();  // the closing brace: "nights" follows
    out += (i ? ",\n  " : "\n  ") + key + ",\"nights\":[";
    for (std::size_t p = 0; p < s.points.size(); ++p) {
      const HistoryPoint& point = s.points[p];
      out += (p ? ",\n   " : "\n   ") + std::string("{\"run\":") + std::to_string(point.run) +
             ",\"date\":" + nlohmann::json(data.runs[point.run].date).dump() +
             ",\"median\":" + nlohmann::json(point.median).dump() +
             ",\"noise_pct\":" + nlohmann::json(point.noise_pct).dump() +
             ",\"samples\":" + nlohmann::json(point.samples).dump() + "}";
    }
    out += "]}";
  }
  out += "\n ]\n}\n";
  return out;
}

}  // namespace

std::string render_history(const HistoryData& data, const std::string& format) {
  if (format == "csv") return render_csv(data);
  if (format == "json") return render_json(data);
  return render_table(data);
}

namespace {

constexpr const char* kPageStyle =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1220px;padding:0 16px 40px;color:#1b1f24}"
    "h1{font-size:22px}p.meta{color:#57606a;margin:2px 0}"
    "div.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:6px 18px}"
    "svg.chart{display:block;margin:8px 0 12px;width:100%;height:auto;font-size:12px;background:#fff}"
    "svg.chart .chart-title{font-size:13px;font-weight:600}svg.chart .chart-subtitle{font-size:12px;fill:#57606a}"
    "svg.chart .grid{stroke:#e6e8eb}svg.chart .frame{stroke:#8c959f}svg.chart .axis-label{font-size:12px;fill:#333}"
    "svg.chart .marker line{stroke:#6e7781;stroke-dasharray:3 3}svg.chart .marker text{fill:#57606a;font-size:11px}";

std::string series_label(const HistorySeries& s) { return s.host + " " + short_uuids(s.gpu_uuid); }

std::string change_text(const SeriesChange& c) {
  const std::string size = format_change(c.change.change, c.in_points);
  if (c.change.kind == ChangeKind::kStep) return "step " + size;
  const std::string slope = "drift " + format_change(c.change.per_30_days, c.in_points) + " per 30 days";
  return c.change.span_days >= 30 ? slope
                                  : slope + " (" + size + " in " + format_number(c.change.span_days, 2) + " days)";
}

}  // namespace

namespace {

using Rings = std::map<std::size_t, std::map<std::size_t, std::string>>;  // series -> point -> verdict

// The series of one figure (benchmark and metric), one line per node and GPU.
struct FigureSeries {
  std::size_t number = 0;  // in order of first appearance: the chart's id
  std::vector<std::size_t> series;
};

Chart figure_chart(const HistoryData& data, const FigureSeries& figure, const Rings& rings) {
  const double origin = data.runs.front().time;
  const HistorySeries& first = data.series[figure.series.front()];
  Chart chart;
  chart.id = "history-" + std::to_string(figure.number);
  chart.title = first.name;
  chart.subtitle = first.metric;
  chart.x_label = "days since " + data.runs.front().date.substr(0, 10);
  chart.y_label = first.metric + " (" + first.unit + ")";
  chart.log_x = chart.log_y = false;
  for (const std::size_t i : figure.series) {
    const HistorySeries& s = data.series[i];
    ChartSeries line{series_label(s), {}, static_cast<int>(chart.series.size()), false};
    line.points.reserve(s.points.size());
    const auto ringed = rings.find(i);
    for (std::size_t p = 0; p < s.points.size(); ++p) {
      const HistoryRun& run = data.runs[s.points[p].run];
      ChartPoint point{(run.time - origin) / 86400, s.points[p].median, run.date + " " + s.host, "", PointMark::kMeasured};
      if (ringed != rings.end())
        if (auto r = ringed->second.find(p); r != ringed->second.end()) point.verdict = r->second;
      line.points.push_back(std::move(point));
    }
    chart.series.push_back(std::move(line));
  }
  return chart;
}

}  // namespace

std::string render_history_html(const HistoryData& data, const DriftReport& drift) {
  Rings rings;
  for (const SeriesChange& c : drift.changes) rings[c.series][c.change.index] = c.worse ? "regressed" : "improved";
  const std::string first_day = data.runs.empty() ? "-" : data.runs.front().date.substr(0, 10);
  // A chart per figure, each built and rendered in turn: 1000 nights of 2000 series held as
  // charts all at once were 100 MB.
  std::map<std::pair<std::string, std::string>, FigureSeries> figures;
  for (std::size_t i = 0; i < data.series.size(); ++i) {
    FigureSeries& figure = figures[{data.series[i].name, data.series[i].metric}];
    if (figure.series.empty()) figure.number = figures.size();
    figure.series.push_back(i);
  }
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpubench history</title><style>" +
                    std::string(kPageStyle) + "</style></head><body>\n<h1>gpubench history</h1>\n";
  out += "<p class=\"meta\">" + std::to_string(data.series.size()) + " series from " + std::to_string(data.runs.size()) +
         " runs, " + xml_escape(first_day) + " to " +
         xml_escape(data.runs.empty() ? "-" : data.runs.back().date.substr(0, 10)) +
         ". Ringed: the nights of the changes that history drift finds (red for the worse).</p>\n";
  for (const SeriesChange& c : drift.changes) {
    const HistorySeries& s = data.series[c.series];
    out += "<p class=\"meta\">" + xml_escape(c.date.substr(0, 10) + " " + series_label(s) + " " + s.name + " " + s.metric +
                                             ": " + change_text(c) + (c.context.empty() ? "" : " (" + c.context + ")")) +
           "</p>\n";
  }
  std::size_t points = 0;
  for (const HistorySeries& s : data.series) points += s.points.size();
  out.reserve(out.size() + 160 * points + 4096 * figures.size());  // about what a point and a chart take
  out += "<div class=\"charts\">\n";
  for (const auto& [key, figure] : figures) {
    out += render_svg(figure_chart(data, figure, rings));
    out += '\n';
  }
  out += "</div></body></html>\n";
  return out;
}

std::string drift_summary(const DriftReport& drift, std::size_t min_nights) {
  int steps = 0, drifts = 0, latest = 0;
  for (const SeriesChange& c : drift.changes) {
    (c.change.kind == ChangeKind::kStep ? steps : drifts) += 1;
    if (c.change.kind == ChangeKind::kDrift && c.change.to_latest) ++latest;
  }
  auto plural = [](int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  return "drift: " + std::to_string(drift.series_total) + " series (" + std::to_string(drift.series_examined) + " with " +
         std::to_string(min_nights) + " nights or more), " + plural(steps, "step", "steps") + ", " +
         plural(drifts, "drift", "drifts") + " (" + std::to_string(latest) + " to the latest night), " +
         std::to_string(drift.worse()) + " for the worse -> " + (drift.failed() ? "FAIL" : "ok") + "\n";
}

std::string render_drift(const HistoryData& data, const DriftReport& drift, const std::string& format,
                         std::size_t min_nights) {
  if (format == "json") {
    nlohmann::json out = {{"schema", "gpubench-history-drift/1"}, {"series", drift.series_total},
                          {"series_examined", drift.series_examined}, {"failed", drift.failed()},
                          {"changes", nlohmann::json::array()}};
    for (const SeriesChange& c : drift.changes) {
      nlohmann::json row = series_key(data.series[c.series]);
      row.update({{"kind", c.change.kind == ChangeKind::kStep ? "step" : "drift"}, {"date", c.date},
                  {"night", c.change.index}, {"before", c.change.before}, {"after", c.change.after},
                  {"change", c.change.change}, {"per_30_days", c.change.per_30_days}, {"span_days", c.change.span_days},
                  {"in_points", c.in_points}, {"threshold", c.threshold}, {"p_value", c.change.p_value},
                  {"to_latest", c.change.to_latest}, {"worse", c.worse}, {"context_change", c.context}});
      out["changes"].push_back(std::move(row));
    }
    return out.dump(2) + "\n";
  }
  TextTable table{{"night", "host", "benchmark", "metric", "gpu", "change", "before", "after", "threshold", "p", "verdict",
                   "context change that night"},
                  {}, {false, false, false, false, false, true, true, true, true, true, false, false}};
  for (const SeriesChange& c : drift.changes) {
    const HistorySeries& s = data.series[c.series];
    table.rows.push_back({printable(c.date.substr(0, 10)), printable(s.host), printable(s.name), printable(s.metric),
                          printable(short_uuids(s.gpu_uuid)), change_text(c), format_number(c.change.before),
                          format_number(c.change.after),
                          format_number(c.threshold, 2) + (c.in_points ? " pt" : "%"),
                          format_p_value(c.change.p_value),
                          std::string(c.worse ? "worse" : "better") + (c.change.to_latest && c.change.kind == ChangeKind::kDrift
                                                                           ? ", continues" : ""),
                          c.context.empty() ? "-" : printable(c.context)});
  }
  return (table.rows.empty() ? "" : table.to_text() + "\n") + drift_summary(drift, min_nights);
}

}  // namespace gpubench
