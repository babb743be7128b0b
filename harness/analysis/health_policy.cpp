#include "harness/analysis/health_policy.h"

#include <array>

#include "harness/analysis/counter_limits.h"

namespace gpubench {
namespace {

// The severities of a health section by key, in the file's order.
template <typename Policy>
auto health_severities(Policy& h) {
  using Field = std::pair<const char*, decltype((h.ecc))>;  // const where the policy is
  return std::array<Field, 7>{Field{"pcie_gen", h.pcie_gen},     Field{"pcie_width", h.pcie_width},
                              Field{"nvlink", h.nvlink},         Field{"ecc", h.ecc},
                              Field{"mig", h.mig},               Field{"throttling", h.throttling},
                              Field{"error_counters", h.error_counters}};
}

Severity read_severity(const JsonAt& node) {
  const std::string s = node.str();
  if (s == "off") return Severity::kOff;
  if (s == "warn") return Severity::kWarn;
  if (s == "fail") return Severity::kFail;
  node.fail("expected \"off\", \"warn\" or \"fail\", found \"" + s + "\"");
}

}  // namespace

const char* to_string(Severity severity) {
  switch (severity) {
    case Severity::kOff: return "off";
    case Severity::kWarn: return "warn";
    case Severity::kFail: return "fail";
  }
  return "?";
}

const char* policy_key(HealthRule rule) {
  switch (rule) {
    case HealthRule::kClocks: return "throttling";
    case HealthRule::kEccErrors:
    case HealthRule::kMemoryRetirement:
    case HealthRule::kPcieReplay:
    case HealthRule::kNvlinkErrors:
    case HealthRule::kXid: return "error_counters";
    default: return to_string(rule);
  }
}

Severity HealthPolicy::severity(HealthRule rule) const {
  switch (rule) {
    case HealthRule::kPcieWidth: return pcie_width;
    case HealthRule::kPcieGen: return pcie_gen;
    case HealthRule::kNvlink: return nvlink;
    case HealthRule::kEcc: return ecc;
    case HealthRule::kMig: return mig;
    case HealthRule::kClocks: return throttling;
    default: return error_counters;
  }
}

HealthPolicy read_health_policy(const JsonAt& node) {
  HealthPolicy h;
  node.only_keys({"pcie_gen", "pcie_width", "nvlink", "ecc", "mig", "throttling", "error_counters",
                  "counter_limits"});
  for (const auto& [key, severity] : health_severities(h))
    if (auto v = node.find(key)) {
      severity = read_severity(*v);
      h.stated.insert(key);
    }
  if (auto limits = node.find("counter_limits")) read_counter_limits(*limits, h.counter_limits);
  return h;
}

nlohmann::json to_json(const HealthPolicy& h) {
  // Only the checks the baseline names: naming one asks for its fields (asks_for, baseline.h).
  nlohmann::json out = {{"counter_limits", counter_limits_json(h.counter_limits)}};
  for (const auto& [key, severity] : health_severities(h))
    if (h.stated.count(key)) out[key] = to_string(severity);
  return out;
}

std::set<std::string> readable_checks(const ResultFile& run) {
  std::set<std::string> out;
  const HealthPolicy defaults;
  for (const auto& [key, severity] : health_severities(defaults)) out.insert(key);
  for (const GpuInfo& g : run.gpus) {
    if (g.error_counters.empty()) out.erase("error_counters");
    // One link expected, so that the NVLink rule says whether the links could be read.
    std::vector<HealthFinding> findings = gpu_health(g, 1);
    for (HealthFinding& f : counter_health(g, CounterLimits{})) findings.push_back(std::move(f));
    for (const HealthFinding& f : findings)
      if (!f.unknown.empty()) out.erase(policy_key(f.rule));
  }
  return out;
}

}  // namespace gpubench
