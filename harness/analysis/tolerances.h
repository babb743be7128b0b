#pragma once
// Tolerance files: the regression thresholds of compare and fleet (configs/tolerance.json).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/result_file.h"

namespace gpubench {

// Regression thresholds with per-name, per-pattern, per-suite, per-family and per-metric
// overrides. A threshold is a percentage (points for a percentage metric) and, optionally, a
// smallest change in the metric's own unit (min_change): a change must exceed both. The
// percentage suits a figure whose noise scales with it; min_change suits one whose healthy
// value moves by a fixed amount from one process to the next, so that a healthy pair stays
// quiet while a doubled cost, which moves it by the whole figure, is still caught.
// Lookup, most specific first: the benchmark's entry under "patterns" (its exact name, else
// its name with GPU placeholders, gpu:* standing for every GPU as in baselines, else the
// longest matching fnmatch glob; a node-mode figure without an entry of its own takes its solo
// figure's, a node total's min_change times its GPU count), then family, suite, metric, file
// default, command line.
struct Tolerances {
  struct Scope {
    std::optional<double> pct;
    std::map<std::string, double> metrics;     // per-metric percentages
    std::map<std::string, double> min_change;  // per-metric smallest change, in the metric's unit
  };
  // Where a derived file came from (scripts/derive_tolerance.py): its "derived_from" member.
  struct Source {
    std::string file, date, git_commit, gpu, command;
  };
  std::optional<double> default_pct;      // the file's "default_pct"
  std::map<std::string, Scope> suites;     // by suite name, e.g. "collective"
  std::map<std::string, Scope> families;   // by "suite/family", e.g. "transfer/copy"
  // "patterns" of the file without glob characters (other than GPU placeholders): benchmark
  // names, looked up directly; e.g. "launch/event/op:record/gpu:*".
  std::map<std::string, Scope> names;
  std::map<std::string, Scope> patterns;   // the other "patterns": globs, e.g. "*/host:pageable/*"
  std::map<std::string, double> metrics;   // by metric name, e.g. "latency_us"
  std::optional<std::vector<Source>> derived_from;  // the runs a derived file was derived from

  double pct_for(const BenchmarkResult& benchmark, const std::string& metric, double fallback) const;
  // The smallest change of `metric` that can count, in its unit; 0 when no entry sets one.
  double min_change_for(const BenchmarkResult& benchmark, const std::string& metric) const;
  // The threshold of a change measured from `reference` (BASE's figure, or the fleet median):
  // pct_for, or min_change as a share of the reference (as points for a percentage metric)
  // where that is larger.
  double threshold_for(const BenchmarkResult& benchmark, const std::string& metric, double reference,
                       bool in_points, double fallback) const;
};
// A tolerance file, or a baseline file whose "compare_tolerance" member holds one.
Tolerances load_tolerances(const std::string& path);
Tolerances parse_tolerances(const JsonAt& node);
nlohmann::json to_json(const Tolerances& tolerances);

// Throws UsageError{kExitBadInput} naming the file and the first entry that names nothing in
// `runs`, the files it is applied to. An entry for a suite that neither run holds is not applied
// (one file serves partial runs), but that suite must exist. Within the suites the runs hold:
// a family must be there; a pattern's literal family must be, its axis names must be that
// family's, and it must match a benchmark; a metric must be one that the benchmarks the entry
// applies to have (judged where some are ok and none failed). A derived file (derived_from)
// covers the sweeps it was derived from, so its families and patterns these runs lack are not
// applied.
void validate_tolerances(const Tolerances& tolerances, const std::string& file,
                         const std::vector<const ResultFile*>& runs);

// What `--tolerance` asks for: "" the shipped configs/tolerance.json (found as config_files.h
// finds configs; its entries that name nothing in `runs` are not applied, since the user wrote
// none of them), "none" no file, else that file, held to its names by validate_tolerances.
Tolerances tolerances_for(const std::string& option, const std::vector<const ResultFile*>& runs);

}  // namespace gpubench
