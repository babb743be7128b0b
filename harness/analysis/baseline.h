#pragma once
// Baseline files: expected figures for one machine type (configs/baselines/<model>.json).
// `gpubench check` holds a run against one; `gpubench baseline RUN.json...` writes one from
// runs. The format is documented in README.md ("Baselines"); the loader rejects unknown
// fields and bad patterns, naming the file and the JSON pointer.
#include <optional>
#include <string>
#include <vector>

#include "harness/analysis/compare.h"
#include "harness/report/result_file.h"

namespace gpubench {

// What machine the figures are for. check refuses a run that does not match (exit 2): the
// figures of an H100 NVL say nothing about an H100 SXM.
struct AppliesTo {
  std::string gpu_model;  // context GPU name, e.g. "NVIDIA H200"
  std::optional<int> gpu_count, nvlinks_per_gpu, pcie_gen, pcie_width;
};

enum class Bound { kFloor, kCeiling, kReference };

// One expectation: a benchmark (exact name or fnmatch pattern), a metric, a bound.
struct Expectation {
  std::string name;        // exact name, or the pattern when is_pattern
  bool is_pattern = false;
  std::string metric;      // empty: the benchmark's primary metric
  Bound bound = Bound::kFloor;
  double value = 0;        // the floor, ceiling or reference
  std::optional<double> tolerance_pct, warn_pct;  // unset: the baseline's defaults
  std::string note;        // free text for people, e.g. where the figure came from
  std::string place;       // JSON pointer of the entry, for messages
};

enum class Severity { kOff, kWarn, kFail };
const char* to_string(Severity severity);

// Health checks from the run's context and telemetry, and what a finding counts as.
struct HealthPolicy {
  // A PCIe link may train down in generation at idle to save power (the context is captured
  // at idle), so a lower generation only warns by default; a narrower link is a fault.
  Severity pcie_gen = Severity::kWarn;
  Severity pcie_width = Severity::kFail;
  Severity nvlink = Severity::kFail;      // fewer active links than applies_to.nvlinks_per_gpu
  Severity ecc = Severity::kFail;         // ECC disabled
  // Power capping under a heavy GEMM is normal operation on SXM parts; a warning says the
  // figure was measured throttled without failing a healthy node.
  Severity throttling = Severity::kWarn;
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

Baseline parse_baseline(const nlohmann::json& doc, const std::string& file);
Baseline parse_baseline_text(const std::string& text, const std::string& file);
Baseline load_baseline(const std::string& path);
nlohmann::json to_json(const Baseline& baseline);

// fnmatch(3) syntax check: unterminated brackets, empty brackets, a trailing backslash.
bool valid_glob(const std::string& pattern, std::string* why);

// A baseline from runs of one GPU model: per benchmark, the median across runs of its primary
// metric; a floor at median x (1 - tol) for higher-is-better metrics, a ceiling at
// median / (1 - tol) for lower-is-better ones (the same ratio from the median either way). `filter` is a regex over names ("" = all).
// A benchmark not ok in some run is left out (a flaky figure is no reference): *skipped counts them.
Baseline make_baseline(const std::vector<ResultFile>& runs, double tolerance_pct,
                       const std::string& filter, int* skipped = nullptr);

}  // namespace gpubench
