#pragma once
// Synthetic nightly series for the history tests, with the noise of real runs: the spread of
// committed same-build runs of one H200 (five memory runs of one build, five acceptance runs of
// one build), each figure's nights drawn from its own runs' deviations from their median.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "harness/analysis/history_changes.h"
#include "harness/analysis/judgeable.h"
#include "harness/model/stats.h"

namespace gpubench::testing {

inline const std::string kH200 = std::string(GPUBENCH_SOURCE_DIR) + "/results/h200/";

inline std::vector<std::string> memory_runs() {
  std::vector<std::string> files = {kH200 + "2026-12-01-memory.json"};
  for (int i = 2; i <= 5; ++i) files.push_back(kH200 + "2026-12-01-memory-run" + std::to_string(i) + ".json");
  return files;
}

inline std::vector<std::string> acceptance_runs() {
  std::vector<std::string> files;
  for (int i = 1; i <= 5; ++i) files.push_back(kH200 + "2026-12-02-acceptance-run" + std::to_string(i) + ".json");
  return files;
}

// A figure's level (the median of its runs) and the relative deviations of its runs from it.
struct FigureNoise {
  std::string benchmark, metric, unit;
  bool higher_is_better = true;
  double level = 0;
  std::vector<double> deviations;
};

// The primary figure of every benchmark ok in all of `runs` (judged).
inline std::vector<FigureNoise> figure_noise(const std::vector<ResultFile>& runs) {
  std::vector<FigureNoise> out;
  for (const BenchmarkResult& b : runs.front().benchmarks) {
    const auto metric = b.metrics.find(b.primary_metric);
    if (!b.ok() || metric == b.metrics.end()) continue;
    FigureNoise f{b.name, b.primary_metric, metric->second.unit, metric->second.higher_is_better, 0, {}};
    std::vector<double> values;
    for (const ResultFile& run : runs) {
      const BenchmarkResult* same = run.find(b.name);
      if (!same || !same->ok() || !same->metrics.count(f.metric)) break;
      values.push_back(same->metrics.at(f.metric).median);
    }
    if (values.size() != runs.size()) continue;
    f.level = median_of(values);
    if (!(f.level > 0)) continue;
    for (double v : values) f.deviations.push_back(v / f.level - 1);
    out.push_back(std::move(f));
  }
  return out;
}

inline std::vector<ResultFile> judged_runs(const std::vector<std::string>& files) {
  std::vector<ResultFile> runs;
  for (const std::string& file : files) runs.push_back(load_judged_run(file));
  return runs;
}

// `nights` healthy nights of a figure: its level times one of its runs' deviations, at random.
inline std::vector<double> healthy_nights(const FigureNoise& f, int nights, std::mt19937& random) {
  std::uniform_int_distribution<std::size_t> pick(0, f.deviations.size() - 1);
  std::vector<double> out;
  for (int i = 0; i < nights; ++i) out.push_back(f.level * (1 + f.deviations[pick(random)]));
  return out;
}

// A change for the worse: `fraction` of the level from night `from` on (a step), or `fraction`
// more each night from `from` on (a drift).
inline void worsen_step(const FigureNoise& f, std::vector<double>& nights, int from, double fraction) {
  for (std::size_t i = static_cast<std::size_t>(from); i < nights.size(); ++i)
    nights[i] *= f.higher_is_better ? 1 - fraction : 1 + fraction;
}
inline void worsen_drift(const FigureNoise& f, std::vector<double>& nights, int from, double per_night) {
  for (std::size_t i = static_cast<std::size_t>(from); i < nights.size(); ++i) {
    const double moved = per_night * static_cast<double>(i - static_cast<std::size_t>(from));
    nights[i] *= f.higher_is_better ? 1 - moved : 1 + moved;
  }
}

}  // namespace gpubench::testing
