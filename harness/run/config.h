#pragma once
// Run configuration files (--config, and the acceptance presets in configs/acceptance/):
//
//   { "suites": ["memory", "transfer"],            optional; --suite overrides
//     "filter": "triad|dot",                        optional; --filter overrides
//     "settings": { "min_time": 0.05, "max_noise": 0.5, "max_time": 5, "min_samples": 10,
//                   "timeout": 120, "repetitions": 1 },   each optional; flags override
//     "families": { "memory/stream": { "array_bytes": [1073741824], "op": ["triad"] } },
//     "repetitions_by_family": { "gemm/sustained": 1 },   optional; beside settings.repetitions
//     "axes": { "layers": [...] },                  optional; documents that computed axes read
//     "concurrent": true,                           optional; node mode (--concurrent sets it)
//     "solo_reference": "first" }                   optional; node mode's solo runs: none, first, every
//
// "axes" is what ExpandContext::config holds when families are expanded: each computed axis
// reads its own key and says what shape it expects, so this file checks only that it is an object.
//
// Every field is checked: an unknown key, family or axis, a value of the wrong type or a
// string value the axis does not declare is a UsageError naming the file and the JSON path.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

struct RunConfig {
  std::vector<std::string> suites;
  std::optional<std::string> filter;
  std::optional<double> min_time_s, max_noise_pct, max_time_s, timeout_s;
  std::optional<int> min_samples, repetitions;
  std::map<std::string, int> repetitions_by_family;
  nlohmann::json axis_overrides = nlohmann::json::object();  // family -> axis -> values
  nlohmann::json axis_documents = nlohmann::json::object();  // "axes": what computed axes read
  bool concurrent = false;
  std::string solo_reference = "none";  // checked by solo_reference_from (node_plan.h)
};

RunConfig parse_config(const nlohmann::json& json, const std::string& source);
RunConfig load_config(const std::string& path);

}  // namespace gpubench
