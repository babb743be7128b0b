#pragma once
// Which results of a run go into which chart of the HTML report, and as which series: the
// transfer paths against size, HBM bandwidth and latency against working set (the L2 marked),
// launch cost of streams and graphs against N, GEMM and conv TFLOP/s per precision beside the
// datasheet peak, attention fused and unfused, collective bandwidth against size, and the
// sustained GEMM's clock and power trace. A curve rule makes one small chart per parameter
// slice (chart_rules.h). Only ok results are figures; one that ran and failed is a cross at its
// x, a throttled one a triangle; a chart with no figure in the run is not made. With a base
// run, its curves join each chart (drawn dashed).
#include <map>
#include <string>
#include <vector>

#include "harness/model/result_file.h"
#include "harness/model/run_document.h"
#include "harness/report/svg_chart.h"

namespace gpubench {

struct ReportChart {
  std::string suite;  // the section of the page it belongs to
  Chart chart;
};

// One run as the charts read it: its figures with repetitions merged, and the document itself
// for what only the repetitions carry (the sustained GEMM's time series in its notes).
struct ChartRun {
  const ResultFile* figures = nullptr;
  const RunDocument* document = nullptr;
};

// The suites in the order the page shows them (their declarations' rank); a suite not declared
// comes after them.
const std::vector<std::string>& report_suite_order();

// `verdicts`: compare's verdict of each benchmark of `run` whose comparison is not "same"
// (regressed, improved, ...), drawn ringed. `base` may be null. Charts come in a fixed order
// (suite by suite); a base run adds no chart of its own.
std::vector<ReportChart> report_charts(const ChartRun& run, const ChartRun* base,
                                       const std::map<std::string, std::string>& verdicts = {});

}  // namespace gpubench
