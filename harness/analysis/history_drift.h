#pragma once
// `gpubench history drift`: the change points of every series of the history (history_changes.h),
// each with the night it happened, its size against its tolerance (tolerances.h, as compare holds
// a change to it), and what changed in the run's context on that night.
#include <string>
#include <vector>

#include "harness/analysis/history_changes.h"
#include "harness/analysis/history_store.h"
#include "harness/analysis/tolerances.h"

namespace gpubench {

struct SeriesChange {
  std::size_t series = 0;  // index into HistoryData::series
  ChangePoint change;
  std::string date;        // the date of the night of the change
  // What differed from the night before in the run's context ("driver 580.65.06 -> 580.95.05;
  // cublas ..."), "" when nothing did. A change's night is an estimate (within about two nights
  // in noisy series), so where its own night has none, the nearest context change within two
  // nights is named with its date: "driver 580.65.06 -> 580.95.05 on 2027-02-10 (1 night
  // earlier)". Firmware is not in the result files, so not here either.
  std::string context;
  double threshold = 0;    // the smallest change that counts, as `change.change` is measured
  bool in_points = false;  // a percentage figure: changes in points
  bool worse = false;      // the figure moved the way that is worse (a lower bandwidth, a longer time)
};

struct DriftReport {
  std::size_t series_examined = 0;  // with enough nights to hold a change (2 x min_segment)
  std::size_t series_total = 0;
  std::vector<SeriesChange> changes;  // by series, then night
  int worse() const;
  // A change for the worse beyond its threshold: exit 1, as a regression is for compare.
  bool failed() const { return worse() > 0; }
};

// `fallback_pct`: the threshold where the tolerances say nothing (compare's 3 %).
DriftReport find_drift(const HistoryData& data, const Tolerances& tolerances, double fallback_pct,
                       const ChangeOptions& options = {});

// The fields of the context that differ between two runs, "field before -> after; ...".
std::string context_change(const HistoryRun& before, const HistoryRun& after);

}  // namespace gpubench
