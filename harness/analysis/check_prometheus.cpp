// A check report as Prometheus gauges: the verdict, the count of lines per result, and each
// line's result with its figure and margin, for alerting on a node that stopped passing. The
// labels name what is checked against what in names a nightly run keeps (host, GPU model,
// baseline name), so that each line is one series across nights.
#include "harness/analysis/check.h"
#include "harness/model/prometheus.h"

namespace gpubench {

std::string check_prometheus(const CheckReport& report) {
  PrometheusText out;
  const PromLabels run = {{"host", report.host}, {"gpu_model", report.gpu_model}, {"baseline", report.baseline_name}};
  out.gauge("gpubench_check_ok", "1 when the node passed its check (exit 0), 0 when it failed (exit 1)", run,
            report.failed() ? 0 : 1);
  for (LineResult l : {LineResult::kPass, LineResult::kWarn, LineResult::kFail, LineResult::kMissing,
                       LineResult::kError}) {
    PromLabels labels = run;
    labels.emplace_back("result", to_string(l));
    out.gauge("gpubench_check_lines", "check lines by result", labels, report.count(l));
  }
  for (const CheckLine& line : report.lines) {
    PromLabels labels = run;
    labels.insert(labels.end(), {{"subject", line.subject}, {"metric", line.metric}});
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
