#include "harness/report/chart_lines.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gpubench {
namespace {

// Where lines may be drawn: the sizes some series of the chart measured (a series without one
// of them has a gap there), the marked sizes (the L2: a cache cliff), and the widest step a
// sweep takes (a step wider skipped sizes nobody measured).
struct Joins {
  std::set<double> measured;
  std::vector<double> cliffs;
  double finest_step = INFINITY;
  bool log = false;
  double step(double a, double b) const { return log ? std::log(b / a) : b - a; }
};

Joins joins_of(const Chart& chart, bool log_x) {
  Joins j;
  j.log = log_x;
  for (const ChartSeries& s : chart.series)
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      j.measured.insert(s.points[i].x);
      if (i > 0 && s.points[i].x > s.points[i - 1].x)
        j.finest_step = std::min(j.finest_step, j.step(s.points[i - 1].x, s.points[i].x));
    }
  for (const ChartMarker& m : chart.x_markers) j.cliffs.push_back(m.value);
  return j;
}

// Sweeps step sizes by 2x or 4x and counts by up to 10x: on a log axis a step over 16x is a hole.
// On a linear axis (time) a step over four times the finest is one.
bool joined(const ChartPoint& a, const ChartPoint& b, const Joins& j) {
  if (a.mark == PointMark::kFailed || b.mark == PointMark::kFailed || !(b.x > a.x)) return false;
  const auto next = j.measured.upper_bound(a.x);
  if (next != j.measured.end() && *next < b.x) return false;
  for (double cliff : j.cliffs)
    if (cliff > a.x && cliff <= b.x) return false;
  const double widest = j.log ? std::log(16.0) : 4 * j.finest_step;
  if (j.step(a.x, b.x) > widest * (1 + 1e-9)) return false;
  const double lo = std::min(a.y, b.y), hi = std::max(a.y, b.y);
  return lo > 0 ? hi <= lo * kCliffFactor : lo == hi;
}

}  // namespace

std::vector<std::vector<std::vector<std::size_t>>> joined_runs(const Chart& chart, bool log_x) {
  const Joins joins = joins_of(chart, log_x);  // once per chart: a history chart has 10 series of 1000 nights
  std::vector<std::vector<std::vector<std::size_t>>> all;
  for (const ChartSeries& series : chart.series) {
    const std::vector<ChartPoint>& points = series.points;
    std::vector<std::vector<std::size_t>> runs;
    std::vector<std::size_t> run;
    auto flush = [&] {
      if (run.size() > 1) runs.push_back(run);
      run.clear();
    };
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (i > 0 && !joined(points[i - 1], points[i], joins)) flush();
      if (points[i].mark != PointMark::kFailed) run.push_back(i);
    }
    flush();
    all.push_back(std::move(runs));
  }
  return all;
}

}  // namespace gpubench
