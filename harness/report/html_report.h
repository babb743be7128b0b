#pragma once
// `gpubench report`: one self-contained HTML page of a run. Nothing is fetched to view it (no
// fonts, scripts or styles from elsewhere): inline CSS, inline SVG charts (chart_data.h) and
// one small inline script. It shows the context (GPUs, versions, link matrix, health), each
// suite's small charts and its results that are not ok, a table of every result
// (html_results.h), and, given a base run or a baseline, the verdicts of compare or check with
// the changed lines highlighted and, against a base run, marked in the table and the charts.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/report/chart_data.h"
#include "harness/model/result_file.h"
#include "harness/model/run_document.h"

namespace gpubench {

// compare's or check's verdicts as the page shows them (harness/report/report_verdicts.h
// makes them, so that the report layer needs no analysis).
struct VerdictTable {
  std::string title;    // "Compare against base.json", "Check against configs/baselines/h200.json"
  std::string summary;  // "2 regressed, 0 not ok, ... -> FAIL"
  bool failed = false;
  std::vector<std::string> unjudgeable;  // why a run cannot be judged, one line each, above all else
  std::vector<std::string> context_header;  // the context differences, when there are any
  std::vector<std::vector<std::string>> context_rows;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // the lines worth a look, worst first
  // Per row: "bad" (regressed, failed, missing), "warn" (noisy, warning), "good" (improved),
  // "" (unchanged, pass).
  std::vector<std::string> row_tone;
  // Lines that need no look, listed folded away: unchanged ones that carry a note (a benchmark
  // skipped in both runs), a check's passes. quiet_label says what they are.
  std::vector<std::vector<std::string>> quiet_rows;
  std::string quiet_label;
  int unchanged = 0;  // lines not listed because nothing about them changed
};

struct HtmlReportInput {
  const RunDocument* document = nullptr;
  const ResultFile* figures = nullptr;  // the document with repetitions merged
  std::string label;                    // the run's file name
  std::optional<VerdictTable> verdicts;
  std::vector<ReportChart> charts;
  // Against a base run (compare): the verdict of each benchmark that is not "same", as
  // changed_benchmarks (harness/report/report_verdicts.h) gives it. The table shows it.
  bool compared = false;
  std::map<std::string, std::string> changed;
};

std::string render_html_report(const HtmlReportInput& input);
// A page of verdicts alone, in the report's style: a saved comparison shown again (`show
// COMPARE.json --format html`, `compare --format html`), where no run is at hand to chart.
std::string render_html_verdicts(const VerdictTable& verdicts);

}  // namespace gpubench
