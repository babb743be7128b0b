// validate_tolerances (tolerances.h): a tolerance entry that names nothing in the files it is
// applied to is a bad file, since a misspelt entry silently leaves its benchmarks at the default.
#include <fnmatch.h>

#include <algorithm>

#include "harness/analysis/gpu_names.h"
#include "harness/analysis/run_inventory.h"
#include "harness/analysis/tolerances.h"
#include "harness/model/suite.h"

namespace gpubench {
namespace {

bool has_glob(const std::string& text) { return text.find_first_of("*?[\\") != std::string::npos; }

class EntryCheck {
 public:
  EntryCheck(const Tolerances& t, const std::string& file, const std::vector<const ResultFile*>& runs)
      : file_(file), derived_(t.derived_from.has_value()), runs_(runs), inventory_(inventory_of(runs)) {
    for (const ResultFile* run : runs)
      for (const BenchmarkResult& b : run->benchmarks) {
        by_name_[b.name].push_back(&b);
        const std::string general = generalise_gpu_name(b.name, nullptr);
        if (general != b.name) by_name_[general].push_back(&b);
      }
  }

  void suite(const std::string& name, const Tolerances::Scope& scope) {
    const std::string place = "/suites/" + name;
    if (suite_applies(place, name)) metrics(place, scope, inventory_.suites.at(name));
  }

  void family(const std::string& name, const Tolerances::Scope& scope) {
    const std::string place = "/families/" + name;
    if (!suite_applies(place, name.substr(0, name.find('/')))) return;
    if (const Holdings* family = present_family(place, name)) metrics(place, scope, *family);
  }

  void pattern(const std::string& key, const Tolerances::Scope& scope, bool is_name) {
    const std::string place = "/patterns/" + key;
    const std::vector<std::string> parts = name_components(key);
    if (!has_glob(parts[0])) {
      if (!suite_applies(place, parts[0])) return;
      if (parts.size() > 1 && !has_glob(parts[1]) && !family_axes(place, parts))
        return;  // a derived file's family these runs lack
    }
    const std::vector<const BenchmarkResult*> matched = matching(key, is_name);
    if (matched.empty()) {
      if (derived_) return;  // a benchmark of the sweeps the file was derived from, not of these
      fail(place, "matches no benchmark of the compared files");
    }
    Holdings holdings;
    for (const BenchmarkResult* b : matched) add_holdings(holdings, *b);
    metrics(place, scope, holdings);
  }

  void top_level_metrics(const std::map<std::string, double>& pcts) {
    Tolerances::Scope scope;
    scope.metrics = pcts;
    metrics("", scope, inventory_.all);
  }

 private:
  [[noreturn]] void fail(const std::string& place, const std::string& what) const {
    throw UsageError{kExitBadInput, file_ + ": " + place + ": " + what};
  }

  // A suite the runs hold applies; one they lack does not, but it must be a suite at all.
  bool suite_applies(const std::string& place, const std::string& suite) const {
    if (inventory_.suites.count(suite)) return true;
    // A tolerance file may cover suites a run leaves out: those the suites declare.
    const auto known = declared_suite_names();
    if (std::find(known.begin(), known.end(), suite) == known.end())
      fail(place, "no suite \"" + suite + "\" (in the compared files or known)");
    return false;
  }

  const Holdings* present_family(const std::string& place, const std::string& family) const {
    auto it = inventory_.families.find(family);
    if (it != inventory_.families.end()) return &it->second;
    if (!derived_) fail(place, "no family \"" + family + "\" in the compared files");
    return nullptr;
  }

  // A pattern's literal family must be in the runs, and its literal axis names that family's.
  // `mode:node` is no family's axis: node mode puts it into any per-GPU figure's name, and an
  // entry for node figures must load against solo runs, where it matches nothing.
  bool family_axes(const std::string& place, const std::vector<std::string>& parts) const {
    const Holdings* family = present_family(place, parts[0] + "/" + parts[1]);
    if (!family) return false;
    for (std::size_t i = 2; i < parts.size(); ++i) {
      const std::size_t colon = parts[i].find(':');
      if (colon == std::string::npos || has_glob(parts[i].substr(0, colon)) || parts[i] == "mode:node") continue;
      const std::string axis = parts[i].substr(0, colon);
      if (!family->axes.count(axis))
        fail(place, "no axis \"" + axis + "\" in " + parts[0] + "/" + parts[1] + " (its axes: " +
                        listed(family->axes) + ")");
    }
    return true;
  }

  std::vector<const BenchmarkResult*> matching(const std::string& key, bool is_name) const {
    if (is_name) {
      auto it = by_name_.find(key);
      return it == by_name_.end() ? std::vector<const BenchmarkResult*>{} : it->second;
    }
    std::vector<const BenchmarkResult*> out;
    for (const ResultFile* run : runs_)
      for (const BenchmarkResult& b : run->benchmarks)
        if (fnmatch(key.c_str(), b.name.c_str(), 0) == 0) out.push_back(&b);
    return out;
  }

  // An entry's metrics must be metrics of what it applies to, where that was measured whole.
  void metrics(const std::string& place, const Tolerances::Scope& scope, const Holdings& holdings) const {
    if (!holdings.measured || holdings.broken) return;
    for (const auto& [member, values] : {std::pair("/metrics/", &scope.metrics), std::pair("/min_change/", &scope.min_change)})
      for (const auto& [metric, value] : *values)
        if (!holdings.metrics.count(metric))
          fail(place + member + metric, "no benchmark of the compared files that this entry applies to has the metric \"" +
                                            metric + "\" (they have: " + listed(holdings.metrics) + ")");
  }

  const std::string& file_;
  const bool derived_;
  const std::vector<const ResultFile*>& runs_;
  const RunInventory inventory_;
  std::map<std::string, std::vector<const BenchmarkResult*>> by_name_;  // by exact and placeholder name
};

}  // namespace

void validate_tolerances(const Tolerances& t, const std::string& file, const std::vector<const ResultFile*>& runs) {
  EntryCheck check(t, file, runs);
  for (const auto& [suite, scope] : t.suites) check.suite(suite, scope);
  for (const auto& [family, scope] : t.families) check.family(family, scope);
  for (const auto& [name, scope] : t.names) check.pattern(name, scope, true);
  for (const auto& [pattern, scope] : t.patterns) check.pattern(pattern, scope, false);
  check.top_level_metrics(t.metrics);
}

}  // namespace gpubench
