#pragma once
// `gpubench check --baseline FILE [RUN.json]`: holds a run against a baseline's expected
// figures and health conditions; pass / warn / fail / missing / error per line.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/analysis/baseline.h"
#include "harness/model/result_file.h"

namespace gpubench {

enum class LineResult { kPass, kWarn, kFail, kMissing, kError };
const char* to_string(LineResult result);

struct CheckLine {
  std::string subject;    // benchmark name, a pattern that matched nothing, or "health/gpu0/pcie"
  std::string benchmark;  // the benchmark this line is about, if any (what a retry re-runs)
  std::string metric;
  std::optional<double> value;
  std::string expected;   // e.g. ">= 4180", "<= 5.2"
  // How far the figure beats its bound, in percent: value/floor - 1 or ceiling/value - 1;
  // negative when it failed, under the warning band's width when it warns.
  std::optional<double> margin_pct;
  LineResult result = LineResult::kPass;
  int retries = 0;        // re-runs it took (or used, when it still fails)
  // What the line showed before its retries (set on retried lines only).
  std::optional<LineResult> first_result;
  std::optional<double> first_value;
  std::string note;
  // A health line whose field could not be read: the field (e.g. "ecc_enabled"); the note says
  // why. It warns, or fails where the baseline asks for the field (asks_for).
  std::string unknown;
};

// The value column of a line: its figure, "unknown" for an unreadable health field, else "-".
std::string value_text(const CheckLine& line);

struct CheckReport {
  std::string baseline_path, run_path;
  // What the report is of, in names that stay the same from one night to the next (the
  // Prometheus labels): the run's host, the GPU model the baseline is for, the baseline's name
  // (its file name without the extension, e.g. "h200").
  std::string host, gpu_model, baseline_name;
  std::vector<CheckLine> lines;
  std::vector<std::string> retry_errors;  // a retry that could not run: the report stands as it was
  // Why the run cannot be judged (judgeable.h), one line each.
  std::vector<std::string> unjudgeable;
  int count(LineResult result) const;
  int unknowns() const;  // health lines whose field could not be read
  bool failed() const;  // a run that cannot be judged, any fail, missing or error: exit 1
};

// Throws UsageError{kExitBadInput} naming the first mismatch between the baseline's
// applies_to and the run's context: another GPU model or PCIe capability. Links down, however
// many, are a health failure (exit 1), reported by check_run.
void verify_applies_to(const Baseline& baseline, const ResultFile& run);

struct CheckOptions {
  std::optional<int> expected_gpus;  // --gpus: the node must show this many GPUs
  int retries = 0;                   // --retries
};

// Throws UsageError{kExitBadInput} naming the first entry whose metric no benchmark of its
// family in the run has (a misspelt metric is a bad file, not a failing node). Judged only where
// every benchmark the entry covers is in the run and ok: one missing or failed is a check line.
void validate_baseline_metrics(const Baseline& baseline, const ResultFile& run);

// Every entry that applies to the node's GPU count, expanded over its GPUs and pairs, then the
// health rules for every GPU, and the GPU count when options state one. `run` as judge_run
// left it: its reasons are the report's. Validates the entries' metrics first
// (validate_baseline_metrics).
CheckReport check_run(const Baseline& baseline, const ResultFile& run, const CheckOptions& options = {});

// Benchmarks whose lines fail or error: what --retries re-runs.
std::vector<std::string> failing_benchmarks(const CheckReport& report);

// check_run, then up to options.retries times: re-run the failing benchmarks through `rerun`,
// put the new figures in place of the old, and check again. A retried line records its re-runs
// and what it first showed, so the first report stays readable. A rerun that throws ends the
// retries with its message in retry_errors; the report stands as it was before that retry.
// The re-run figures face judge_run as the first ones did: a re-run benchmark's reasons are
// those of its re-run, and a re-run that cannot be judged as a whole fails the check.
using Rerun = std::function<ResultFile(const std::vector<std::string>& names)>;
CheckReport check_with_retries(const Baseline& baseline, ResultFile run, const CheckOptions& options,
                               const Rerun& rerun);

// What check asks the runner for without a RUN.json: the baseline's run section, or the
// suites its names start with ("all" when a pattern starts with a wildcard).
std::vector<std::string> suites_for(const Baseline& baseline);

std::string render_check(const CheckReport& report, const std::string& format);
// The node-exporter textfile format (harness/model/prometheus.h): gpubench_check_ok (the exit
// verdict), gpubench_check_lines by result, and per line its result, value and margin, each
// labelled with the host, GPU model and baseline name (never a file path: a new series a night).
std::string check_prometheus(const CheckReport& report);

}  // namespace gpubench
