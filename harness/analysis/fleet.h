#pragma once
// `gpubench compare --fleet RUN.json...`: many nodes or GPUs that should perform alike. For
// every benchmark's primary metric (once: its derived time_us would count each finding twice), the fleet median and each run's deviation from it; runs that are
// worse than the fleet by too much are flagged. This finds the one bad GPU without a baseline.
#include <optional>
#include <string>
#include <vector>

#include "harness/analysis/compare.h"

namespace gpubench {

struct FleetOptions {
  // A run is an outlier when it is worse than the fleet median by more than threshold_pct
  // (per-scope overrides from the tolerances, as in compare) and, with three runs or more, by
  // more than mad_factor median absolute deviations of the fleet: a fleet whose figures all
  // spread that wide has no outlier, only a noisy benchmark.
  double threshold_pct = 5;
  double mad_factor = 3;
  Tolerances tolerances;
};

enum class FleetFlag { kOk, kOutlier, kMissing, kNotOk };
const char* to_string(FleetFlag flag);

struct FleetCell {
  std::optional<double> value;
  double deviation_pct = 0;  // (value - median) / |median| in %, or points (in_points)
  FleetFlag flag = FleetFlag::kOk;
  std::string note;          // status and error when not ok
};

struct FleetRow {
  std::string benchmark, metric, unit;
  bool higher_is_better = true;
  bool in_points = false;  // a percentage metric: deviations and threshold in points
  double median = 0, mad = 0, threshold_pct = 0;
  std::vector<FleetCell> cells;  // one per run, in run order
};

struct FleetReport {
  std::vector<std::string> runs, hosts;  // file paths and host names, in run order
  std::vector<ContextDifference> context;
  std::vector<FleetRow> rows;
  // Why a run cannot be judged (judgeable.h), one line each, in run order.
  std::vector<std::string> unjudgeable;
  int count(FleetFlag flag) const;
  bool failed() const;  // a run that cannot be judged, or any cell flagged: exit 1
};

// The runs as judge_run left them: their reasons are the report's.
FleetReport compare_fleet(const std::vector<ResultFile>& runs, const FleetOptions& options);
std::string render_fleet(const FleetReport& report, const std::string& format);

}  // namespace gpubench
