#pragma once
// Change points in one series of nightly figures (history drift): steps, and drifts with the
// night they began.
//
// The method is binary segmentation (Vostrikova 1981; Scott and Knott 1974) with a permutation
// test, as E-Divisive means does it for MongoDB's performance tests (Daly et al., "The Use of
// Change Point Detection to Identify Software Performance Regressions in a Continuous
// Integration System", ICPE 2020; Matteson and James, JASA 2014), with two models of a change
// in place of E-Divisive's energy distance, so that a drift is told from a step and dated by
// its onset rather than its middle:
//   - a step at night k: the mean before and after differ (least squares, two levels);
//   - a drift from night k: flat up to k, then a straight line (a broken stick, least squares).
// In a segment of the series, the best k of either model is the one that explains the most of
// the segment's variance; its share of the variance is the statistic. It is significant when
// fewer than alpha of the segment's random permutations (the same nights in shuffled order:
// no change) explain as much with their best k. As compare does (DESIGN.md, "Comparator"), a
// change counts only when it is both significant and larger than its threshold (and than 1.5
// times the interquartile range of the nights about it: their own spread): for a step,
// the change of the segments' medians; for a drift, its Theil-Sen slope (Sen 1968) over the
// nights from its onset, times their span up to 30 days (it is reported per 30 days). Each change found splits the segment, and the parts are
// searched again (a drift's nights after its onset are not: they are the drift).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gpubench {

struct ChangeOptions {
  double alpha = 0.05;
  int permutations = 199;        // p is at least 1 / (permutations + 1)
  std::size_t min_segment = 4;   // nights on each side of a step, and in a drift
  std::uint32_t seed = 20201;    // the permutations are pseudo-random, and the same each time
};

enum class ChangeKind { kStep, kDrift };

struct ChangePoint {
  ChangeKind kind = ChangeKind::kStep;
  std::size_t index = 0;   // the first night after a step; the night a drift began
  double before = 0;       // the level before: the median of the nights before (a drift from
                           // the first night: its fitted value there)
  double after = 0;        // a step: the median after; a drift: its fitted value at the last night
  // What is held to the threshold: a step's change, in % of `before` (points for a percentage
  // figure); a drift's fitted change over its nights, or over 30 days where they span more (a
  // slope alone would make a drift over a few hours look like a large one).
  double change = 0;
  double after_fit = 0;    // the level `change` is measured to (a step: `after`)
  double per_30_days = 0;  // a drift: its slope per 30 days, as `change` is measured
  double span_days = 0;    // a drift: from its onset to the last night of its segment
  double p_value = 1;
  bool to_latest = false;  // the change's segment runs to the series' last night
};

// `days`: each night's date in days, increasing; `values`: its figure (finite). `threshold`
// gives, for a level, the smallest change that counts (in % or points, as `in_points`).
std::vector<ChangePoint> find_changes(const std::vector<double>& days, const std::vector<double>& values,
                                      bool in_points, const std::function<double(double)>& threshold,
                                      const ChangeOptions& options = {});

// Theil-Sen: the median of the slopes between every pair of points (with distinct x).
double theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace gpubench
