#include "harness/report/results_table.h"

#include <ostream>

#include "harness/model/suite.h"

namespace gpubench {
namespace {

// The primary metric, and beside it each metric the result names in notes.not_applicable (one
// that means nothing in this configuration) with why, so that its absence reads as intended.
std::string metric_label(const BenchResult& r) {
  std::string label = r.primary_metric;
  for (const auto& [metric, why] : r.not_applicable) label += " (" + metric + " n/a" + (why.empty() ? "" : ": " + why) + ")";
  return label;
}

std::vector<std::string> row_for(const BenchResult& r) {
  std::string name = r.name;
  if (r.repetitions > 1) name += " #" + std::to_string(r.repetition_index);
  const auto metric = r.metrics.find(r.primary_metric);
  if (r.status != Status::kOk || metric == r.metrics.end())
    return {name, "", "", "", "", std::string(to_string(r.status)) + ": " + r.error};
  const Summary s = metric->second.summary();
  const auto pct = r.pct_of_peak();
  return {name, metric_label(r), format_number(s.median) + " " + metric->second.unit,
          format_number(s.cv_pct, 2) + "%", pct ? format_number(*pct, 3) + "%" : "",
          r.throttled() ? "ok (throttled)" : "ok"};
}

}  // namespace

ResultsTableReporter::ResultsTableReporter(std::ostream& out) : out_(out) {
  table_.header = {"benchmark", "metric", "median", "noise (cv)", "% of peak", "status"};
  table_.right_align = {false, false, true, true, true, false};
}

void ResultsTableReporter::result(const BenchResult& result) {
  table_.rows.push_back(row_for(result));
  ok_ += result.status == Status::kOk;
  skipped_ += result.status == Status::kSkipped;
  failed_ += result.status != Status::kOk && result.status != Status::kSkipped;
  throttled_ += result.status == Status::kOk && result.throttled();
  if (has_finding_rule(result.family)) finding_inputs_.push_back(result);
}

void ResultsTableReporter::finish(const RunDocument&) {
  std::string summary = std::to_string(ok_) + " ok, " + std::to_string(failed_) + " failed, " +
                        std::to_string(skipped_) + " skipped";
  if (throttled_) summary += "; " + std::to_string(throttled_) + " measured while the GPU throttled";
  const std::vector<std::string> findings = findings_of(finding_inputs_);
  if (!findings.empty()) summary += "\n\nfindings:";
  for (const std::string& line : findings) summary += "\n  " + line;
  out_ << render(table_, summary) << std::flush;
}

}  // namespace gpubench
