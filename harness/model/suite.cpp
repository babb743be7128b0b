#include "harness/model/suite.h"

#include <algorithm>

namespace gpubench {
namespace {

// A function-local static, so that declarations from static initialisers of other files find it
// made whatever the order of initialisation.
std::vector<SuiteDeclaration>& declarations() {
  static std::vector<SuiteDeclaration> all;
  return all;
}

}  // namespace

bool declare_suite(SuiteDeclaration declaration) {
  auto& all = declarations();
  const auto place = std::find_if(all.begin(), all.end(), [&](const SuiteDeclaration& d) {
    return d.rank > declaration.rank || (d.rank == declaration.rank && d.name > declaration.name);
  });
  all.insert(place, std::move(declaration));
  return true;
}

const std::vector<SuiteDeclaration>& declared_suites() { return declarations(); }

std::vector<std::string> declared_suite_names(bool with_hidden) {
  std::vector<std::string> names;
  for (const SuiteDeclaration& d : declarations())
    if (with_hidden || !d.hidden) names.push_back(d.name);
  return names;
}

bool has_finding_rule(const std::string& family) {
  for (const SuiteDeclaration& d : declarations())
    for (const FindingRule& rule : d.findings)
      if (rule.family == family) return true;
  return false;
}

std::vector<std::string> findings_of(const std::vector<BenchResult>& results) {
  std::vector<std::string> lines;
  for (const SuiteDeclaration& d : declarations())
    for (const FindingRule& rule : d.findings) {
      std::vector<const BenchResult*> ok;
      for (const BenchResult& r : results)
        if (r.family == rule.family && r.status == Status::kOk) ok.push_back(&r);
      if (ok.empty()) continue;
      for (std::string& line : rule.find(ok)) lines.push_back(std::move(line));
    }
  return lines;
}

}  // namespace gpubench
