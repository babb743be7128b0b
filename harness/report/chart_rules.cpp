#include "harness/report/chart_rules.h"

namespace gpubench {

const std::vector<CurveRule>& curve_rules() {
  static const std::vector<CurveRule> rules = [] {
    std::vector<CurveRule> out;
    for (const SuiteDeclaration& suite : declared_suites()) out.insert(out.end(), suite.curves.begin(), suite.curves.end());
    return out;
  }();
  return rules;
}

const std::vector<BarRule>& bar_rules() {
  static const std::vector<BarRule> rules = [] {
    std::vector<BarRule> out;
    for (const SuiteDeclaration& suite : declared_suites()) out.insert(out.end(), suite.bars.begin(), suite.bars.end());
    return out;
  }();
  return rules;
}

const std::vector<TraceRule>& trace_rules() {
  static const std::vector<TraceRule> rules = [] {
    std::vector<TraceRule> out;
    for (const SuiteDeclaration& suite : declared_suites()) out.insert(out.end(), suite.traces.begin(), suite.traces.end());
    return out;
  }();
  return rules;
}

std::string suite_of_family(const std::string& family) { return family.substr(0, family.find('/')); }

}  // namespace gpubench
