#pragma once
// `gpubench check --baseline FILE [RUN.json]`: holds a run against a baseline's expected
// figures and health conditions; pass / warn / fail / missing / error per line.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/analysis/baseline.h"
#include "harness/report/result_file.h"

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
  std::string note;
};

struct CheckReport {
  std::string baseline_path, run_path;
  std::vector<CheckLine> lines;
  int count(LineResult result) const;
  bool failed() const;  // any fail, missing or error: exit 1
};

// Throws UsageError{kExitBadInput} naming the first mismatch between the baseline's
// applies_to and the run's context. Active NVLinks refuse the baseline only when no GPU has
// the expected count (a different machine, or every link down); one GPU short of links is a
// health failure, reported by check_run.
void verify_applies_to(const Baseline& baseline, const ResultFile& run);

CheckReport check_run(const Baseline& baseline, const ResultFile& run);

// Benchmarks whose lines fail or error: what --retries re-runs.
std::vector<std::string> failing_benchmarks(const CheckReport& report);

// check_run, then up to `retries` times: re-run the failing benchmarks through `rerun`, put
// the new figures in place of the old, and check again. A line records how many re-runs its
// benchmark had, so a pass after retries is visible as such.
using Rerun = std::function<ResultFile(const std::vector<std::string>& names)>;
CheckReport check_with_retries(const Baseline& baseline, ResultFile run, int retries,
                               const Rerun& rerun);

// What check asks the runner for without a RUN.json: the baseline's run section, or the
// suites its names start with ("all" when a pattern starts with a wildcard).
std::vector<std::string> suites_for(const Baseline& baseline);

std::string render_check(const CheckReport& report, const std::string& format);

}  // namespace gpubench
