#pragma once
// The report's bar charts (chart_rules.h's BarRule): a family's best figure per precision
// beside the datasheet rate of each, with the precisions that gave no figure named.
#include <map>
#include <string>
#include <vector>

#include "harness/report/chart_data.h"

namespace gpubench {

// Appends one chart per bar rule that has a figure in `run`; `base` (may be null) adds pale
// bars, `verdicts` rings the benchmarks compare judged not the same.
void bar_charts(const ChartRun& run, const ChartRun* base, const std::map<std::string, std::string>& verdicts,
                std::vector<ReportChart>& out);

}  // namespace gpubench
