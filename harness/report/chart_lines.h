#pragma once
// Which points of a line chart's series a line joins (svg_chart.cpp draws them). A marker
// stands at every measured value; a line only between two consecutive points with nothing
// unmeasured or no cliff between them, so that no figure is drawn that was never seen.
#include <cstddef>
#include <vector>

#include "harness/report/svg_chart.h"

namespace gpubench {

// Two consecutive points of a series are joined only where their figures differ by no more than
// this. A sweep steps by 2x or 4x in size; a figure that moves more than 2x in one step crossed
// a regime (the L2 to HBM cliff: 2.5 to 3x in bandwidth on an H200, a launch cost amortised)
// that nothing measured resolves, and a line would draw figures in between that were never seen.
constexpr double kCliffFactor = 2;

// For each series of the chart, the runs of indices into its points, each of two or more
// points to join with one line. Consecutive points are joined where both have a figure, no series of the chart
// measured (or failed) an x between them (a gap), no x marker lies between them (the L2 size:
// a cache cliff), the step is one a sweep takes (`log_x`: at most 16x; linear: at most four
// times the chart's finest step), and the figures are within kCliffFactor of each other.
std::vector<std::vector<std::vector<std::size_t>>> joined_runs(const Chart& chart, bool log_x);

}  // namespace gpubench
