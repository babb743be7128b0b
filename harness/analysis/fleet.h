#pragma once
// `gpubench compare --fleet RUN.json...`: many nodes or GPUs that should perform alike. For
// every benchmark and metric, the fleet median and each run's deviation from it; runs that are
// worse than the fleet by too much are flagged. This finds the one bad GPU without a baseline.
#include <optional>
#include <string>
#include <vector>

#include "harness/analysis/compare.h"

namespace gpubench {

struct FleetOptions {
  // A run is an outlier when it is worse than the fleet median by more than threshold_pct
  // (per-scope overrides from the tolerances), or by more than mad_factor median absolute
  // deviations of the fleet, provided that is also more than mad_min_pct: without that floor
  // a fleet of near-identical GPUs (MAD ~ 0) would flag differences of a few tenths of a percent.
  double threshold_pct = 5;
  double mad_factor = 3;
  double mad_min_pct = 1;
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
  int count(FleetFlag flag) const;
  bool failed() const;  // any cell flagged: exit 1
};

FleetReport compare_fleet(const std::vector<ResultFile>& runs, const FleetOptions& options);
std::string render_fleet(const FleetReport& report, const std::string& format);

}  // namespace gpubench
