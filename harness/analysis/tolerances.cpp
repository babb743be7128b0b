#include "harness/analysis/tolerances.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace gpubench {
namespace {

double read_pct(const JsonAt& node) {
  const double pct = node.num();
  if (pct < 0) node.fail("a tolerance is a percentage >= 0");
  return pct;
}

std::map<std::string, double> read_metric_pcts(const JsonAt& node) {
  std::map<std::string, double> out;
  for (const auto& [metric, pct] : node.members()) out[metric] = read_pct(pct);
  return out;
}

// A suite or family entry: a bare percentage, or {"pct": P, "metrics": {name: P}}.
std::map<std::string, Tolerances::Scope> read_scopes(const JsonAt& node) {
  std::map<std::string, Tolerances::Scope> out;
  for (const auto& [name, value] : node.members()) {
    Tolerances::Scope& scope = out[name];
    if (value.get().is_number()) {
      scope.pct = read_pct(value);
      continue;
    }
    value.only_keys({"pct", "metrics"});
    if (auto pct = value.find("pct")) scope.pct = read_pct(*pct);
    if (auto metrics = value.find("metrics")) scope.metrics = read_metric_pcts(*metrics);
  }
  return out;
}

}  // namespace

Tolerances parse_tolerances(const JsonAt& node) {
  node.only_keys({"description", "default_pct", "suites", "families", "patterns", "metrics"});
  Tolerances t;
  if (auto description = node.find("description")) description->str();
  if (auto pct = node.find("default_pct")) t.default_pct = read_pct(*pct);
  if (auto suites = node.find("suites")) t.suites = read_scopes(*suites);
  if (auto families = node.find("families")) t.families = read_scopes(*families);
  if (auto patterns = node.find("patterns")) t.patterns = read_scopes(*patterns);
  if (auto metrics = node.find("metrics")) t.metrics = read_metric_pcts(*metrics);
  return t;
}

nlohmann::json to_json(const Tolerances& t) {
  nlohmann::json out = nlohmann::json::object();
  if (t.default_pct) out["default_pct"] = *t.default_pct;
  for (const auto& [key, scopes] : {std::pair("suites", &t.suites), std::pair("families", &t.families),
                                    std::pair("patterns", &t.patterns)})
    for (const auto& [name, scope] : *scopes) {
      nlohmann::json& entry = out[key][name] = nlohmann::json::object();
      if (scope.pct) entry["pct"] = *scope.pct;
      if (!scope.metrics.empty()) entry["metrics"] = scope.metrics;
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

// DESIGN.md's suites: a tolerance file may cover suites a run leaves out.
constexpr const char* kKnownSuites[] = {"memory", "transfer", "launch", "gemm", "conv", "attention", "collective"};

[[noreturn]] void names_nothing(const std::string& file, const std::string& place, const std::string& what) {
  throw UsageError{kExitBadInput, file + ": " + place + ": " + what};
}

}  // namespace

void validate_tolerances(const Tolerances& t, const std::string& file, const std::vector<const ResultFile*>& runs) {
  std::set<std::string> suites, families, metrics;
  for (const ResultFile* run : runs)
    for (const BenchmarkResult& b : run->benchmarks) {
      suites.insert(b.suite);
      families.insert(b.family);
      for (const auto& [metric, m] : b.metrics) metrics.insert(metric);
      if (!b.primary_metric.empty()) metrics.insert(b.primary_metric);
    }
  const auto known = std::begin(kKnownSuites), known_end = std::end(kKnownSuites);
  auto check_metrics = [&](const std::string& place, const std::map<std::string, double>& pcts, bool present) {
    for (const auto& [metric, pct] : pcts)
      if (present && !metrics.count(metric))
        names_nothing(file, place + "/metrics/" + metric, "no benchmark of the compared files has the metric \"" +
                                                               metric + "\"");
  };
  for (const auto& [suite, scope] : t.suites) {
    if (!suites.count(suite) && std::find(known, known_end, suite) == known_end)
      names_nothing(file, "/suites/" + suite, "no suite \"" + suite + "\" (in the compared files or known)");
    check_metrics("/suites/" + suite, scope.metrics, suites.count(suite) > 0);
  }
  // A family is held to the files only where they hold its suite; a pattern by its literal
  // suite and family (its sizes and other axes may belong to another sweep the file serves).
  auto check_family = [&](const std::string& place, const std::string& family) {
    const std::string suite = family.substr(0, family.find('/'));
    const bool literal_family = family.find('/') != std::string::npos && family.find_first_of("*?[") == std::string::npos;
    if (suite.find_first_of("*?[") != std::string::npos) return;
    if (!suites.count(suite) && std::find(known, known_end, suite) == known_end)
      names_nothing(file, place, "no suite \"" + suite + "\" (in the compared files or known)");
    if (literal_family && suites.count(suite) && !families.count(family))
      names_nothing(file, place, "no family \"" + family + "\" in the compared files");
  };
  for (const auto& [family, scope] : t.families) {
    check_family("/families/" + family, family);
    check_metrics("/families/" + family, scope.metrics, families.count(family) > 0);
  }
  for (const auto& [pattern, scope] : t.patterns) {
    const auto second = pattern.find('/', pattern.find('/') + 1);
    check_family("/patterns/" + pattern, pattern.substr(0, second));
    bool matched = false;
    for (const ResultFile* run : runs)
      for (const BenchmarkResult& b : run->benchmarks)
        matched = matched || fnmatch(pattern.c_str(), b.name.c_str(), 0) == 0;
    check_metrics("/patterns/" + pattern, scope.metrics, matched);
  }
  check_metrics("", t.metrics, true);
}

double Tolerances::pct_for(const BenchmarkResult& benchmark, const std::string& metric,
                           double fallback) const {
  auto scoped = [&](const std::map<std::string, Scope>& scopes,
                    const std::string& key) -> std::optional<double> {
    auto it = scopes.find(key);
    if (it == scopes.end()) return std::nullopt;
    auto m = it->second.metrics.find(metric);
    if (m != it->second.metrics.end()) return m->second;
    return it->second.pct;
  };
  const std::string* longest = nullptr;
  for (const auto& [pattern, scope] : patterns)
    if (fnmatch(pattern.c_str(), benchmark.name.c_str(), 0) == 0 && (!longest || pattern.size() > longest->size()))
      longest = &pattern;
  if (longest)
    if (auto pct = scoped(patterns, *longest)) return *pct;
  if (auto pct = scoped(families, benchmark.family)) return *pct;
  if (auto pct = scoped(suites, benchmark.suite)) return *pct;
  auto m = metrics.find(metric);
  if (m != metrics.end()) return m->second;
  return default_pct.value_or(fallback);
}

}  // namespace gpubench
