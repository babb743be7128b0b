#pragma once
// Tolerance files: the regression thresholds of compare and fleet (configs/tolerance.json).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/report/result_file.h"

namespace gpubench {

// Regression thresholds, in percent, with per-pattern, per-suite, per-family and per-metric
// overrides. Lookup, most specific first: the longest matching name pattern (its metric, then
// itself), family's metric, family, suite's metric, suite, metric, file default, command-line
// default. Patterns (fnmatch globs over benchmark names) exist for regimes inside a family
// that vary between processes, such as cache-resident sizes or pageable host memory.
struct Tolerances {
  struct Scope {
    std::optional<double> pct;
    std::map<std::string, double> metrics;
  };
  std::optional<double> default_pct;      // the file's "default_pct"
  std::map<std::string, Scope> suites;     // by suite name, e.g. "collective"
  std::map<std::string, Scope> families;   // by "suite/family", e.g. "transfer/copy"
  std::map<std::string, Scope> patterns;   // by glob over names, e.g. "*/host:pageable/*"
  std::map<std::string, double> metrics;   // by metric name, e.g. "latency_us"

  double pct_for(const BenchmarkResult& benchmark, const std::string& metric,
                 double fallback) const;
};
// A tolerance file, or a baseline file whose "compare_tolerance" member holds one.
Tolerances load_tolerances(const std::string& path);
Tolerances parse_tolerances(const JsonAt& node);
// Throws UsageError{kExitBadInput} naming the file and the first entry that names nothing: a
// suite that is neither in the runs nor a known suite; a family (or a pattern's literal
// suite/family) of a suite the runs hold that none of their benchmarks is in; a metric none of
// the runs has. A misspelt entry
// silently leaves its benchmarks at the default threshold.
void validate_tolerances(const Tolerances& tolerances, const std::string& file,
                         const std::vector<const ResultFile*>& runs);
nlohmann::json to_json(const Tolerances& tolerances);

}  // namespace gpubench
