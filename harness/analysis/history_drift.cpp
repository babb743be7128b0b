#include "harness/analysis/history_drift.h"

#include <algorithm>
#include <cstdlib>

#include "harness/analysis/compare.h"
#include "harness/analysis/gpu_names.h"

namespace gpubench {
namespace {

// What the tolerances look a figure up by: its name, suite and "suite/family".
BenchmarkResult tolerance_key(const HistorySeries& s) {
  BenchmarkResult b;
  b.name = s.name;
  const std::vector<std::string> parts = name_components(s.name);
  if (!parts.empty()) b.suite = parts[0];
  if (parts.size() > 1) b.family = parts[0] + "/" + parts[1];
  return b;
}

}  // namespace

int DriftReport::worse() const {
  return static_cast<int>(std::count_if(changes.begin(), changes.end(), [](const SeriesChange& c) { return c.worse; }));
}

std::string context_change(const HistoryRun& before, const HistoryRun& after) {
  const std::pair<const char*, std::string HistoryRun::*> fields[] = {
      {"driver", &HistoryRun::driver},       {"CUDA driver", &HistoryRun::cuda_driver},
      {"CUDA runtime", &HistoryRun::cuda_runtime}, {"cuBLAS", &HistoryRun::cublas},
      {"cuDNN", &HistoryRun::cudnn},         {"NCCL", &HistoryRun::nccl},
      {"gpubench", &HistoryRun::version},    {"gpubench commit", &HistoryRun::git_commit},
      {"GPU", &HistoryRun::gpu_models},      {"GPU UUID", &HistoryRun::gpu_uuids},
      {"health", &HistoryRun::health}};
  std::string out;
  for (const auto& [label, field] : fields) {
    const std::string &a = before.*field, &b = after.*field;
    if (a == b) continue;
    out += (out.empty() ? "" : "; ") + std::string(label) + " " + (a.empty() ? "-" : a) + " -> " + (b.empty() ? "-" : b);
  }
  return out;
}

namespace {

// How far from a change's estimated night a context change is still named beside it: the
// dating precision of history_changes.h in series as noisy as the committed runs.
constexpr int kContextRadius = 2;

// The context change nearest the `index`th night of the series (that night's first), "" if none.
std::string context_near(const HistoryData& data, const HistorySeries& s, std::size_t index) {
  const int n = static_cast<int>(s.points.size()), at = static_cast<int>(index);
  for (int step = 0; step <= 2 * kContextRadius; ++step) {  // offsets 0, -1, +1, -2, +2: nearest first
    const int offset = step % 2 ? -(step + 1) / 2 : step / 2;
    const int night = at + offset;
    if (night < 1 || night >= n) continue;
    const HistoryRun& run = data.runs[s.points[static_cast<std::size_t>(night)].run];
    const std::string change = context_change(data.runs[s.points[static_cast<std::size_t>(night) - 1].run], run);
    if (change.empty()) continue;
    if (offset == 0) return change;
    const int nights = std::abs(offset);
    return change + " on " + run.date.substr(0, 10) + " (" + std::to_string(nights) + (nights == 1 ? " night " : " nights ") +
           (offset < 0 ? "earlier" : "later") + ")";
  }
  return "";
}

}  // namespace

DriftReport find_drift(const HistoryData& data, const Tolerances& tolerances, double fallback_pct,
                       const ChangeOptions& options) {
  DriftReport report;
  report.series_total = data.series.size();
  for (std::size_t i = 0; i < data.series.size(); ++i) {
    const HistorySeries& s = data.series[i];
    if (s.points.size() < 2 * options.min_segment) continue;
    ++report.series_examined;
    std::vector<double> days, values;
    const double first = data.runs[s.points.front().run].time;
    for (const HistoryPoint& p : s.points) {
      days.push_back((data.runs[p.run].time - first) / 86400);
      values.push_back(p.median);
    }
    const bool points = is_percentage_metric(s.metric, s.unit);
    const BenchmarkResult key = tolerance_key(s);
    const auto threshold = [&](double level) {
      return tolerances.threshold_for(key, s.metric, level, points, fallback_pct);
    };
    for (const ChangePoint& c : find_changes(days, values, points, threshold, options)) {
      SeriesChange out{i, c, data.runs[s.points[c.index].run].date, "", threshold(c.before), points,
                       (c.change < 0) == s.higher_is_better};
      out.context = context_near(data, s, c.index);
      report.changes.push_back(std::move(out));
    }
  }
  return report;
}

}  // namespace gpubench
