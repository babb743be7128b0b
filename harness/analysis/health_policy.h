#pragma once
// A baseline's "health" section: what the finding of each health rule (harness/model/health.h)
// counts as, the error-counter limits, and which checks the baseline names, and so asks for the
// fields of. The format is in docs/results.md ("Baseline files").
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/model/health.h"
#include "harness/model/json_at.h"
#include "harness/model/result_file.h"

namespace gpubench {

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
  Severity mig = Severity::kFail;         // MIG on: the benchmarks saw an instance, not the GPU
  // Power capping under a heavy GEMM is normal operation on SXM parts; a warning says the
  // figure was measured throttled without failing a healthy node.
  Severity throttling = Severity::kWarn;
  // What a suite may add to the error counters (health.h has the defaults and their source).
  Severity error_counters = Severity::kFail;
  CounterLimits counter_limits;
  // The checks the baseline file names ("ecc", "error_counters", ...): a field such a check
  // reads that could not be read counts as the check's severity; unnamed, it only warns.
  std::set<std::string> stated;

  Severity severity(HealthRule rule) const;
};

// The health section's key of a rule: "error_counters" for the five counter rules,
// "throttling" for clocks, the rule's own name for the others.
const char* policy_key(HealthRule rule);

// The section of a baseline file: the checks it names, each "off", "warn" or "fail", and
// counter_limits. An unknown key or severity fails naming the file and the JSON pointer.
HealthPolicy read_health_policy(const JsonAt& node);
// The checks the policy names, and the counter limits.
nlohmann::json to_json(const HealthPolicy& policy);

// The checks a baseline made from `run` names, and so asks for: those whose fields the run read
// on every GPU, so that a node where one cannot be read fails rather than passes.
std::set<std::string> readable_checks(const ResultFile& run);

}  // namespace gpubench
