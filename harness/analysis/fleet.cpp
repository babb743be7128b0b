#include "harness/analysis/fleet.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/analysis/judgeable.h"
#include "harness/model/stats.h"
#include "harness/model/text_table.h"

namespace gpubench {

const char* to_string(FleetFlag flag) {
  switch (flag) {
    case FleetFlag::kOk: return "ok";
    case FleetFlag::kOutlier: return "outlier";
    case FleetFlag::kMissing: return "missing";
    case FleetFlag::kNotOk: return "not_ok";
  }
  return "?";
}

namespace {

// The runs' view of one benchmark name: nullptr where a run lacks it.
std::vector<const BenchmarkResult*> column_of(const std::vector<ResultFile>& runs,
                                              const std::string& name) {
  std::vector<const BenchmarkResult*> out;
  for (const ResultFile& run : runs) out.push_back(run.find(name));
  return out;
}

void flag_outliers(FleetRow& row, const BenchmarkResult& benchmark, const FleetOptions& options) {
  std::vector<double> values;
  for (const FleetCell& c : row.cells)
    if (c.value) values.push_back(*c.value);
  row.median = values.empty() ? 0 : median_of(values);
  row.threshold_pct =
      options.tolerances.threshold_for(benchmark, row.metric, row.median, row.in_points, options.threshold_pct);
  if (values.empty()) return;
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::fabs(v - row.median));
  row.mad = median_of(deviations);
  for (FleetCell& c : row.cells) {
    if (!c.value) continue;
    const double diff = *c.value - row.median;
    c.deviation_pct = change_between(row.median, *c.value, row.in_points);
    if (std::isinf(c.deviation_pct)) c.deviation_pct = 0;  // a fleet median of 0: only MADs tell
    const double worse_pct = row.higher_is_better ? -c.deviation_pct : c.deviation_pct;
    const double worse_abs = row.higher_is_better ? -diff : diff;
    // The MAD rule needs three runs: with two, the median sits halfway and both deviate alike.
    const bool beyond_spread = values.size() < 3 || worse_abs > options.mad_factor * row.mad;
    if (worse_pct > row.threshold_pct && beyond_spread) c.flag = FleetFlag::kOutlier;
  }
}

}  // namespace

FleetReport compare_fleet(const std::vector<ResultFile>& runs, const FleetOptions& options) {
  FleetReport report;
  std::vector<const ResultFile*> pointers;
  std::vector<std::string> names;  // union of benchmark names, first-appearance order
  std::map<std::string, bool> seen;
  for (const ResultFile& run : runs) {
    report.runs.push_back(run.path);
    report.hosts.push_back(run.host_name);
    pointers.push_back(&run);
    for (const BenchmarkResult& b : run.benchmarks)
      if (!seen[b.name]) {
        seen[b.name] = true;
        names.push_back(b.name);
      }
  }
  report.context = context_differences(pointers);
  report.unjudgeable = unjudgeable_lines(pointers);
  for (const std::string& name : names) {
    const auto column = column_of(runs, name);
    const bool all_skipped = std::all_of(column.begin(), column.end(), [](const auto* b) {
      return b && b->status == Status::kSkipped;
    });
    // The primary metric and its direction from the first run that measured it.
    const BenchmarkResult* any = nullptr;
    const MetricResult* measured = nullptr;
    std::string primary;
    for (const BenchmarkResult* b : column) {
      if (!b) continue;
      any = any ? any : b;
      if (primary.empty()) primary = b->primary_metric;
      auto it = b->metrics.find(b->primary_metric);
      if (!measured && it != b->metrics.end()) {
        measured = &it->second;
        primary = it->first;
      }
    }
    FleetRow row;
    row.benchmark = name;
    row.metric = primary.empty() ? "-" : primary;
    if (measured) {
      row.unit = measured->unit;
      row.higher_is_better = measured->higher_is_better;
    }
    row.in_points = is_percentage_metric(row.metric, row.unit);
    for (const BenchmarkResult* b : column) {
      FleetCell cell;
      if (!b) {
        cell.flag = FleetFlag::kMissing;
      } else if (!b->ok()) {
        cell.flag = all_skipped ? FleetFlag::kOk : FleetFlag::kNotOk;
        cell.note = to_string(b->status) + (b->error.empty() ? "" : ": " + b->error);
      } else if (auto it = b->metrics.find(row.metric); it != b->metrics.end()) {
        cell.value = it->second.median;
      } else {
        cell.flag = FleetFlag::kMissing;
        cell.note = "metric absent";
      }
      row.cells.push_back(cell);
    }
    flag_outliers(row, *any, options);
    report.rows.push_back(std::move(row));
  }
  return report;
}

int FleetReport::count(FleetFlag flag) const {
  int n = 0;
  for (const FleetRow& row : rows)
    for (const FleetCell& c : row.cells) n += c.flag == flag;
  return n;
}

bool FleetReport::failed() const {
  return !unjudgeable.empty() ||
         count(FleetFlag::kOutlier) + count(FleetFlag::kMissing) + count(FleetFlag::kNotOk) > 0;
}

namespace {

nlohmann::json fleet_json(const FleetReport& report) {
  nlohmann::json out = {{"schema", "gpubench-fleet/1"}, {"runs", report.runs},
                        {"hosts", report.hosts}, {"failed", report.failed()},
                        {"unjudgeable", report.unjudgeable}};
  out["context_differences"] = nlohmann::json::array();
  for (const ContextDifference& d : report.context)
    out["context_differences"].push_back({{"field", d.field}, {"values", d.values}});
  out["summary"] = {{"outlier", report.count(FleetFlag::kOutlier)},
                    {"missing", report.count(FleetFlag::kMissing)},
                    {"not_ok", report.count(FleetFlag::kNotOk)}};
  out["rows"] = nlohmann::json::array();
  for (const FleetRow& row : report.rows) {
    nlohmann::json cells = nlohmann::json::array();
    for (const FleetCell& c : row.cells)
      cells.push_back({{"value", c.value ? nlohmann::json(*c.value) : nlohmann::json()},
                       {"deviation_pct", c.deviation_pct}, {"flag", to_string(c.flag)},
                       {"note", c.note}});
    out["rows"].push_back({{"benchmark", row.benchmark}, {"metric", row.metric},
                           {"unit", row.unit}, {"better", row.higher_is_better ? "higher" : "lower"},
                           {"median", row.median}, {"mad", row.mad},
                           {"threshold_pct", row.threshold_pct}, {"runs", cells}});
  }
  return out;
}

}  // namespace

std::string render_fleet(const FleetReport& report, const std::string& format) {
  if (format == "json") return fleet_json(report).dump(2) + "\n";
  const bool md = format == "md";
  auto render = [md](const TextTable& t) { return md ? t.to_markdown() : t.to_text(); };
  std::string out = std::string(md ? "### " : "") + "Fleet of " + std::to_string(report.runs.size()) +
                    " runs\n\n" + render_unjudgeable(report.unjudgeable, md) +
                    render_context(report.context, report.runs, md) + "\n";
  // Per run: how many flags and its worst deviation in the bad direction, so that the bad
  // node stands out even before reading the detail.
  TextTable runs{{"run", "host", "flagged", "worst"}, {}, {false, false, true, true}};
  TextTable flagged{{"benchmark", "metric", "run", "value", "fleet median", "deviation", "flag", "note"},
                    {}, {false, false, false, true, true, true, false, false}};
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    int flags = 0;
    double worst = 0;
    for (const FleetRow& row : report.rows) {
      const FleetCell& c = row.cells[r];
      const double worse = row.higher_is_better ? -c.deviation_pct : c.deviation_pct;
      if (!row.in_points) worst = std::max(worst, worse);
      if (c.flag == FleetFlag::kOk) continue;
      ++flags;
      flagged.rows.push_back({row.benchmark, row.metric, report.runs[r],
                              c.value ? format_number(*c.value) : "-", format_number(row.median),
                              c.value ? format_change(c.deviation_pct, row.in_points) : "-",
                              to_string(c.flag), c.note});
    }
    runs.rows.push_back({report.runs[r], report.hosts[r].empty() ? "-" : report.hosts[r],
                         std::to_string(flags), worst > 0 ? format_number(worst, 3) + "% worse" : "-"});
  }
  out += render(runs) + "\n";
  if (!flagged.rows.empty()) out += render(flagged) + "\n";
  out += "fleet: " + std::to_string(report.rows.size()) + " metrics x " +
         std::to_string(report.runs.size()) + " runs: " +
         std::to_string(report.count(FleetFlag::kOutlier)) + " outlier, " +
         std::to_string(report.count(FleetFlag::kMissing)) + " missing, " +
         std::to_string(report.count(FleetFlag::kNotOk)) + " not ok" + unjudgeable_note(report.unjudgeable) +
         "\n";
  return out;
}

}  // namespace gpubench
