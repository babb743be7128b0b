#pragma once
// `gpubench compare BASE.json NEW.json`: per benchmark and metric, base vs new, change %,
// noise, significance and a verdict; and the context differences that could explain a change.
#include <optional>
#include <string>
#include <vector>

#include "harness/analysis/tolerances.h"
#include "harness/model/result_file.h"

namespace gpubench {

enum class Verdict { kRegressed, kNotOk, kMissing, kNoisy, kImproved, kNew, kSame };
const char* to_string(Verdict verdict);

struct MetricComparison {
  std::string benchmark;   // name in NEW (BASE's when missing there)
  std::string base_name;   // BASE's name when the pair was matched by parameters
  std::string metric, unit;
  bool higher_is_better = true;
  std::optional<double> base, now;  // headline medians
  double change_pct = 0;            // (new - base) / |base| in %, or new - base in points
  bool change_in_points = false;    // a percentage metric: see change_between
  bool repetitions_tested = false;  // the U test compared repetition medians, not samples
  double base_noise_pct = 0, new_noise_pct = 0;
  std::optional<double> p_value;    // when the U test decided
  double threshold_pct = 0;
  Verdict verdict = Verdict::kSame;
  std::string status = "ok";  // NEW's status; a kNotOk line shows it as its verdict
  std::string note;  // status and error of a benchmark not ok, "throttled", ...
};

// One context field that differs between runs: its value in each run, in run order.
struct ContextDifference {
  std::string field;
  std::vector<std::string> values;
};
std::vector<ContextDifference> context_differences(const std::vector<const ResultFile*>& runs);

// A tuned benchmark whose chosen algorithm or engine differs between the runs, beside what
// its primary figure did: the first question after a driver or library upgrade moves a figure.
struct ChoiceChange {
  std::string benchmark;  // name in NEW
  std::string base_choice, new_choice;  // tuned_choice.h's choice_text
  std::vector<TunedChoice> base, now;
  std::optional<MetricComparison> figure;  // the primary metric's row (its verdict: did it move)
};

struct CompareOptions {
  double threshold_pct = 3;        // when the tolerances say nothing more specific
  double alpha = 0.05;             // significance level of the U test
  // The U test needs this many values a side: repetition medians when both runs have that
  // many repetitions (they carry run-to-run variation that the samples of one repetition do
  // not), else the pooled samples; with fewer, non-overlapping noise bands decide.
  std::size_t min_u_samples = 5;
  Tolerances tolerances;
  bool allow_missing = false;      // --allow-missing: a benchmark absent from NEW does not fail
};

struct Comparison {
  std::string base_path, new_path;
  std::vector<ContextDifference> context;
  std::vector<MetricComparison> rows;  // sorted: worst verdicts first, then by name
  // Why BASE or NEW cannot be judged (judgeable.h), one line each, BASE's first.
  std::vector<std::string> unjudgeable;
  std::vector<ChoiceChange> choice_changes;  // in BASE's order
  bool allow_missing = false;
  int count(Verdict verdict) const;
  // A run that cannot be judged, a regression, a benchmark not ok in NEW, or (unless
  // allow_missing) one missing: exit 1.
  bool failed() const;
};

// BASE and NEW as judge_run left them: their reasons are the comparison's. Throws
// UsageError{kExitBadInput} when BASE and NEW have no benchmark in common (disjoint files, an
// empty NEW, every name and parameter changed) and both can be judged: nothing would be
// compared. A run that cannot be judged (one killed before its first result) fails instead.
Comparison compare_runs(const ResultFile& base, const ResultFile& now, const CompareOptions& options);

// "table" (changed lines, then a count of unchanged), "md" (the same, for a wiki or a pull
// request), "json" (every line, for dashboards).
std::string render_comparison(const Comparison& comparison, const std::string& format);
// The context-difference header shared by compare and fleet.
std::string render_context(const std::vector<ContextDifference>& context,
                           const std::vector<std::string>& run_labels, bool markdown);
// "+3.21%", "-0.50%": the sign is the direction of the figure, not of goodness.
std::string format_pct(double pct);

// A metric that is itself a percentage (unit "%", or a name ending in _pct: % of peak, a
// reduction) changes by percentage points: a relative change means nothing near zero
// (a reduction going from 10 % to -3 % is not "-131 %"). Thresholds apply to points for them.
bool is_percentage_metric(const std::string& metric, const std::string& unit);
// Signed change from `from` to `to`: percent of |from|, or points; +-inf when from is 0.
double change_between(double from, double to, bool points);
std::string format_change(double change, bool points);  // "+3.21%" or "+3.21 pt"
// A U test's p-value: "0.42", "1.2e-05"; "-" where no U test decided.
std::string format_p_value(const std::optional<double>& p);

}  // namespace gpubench
