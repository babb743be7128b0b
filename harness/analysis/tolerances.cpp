#include "harness/analysis/tolerances.h"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "harness/analysis/baseline.h"
#include "harness/analysis/gpu_names.h"
#include "harness/analysis/run_inventory.h"
#include "harness/model/config_files.h"
#include "harness/model/node_figures.h"

namespace gpubench {
namespace {

double read_pct(const JsonAt& node) {
  const double pct = node.num();
  if (pct < 0) node.fail("a tolerance is a percentage >= 0");
  return pct;
}

double read_min_change(const JsonAt& node) {
  const double change = node.num();
  if (change < 0) node.fail("a min_change is a change >= 0 in the metric's unit");
  return change;
}

std::map<std::string, double> read_metric_values(const JsonAt& node, double (*read)(const JsonAt&)) {
  std::map<std::string, double> out;
  for (const auto& [metric, value] : node.members()) out[metric] = read(value);
  return out;
}

// A scope: a bare percentage, or {"pct": P, "metrics": {name: P}, "min_change": {name: X}}.
Tolerances::Scope read_scope(const JsonAt& value) {
  Tolerances::Scope scope;
  if (value.get().is_number()) {
    scope.pct = read_pct(value);
    return scope;
  }
  value.only_keys({"pct", "metrics", "min_change"});
  if (auto pct = value.find("pct")) scope.pct = read_pct(*pct);
  if (auto metrics = value.find("metrics")) scope.metrics = read_metric_values(*metrics, read_pct);
  if (auto changes = value.find("min_change")) scope.min_change = read_metric_values(*changes, read_min_change);
  return scope;
}

std::map<std::string, Tolerances::Scope> read_scopes(const JsonAt& node) {
  std::map<std::string, Tolerances::Scope> out;
  for (const auto& [name, value] : node.members()) out[name] = read_scope(value);
  return out;
}

// A pattern without glob characters, or whose only ones are GPU placeholders standing for every
// GPU axis it has, is a benchmark name: it is looked up directly rather than matched.
bool is_benchmark_name(const std::string& key) {
  if (key.find_first_of("*?[\\") == std::string::npos) return true;
  return gpu_placeholders(key) > 0 && generalise_gpu_name(key, nullptr) == key;
}

void read_patterns(const JsonAt& node, Tolerances& t) {
  for (const auto& [key, value] : node.members()) {
    std::string why;
    if (!valid_glob(key, &why)) value.fail("bad pattern: " + why);
    (is_benchmark_name(key) ? t.names : t.patterns)[key] = read_scope(value);
  }
}

std::vector<Tolerances::Source> read_derived_from(const JsonAt& node) {
  node.only_keys({"runs", "files"});
  std::vector<Tolerances::Source> sources;
  for (const JsonAt& item : node.at("files").items()) {
    item.only_keys({"file", "date", "git_commit", "gpu", "command"});
    sources.push_back({item.at("file").str(), optional_string(item, "date"), optional_string(item, "git_commit"),
                       optional_string(item, "gpu"), optional_string(item, "command")});
  }
  const JsonAt runs = node.at("runs");
  if (runs.integer() != static_cast<long long>(sources.size()))
    runs.fail("says " + std::to_string(runs.integer()) + " runs, \"files\" lists " + std::to_string(sources.size()));
  if (sources.empty()) runs.fail("a derived file is derived from at least one run");
  return sources;
}

}  // namespace

Tolerances parse_tolerances(const JsonAt& node) {
  node.only_keys({"description", "derived_from", "default_pct", "suites", "families", "patterns", "metrics"});
  Tolerances t;
  if (auto description = node.find("description")) description->str();
  if (auto derived = node.find("derived_from")) t.derived_from = read_derived_from(*derived);
  if (auto pct = node.find("default_pct")) t.default_pct = read_pct(*pct);
  if (auto suites = node.find("suites")) t.suites = read_scopes(*suites);
  if (auto families = node.find("families")) t.families = read_scopes(*families);
  if (auto patterns = node.find("patterns")) read_patterns(*patterns, t);
  if (auto metrics = node.find("metrics")) t.metrics = read_metric_values(*metrics, read_pct);
  return t;
}

nlohmann::json to_json(const Tolerances& t) {
  nlohmann::json out = nlohmann::json::object();
  if (t.derived_from) {
    nlohmann::json files = nlohmann::json::array();
    for (const Tolerances::Source& s : *t.derived_from)
      files.push_back({{"file", s.file}, {"date", s.date}, {"git_commit", s.git_commit}, {"gpu", s.gpu},
                       {"command", s.command}});
    out["derived_from"] = {{"runs", t.derived_from->size()}, {"files", files}};
  }
  if (t.default_pct) out["default_pct"] = *t.default_pct;
  for (const auto& [key, scopes] : {std::pair("suites", &t.suites), std::pair("families", &t.families),
                                    std::pair("patterns", &t.names), std::pair("patterns", &t.patterns)})
    for (const auto& [name, scope] : *scopes) {
      nlohmann::json& entry = out[key][name] = nlohmann::json::object();
      if (scope.pct) entry["pct"] = *scope.pct;
      if (!scope.metrics.empty()) entry["metrics"] = scope.metrics;
      if (!scope.min_change.empty()) entry["min_change"] = scope.min_change;
    }
  if (!t.metrics.empty()) out["metrics"] = t.metrics;
  return out;
}

Tolerances load_tolerances(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonAt root(doc, path);
  root.members();  // must be an object
  if (auto embedded = root.find("compare_tolerance")) return parse_tolerances(*embedded);
  if (root.find("applies_to")) root.fail("baseline file has no \"compare_tolerance\" member");
  return parse_tolerances(root);
}

namespace {

// The entry under "names" of `name`: exact, else with GPU placeholders.
const Tolerances::Scope* name_scope(const Tolerances& t, const std::string& name) {
  if (auto it = t.names.find(name); it != t.names.end()) return &it->second;
  if (auto it = t.names.find(generalise_gpu_name(name, nullptr)); it != t.names.end()) return &it->second;
  return nullptr;
}

// The scopes that may hold a benchmark's threshold, most specific first, and the factor on
// their min_change.
struct Lookup {
  std::array<const Tolerances::Scope*, 3> scopes{};
  double change_scale = 1;
};

// The benchmark's entry under "patterns": exact name, name with GPU placeholders, longest glob.
// A node-mode figure without an entry of its own borrows its solo figure's: on a healthy node
// it measures the same quantity with the same noise (it is still compared only with node
// figures). A node total's summed rate is up to N times the spread of one GPU's, so its
// borrowed min_change is scaled by its GPU count.
const Tolerances::Scope* pattern_scope(const Tolerances& t, const BenchmarkResult& b, double& change_scale) {
  if (!t.names.empty()) {
    if (const Tolerances::Scope* own = name_scope(t, b.name)) return own;
    if (is_node_name(b.name)) {
      const bool total = gpu_of_name(b.name) == "all";
      if (const Tolerances::Scope* solo = name_scope(t, solo_name_of(b.name, total ? "gpu0" : ""))) {
        if (total) change_scale = static_cast<double>(std::max<std::size_t>(1, b.node_gpus));
        return solo;
      }
    }
  }
  const std::pair<const std::string, Tolerances::Scope>* longest = nullptr;
  for (const auto& entry : t.patterns)
    if (fnmatch(entry.first.c_str(), b.name.c_str(), 0) == 0 && (!longest || entry.first.size() > longest->first.size()))
      longest = &entry;
  return longest ? &longest->second : nullptr;
}

const Tolerances::Scope* find_scope(const std::map<std::string, Tolerances::Scope>& scopes, const std::string& key) {
  auto it = scopes.find(key);
  return it == scopes.end() ? nullptr : &it->second;
}

Lookup scopes_for(const Tolerances& t, const BenchmarkResult& b) {
  Lookup lookup;
  lookup.scopes = {pattern_scope(t, b, lookup.change_scale), find_scope(t.families, b.family),
                   find_scope(t.suites, b.suite)};
  return lookup;
}

double pct_in(const Tolerances& t, const Lookup& lookup, const std::string& metric, double fallback) {
  for (const Tolerances::Scope* scope : lookup.scopes) {
    if (!scope) continue;
    if (auto m = scope->metrics.find(metric); m != scope->metrics.end()) return m->second;
    if (scope->pct) return *scope->pct;
  }
  auto m = t.metrics.find(metric);
  if (m != t.metrics.end()) return m->second;
  return t.default_pct.value_or(fallback);
}

double min_change_in(const Lookup& lookup, const std::string& metric) {
  for (const Tolerances::Scope* scope : lookup.scopes)
    if (scope)
      if (auto it = scope->min_change.find(metric); it != scope->min_change.end())
        return it->second * lookup.change_scale;
  return 0;
}

}  // namespace

double Tolerances::pct_for(const BenchmarkResult& benchmark, const std::string& metric, double fallback) const {
  return pct_in(*this, scopes_for(*this, benchmark), metric, fallback);
}

double Tolerances::min_change_for(const BenchmarkResult& benchmark, const std::string& metric) const {
  return min_change_in(scopes_for(*this, benchmark), metric);
}

double Tolerances::threshold_for(const BenchmarkResult& benchmark, const std::string& metric, double reference,
                                 bool in_points, double fallback) const {
  const Lookup lookup = scopes_for(*this, benchmark);
  const double pct = pct_in(*this, lookup, metric, fallback);
  const double change = min_change_in(lookup, metric);
  if (change <= 0) return pct;
  if (in_points) return std::max(pct, change);
  // From a reference of 0 any change is infinite: min_change cannot widen it further.
  return reference != 0 ? std::max(pct, 100 * change / std::fabs(reference)) : pct;
}

Tolerances tolerances_for(const std::string& option, const std::vector<const ResultFile*>& runs) {
  if (option == "none") return {};
  if (!option.empty()) {
    Tolerances named = load_tolerances(option);
    validate_tolerances(named, option, runs);
    return named;
  }
  if (auto shipped = find_config_file("tolerance.json")) return load_tolerances(*shipped);
  std::string searched;
  for (const std::string& folder : config_search_path()) searched += (searched.empty() ? "" : ", ") + folder;
  throw UsageError{kExitBadInput, "cannot find the shipped tolerance.json (looked in " + searched +
                                      "): give --tolerance FILE, or --tolerance none for no thresholds but --threshold"};
}

}  // namespace gpubench
