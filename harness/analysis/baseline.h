#pragma once
// Baseline files: expected figures for one machine type (configs/baselines/<model>.json).
// `gpubench check` holds a run against one; `gpubench baseline RUN.json...` writes one from
// runs. The format is documented in docs/results.md ("Baseline files"); the loader rejects unknown
// fields and bad patterns, naming the file and the JSON pointer.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "harness/analysis/compare.h"
#include "harness/analysis/health_policy.h"
#include "harness/model/result_file.h"

namespace gpubench {

// What machine the figures are for. check refuses a run that does not match (exit 2): the
// figures of an H100 NVL say nothing about an H100 SXM. The GPU count is not part of it: one
// baseline serves nodes of any count (check --gpus says how many a node must show), and
// nvlinks_per_gpu is what the NVLink health rule expects of each GPU of a multi-GPU node.
struct AppliesTo {
  std::string gpu_model;  // context GPU name, e.g. "NVIDIA H200"
  std::optional<int> nvlinks_per_gpu, pcie_gen, pcie_width;
};

enum class Bound { kFloor, kCeiling, kReference };

// One expectation: a benchmark (exact name, name with GPU placeholders as in gpu_names.h, or
// fnmatch pattern), a metric, a bound.
struct Expectation {
  std::string name;        // exact or placeholder name, or the pattern when is_pattern
  bool is_pattern = false;
  int placeholders = 0;    // GPU placeholders in the name: 1 per GPU, 2 per pair
  bool unordered_pairs = false;  // "pairs": "unordered": each pair once, lower index first
  std::optional<int> min_gpus;   // the entry applies to nodes with at least this many GPUs
  std::string metric;      // empty: the benchmark's primary metric
  Bound bound = Bound::kFloor;
  double value = 0;        // the floor, ceiling or reference
  std::optional<double> tolerance_pct, warn_pct;  // unset: the baseline's defaults
  std::string note;        // free text for people, e.g. where the figure came from

  // How many GPUs a node needs for the entry to apply: min_gpus, else one per placeholder.
  int gpus_needed() const { return min_gpus.value_or(std::max(1, placeholders)); }
};

// What `check` runs when it is not given a RUN.json.
struct RunSpec {
  std::vector<std::string> suites;  // empty: the suites the benchmark names start with
  std::string filter, config;
  bool quick = false;
};

struct Baseline {
  std::string path, description;
  AppliesTo applies_to;
  RunSpec run;
  double warn_pct = 5;        // warning band above a floor (below a ceiling), in percent
  double tolerance_pct = 5;   // for reference entries without their own
  HealthPolicy health;
  std::vector<Expectation> expectations;
  std::optional<Tolerances> compare_tolerance;  // used by compare --tolerance BASELINE
};

// Whether the baseline asks for the field a rule reads, so that an unreadable one fails (at the
// rule's severity) rather than warns: the health section names the rule, or applies_to states
// what the rule holds the GPU to (pcie_gen, pcie_width; nvlinks_per_gpu for the NVLinks and
// their error counters).
bool asks_for(const Baseline& baseline, HealthRule rule);

Baseline parse_baseline(const nlohmann::json& doc, const std::string& file);
Baseline parse_baseline_text(const std::string& text, const std::string& file);
Baseline load_baseline(const std::string& path);
nlohmann::json to_json(const Baseline& baseline);

// Where a file named in the baseline (run.config) is: an absolute path as it is, else relative
// to the baseline file's folder, else under each of `installed_configs` (the installation's
// configs/ folders; a leading "configs/" is dropped there). Never the working directory: under
// cron that is anywhere. Throws UsageError{kExitBadInput} naming what was tried.
std::string locate_baseline_file(const Baseline& baseline, const std::string& name,
                                 const std::vector<std::string>& installed_configs);

// fnmatch(3) syntax check: unterminated brackets, empty brackets, a trailing backslash.
bool valid_glob(const std::string& pattern, std::string* why);

// A baseline from runs of one GPU model: per benchmark, the median across runs of its primary
// metric; a floor at median x (1 - tol) for higher-is-better metrics, a ceiling at
// median / (1 - tol) for lower-is-better ones (the same ratio from the median either way).
// Per-GPU and per-pair benchmarks become one placeholder entry each (gpu_names.h) holding the
// lowest floor (highest ceiling) of its GPUs; a node-wide benchmark of an N-GPU run applies to
// nodes of at least N. `filter` is a regex over names ("" = all). A benchmark not ok in some run
// is left out: *skipped counts them. No benchmark left is exit 2. The runs are as judge_run
// (judgeable.h) left them: one that cannot be judged throws UsageError{kExitFailure} naming its
// first reason, since a baseline made from it would hold its damage as a bound.
Baseline make_baseline(const std::vector<ResultFile>& runs, double tolerance_pct,
                       const std::string& filter, int* skipped = nullptr);

}  // namespace gpubench
