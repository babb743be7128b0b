#pragma once
// The charts of the HTML report as data (chart_data.cpp draws them from a run): which family,
// which metric against which axis, which axes make the series, which are held fixed, and what
// reference lines a chart carries. Adding a chart for a new suite is adding a rule here.
#include <map>
#include <string>
#include <vector>

#include "harness/report/svg_chart.h"

namespace gpubench {

struct SeriesMetric {
  std::string metric, label;  // label: empty when the chart plots one metric
};

// A family's metric against one of its axes, as small charts: the `series` axes (a handful of
// values between them) tell the curves of a chart apart, and every other axis that varies in
// the run makes a chart per combination of its values (a parameter slice).
struct CurveRule {
  std::string id, suite, title, family, x_param, x_label, y_label;
  std::vector<SeriesMetric> metrics;
  std::map<std::string, std::string> fixed;  // axes held at one value where the family has them
  std::vector<std::string> series;
  AxisFormat x_format = AxisFormat::kBytes;
  bool peak_marker = false, l2_marker = false;
  std::string unless;  // left out when a chart of this id was made (a figure's fallback)
};

// A family's best figure per category (precision), beside the datasheet peak of each.
struct BarRule {
  std::string id, suite, title, family, category, series_param, metric, x_label, y_label;
  std::map<std::string, std::string> fixed;
};

const std::vector<CurveRule>& curve_rules();
// Bus bandwidth per collective, and the algorithm bandwidth where a run has no bus figure.
const std::vector<CurveRule>& collective_rules();
const std::vector<BarRule>& bar_rules();

}  // namespace gpubench
