// A check report as Prometheus gauges: the verdict, the count of lines per result, and each
// line's result with its figure and margin, for alerting on a node that stopped passing.
#include "harness/analysis/check.h"
#include "harness/model/prometheus.h"

namespace gpubench {

std::string check_prometheus(const CheckReport& report) {
  PrometheusText out;
  const PromLabels run = {{"baseline", report.baseline_path}, {"run", report.run_path}};
  out.gauge("gpubench_check_ok", "1 when the node passed its check (exit 0), 0 when it failed (exit 1)", run,
            report.failed() ? 0 : 1);
  for (LineResult l : {LineResult::kPass, LineResult::kWarn, LineResult::kFail, LineResult::kMissing,
                       LineResult::kError}) {
    PromLabels labels = run;
    labels.emplace_back("result", to_string(l));
    out.gauge("gpubench_check_lines", "check lines by result", labels, report.count(l));
  }
  for (const CheckLine& line : report.lines) {
    const PromLabels labels = {{"subject", line.subject}, {"metric", line.metric}};
    PromLabels with_result = labels;
    with_result.emplace_back("result", to_string(line.result));
    out.gauge("gpubench_check_line_ok", "1 when the line passed or warned, 0 when it failed, was missing or errored",
              with_result, line.result == LineResult::kPass || line.result == LineResult::kWarn ? 1 : 0);
    if (line.value) out.gauge("gpubench_check_value", "the figure the line checked", labels, *line.value);
    if (line.margin_pct)
      out.gauge("gpubench_check_margin_pct", "how far the figure beats its bound, % (negative: failed)", labels,
                *line.margin_pct);
  }
  return out.text();
}

}  // namespace gpubench
