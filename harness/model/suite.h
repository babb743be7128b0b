#pragma once
// What a suite declares of itself beside its families (benches/<suite>/suite.cpp): its name, its
// place among the suites, whether `all` runs it, and the charts the HTML report draws of it. The
// declarations are data without CUDA, linked into both builds, so that the build without benches
// (-DGPUBENCH_CUDA=OFF) renders, checks and helps from the same knowledge as the one with them.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/model/result.h"

namespace gpubench {

enum class AxisFormat { kNumber, kBytes };  // kBytes: ticks at powers of two, "4 KiB", "1 GiB"

struct SeriesMetric {
  std::string metric, label;  // label: empty when the chart plots one metric
};

// A family's metric against one of its axes, as small charts: the `series` axes (a handful of
// values between them) tell the curves of a chart apart, and every other axis that varies in
// the run makes a chart per combination of its values (a parameter slice).
struct CurveRule {
  std::string id, title, family, x_param, x_label, y_label;  // family: "memory/stream"
  std::vector<SeriesMetric> metrics;
  std::map<std::string, std::string> fixed;  // axes held at one value where the family has them
  std::vector<std::string> series;
  AxisFormat x_format = AxisFormat::kBytes;
  bool peak_marker = false, l2_marker = false;
  std::string unless;  // left out when a chart of this id was made (a figure's fallback)
};

// A family's best figure per category (precision), beside the datasheet peak of each.
struct BarRule {
  std::string id, title, family, category, series_param, metric, x_label, y_label;
  std::map<std::string, std::string> fixed;
};

// A quantity over time of each result of a family that records a time series (its
// BenchResult::notes.series: t_s and what was read at each), with the GPU's limit of it marked.
enum class TraceLimit { kMaxSmClock, kPowerLimit };
struct TraceRule {
  std::string id, title, family;
  std::string quantity;  // the slice's field, e.g. "power_w"
  std::string y_label;
  std::string limit_label;  // "power limit", followed by the limit and the unit
  std::string unit;
  TraceLimit limit = TraceLimit::kPowerLimit;
};

// What a suite concludes from one family's results in a run, a sentence per subject (a GPU, a
// kernel, a policy): the table and markdown reporters print them under the results. `find` is
// given the family's ok results, in run order, and none when there are none.
struct FindingRule {
  std::string family;
  std::function<std::vector<std::string>(const std::vector<const BenchResult*>&)> find;
};

struct SuiteDeclaration {
  std::string name;   // the first part of its families' names: "memory"
  int rank = 0;       // suites come in rank order: in the report, the help, the tolerances' checks
  // Its families are hidden from `all` (Family::hidden), and the help and the report's order
  // leave it out (selftest).
  bool hidden = false;
  std::vector<CurveRule> curves;
  std::vector<BarRule> bars;
  std::vector<TraceRule> traces;
  std::vector<FindingRule> findings;
};

// For a static initialiser of benches/<suite>/suite.cpp: `const bool declared = declare_suite({...});`.
bool declare_suite(SuiteDeclaration declaration);
// Every declared suite, by rank (then name).
const std::vector<SuiteDeclaration>& declared_suites();
// Their names, by rank; `with_hidden` false leaves the hidden ones out.
std::vector<std::string> declared_suite_names(bool with_hidden = true);
// Whether a suite declares a finding of `family`'s results.
bool has_finding_rule(const std::string& family);
// The findings of every declared rule over `results` (any order), suite by suite.
std::vector<std::string> findings_of(const std::vector<BenchResult>& results);

}  // namespace gpubench
