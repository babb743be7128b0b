#include "harness/analysis/check.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "harness/analysis/check_health.h"
#include "harness/analysis/gpu_names.h"
#include "harness/analysis/judgeable.h"
#include "harness/model/text_table.h"

namespace gpubench {

const char* to_string(LineResult result) {
  switch (result) {
    case LineResult::kPass: return "pass";
    case LineResult::kWarn: return "warn";
    case LineResult::kFail: return "fail";
    case LineResult::kMissing: return "missing";
    case LineResult::kError: return "error";
  }
  return "?";
}

namespace {

[[noreturn]] void mismatch(const Baseline& b, const std::string& field, const ResultFile& run,
                           const std::string& what) {
  throw UsageError{kExitBadInput, b.path + ": /applies_to/" + field + ": baseline does not apply to " +
                                      run.path + ": " + what};
}

}  // namespace

void verify_applies_to(const Baseline& b, const ResultFile& run) {
  const AppliesTo& a = b.applies_to;
  if (run.gpus.empty()) mismatch(b, "gpu_model", run, "the run's context lists no GPU");
  for (const GpuInfo& g : run.gpus)
    if (g.name != a.gpu_model)
      mismatch(b, "gpu_model", run, "baseline is for \"" + a.gpu_model + "\", gpu" +
                                        std::to_string(g.index) + " is \"" + g.name + "\"");
  // PCIe is matched on the link's capability: its current state is a health question.
  for (const GpuInfo& g : run.gpus) {
    const std::string gpu = "gpu" + std::to_string(g.index);
    if (a.pcie_gen && g.pcie.gen_max > 0 && g.pcie.gen_max != *a.pcie_gen)
      mismatch(b, "pcie_gen", run, "baseline is for PCIe gen" + std::to_string(*a.pcie_gen) + ", " +
                                       gpu + " supports gen" + std::to_string(g.pcie.gen_max));
    if (a.pcie_width && g.pcie.width_max > 0 && g.pcie.width_max != *a.pcie_width)
      mismatch(b, "pcie_width", run, "baseline is for PCIe x" + std::to_string(*a.pcie_width) + ", " +
                                         gpu + " supports x" + std::to_string(g.pcie.width_max));
  }
}

namespace {

struct Target {
  const Expectation* expectation = nullptr;
  const BenchmarkResult* benchmark = nullptr;
  std::string metric;
};

CheckLine evaluate(const Baseline& baseline, const Target& t) {
  const Expectation& e = *t.expectation;
  const BenchmarkResult& b = *t.benchmark;
  CheckLine line;
  line.subject = line.benchmark = b.name;
  line.metric = t.metric;
  if (!b.ok()) {
    line.result = LineResult::kError;
    line.note = to_string(b.status) + (b.error.empty() ? "" : ": " + b.error);
    return line;
  }
  auto it = b.metrics.find(t.metric);
  if (it == b.metrics.end()) {
    line.result = LineResult::kError;
    line.note = "the run has no metric \"" + t.metric + "\" for this benchmark";
    return line;
  }
  const MetricResult& m = it->second;
  const double v = m.median;
  line.value = v;
  bool floor = e.bound == Bound::kFloor;
  double bound = e.value;
  if (e.bound == Bound::kReference) {
    // A reference bounds the bad direction only: a faster GPU is not a failure.
    const double tol = e.tolerance_pct.value_or(baseline.tolerance_pct) / 100;
    floor = m.higher_is_better;
    bound = floor ? e.value * (1 - tol) : e.value / (1 - tol);
    line.note = "reference " + format_number(e.value) + " ± " + format_number(tol * 100, 3) + "%";
  }
  line.expected = (floor ? ">= " : "<= ") + format_number(bound);
  const bool beyond = floor ? v < bound : v > bound;
  // The margin is the ratio by which the figure beats its bound, value/floor or ceiling/value,
  // so that a floor at median x (1 - t) and a ceiling at median / (1 - t) leave the same
  // margin at the median.
  if (floor ? bound > 0 : v > 0) line.margin_pct = 100 * (floor ? v / bound : bound / v) - 100;
  const double warn = e.warn_pct.value_or(baseline.warn_pct);
  line.result = beyond ? LineResult::kFail
                : line.margin_pct && *line.margin_pct < warn ? LineResult::kWarn
                                                             : LineResult::kPass;
  if (b.throttled) line.note += std::string(line.note.empty() ? "" : "; ") + "measured throttled";
  if (const std::string causes = b.node_causes(); !causes.empty() && line.result != LineResult::kPass)
    line.note += (line.note.empty() ? "" : "; ") + causes;
  return line;
}

// Which entry checks a (benchmark, metric) pair when several match: an exact name over a
// placeholder name over a pattern; among equals the later one (general entries first, specific
// ones after, as in a .gitignore).
int precedence(const Expectation& e) { return e.is_pattern ? 0 : e.placeholders > 0 ? 1 : 2; }

CheckLine missing_line(const Expectation& e, const std::string& subject) {
  CheckLine line;
  line.subject = subject;
  line.benchmark = e.is_pattern ? "" : subject;
  line.metric = e.metric.empty() ? "-" : e.metric;
  line.result = LineResult::kMissing;
  line.note = e.is_pattern ? "no benchmark of the run matches this pattern" : "not in the run";
  return line;
}

}  // namespace

// The run is the acceptance: a benchmark that failed its verification, timed out or was
// interrupted fails the node whether or not the baseline has a bound for it.
void unbounded_failure_lines(const ResultFile& run, const std::set<std::string>& checked,
                             std::vector<CheckLine>& lines) {
  for (const BenchmarkResult& b : run.benchmarks) {
    if (b.ok() || b.status == Status::kSkipped || checked.count(b.name)) continue;
    CheckLine line;
    line.subject = line.benchmark = b.name;
    line.metric = b.primary_metric.empty() ? "-" : b.primary_metric;
    line.expected = "ok (no bound in the baseline)";
    line.result = LineResult::kError;
    line.note = to_string(b.status) + std::string(": ") + b.error;
    lines.push_back(std::move(line));
  }
}

CheckReport check_run(const Baseline& baseline, const ResultFile& run, const CheckOptions& options) {
  validate_baseline_metrics(baseline, run);
  CheckReport report;
  report.baseline_path = baseline.path;
  report.run_path = run.path;
  report.host = run.host_name;
  report.gpu_model = !baseline.applies_to.gpu_model.empty() ? baseline.applies_to.gpu_model
                     : !run.gpus.empty()                    ? run.gpus.front().name
                                                            : "";
  report.baseline_name = std::filesystem::path(baseline.path).stem().string();
  report.unjudgeable = unjudgeable_lines({&run});
  gpu_count_line(run, options, report.lines);
  std::vector<int> gpus;
  for (const GpuInfo& g : run.gpus) gpus.push_back(g.index);
  // Lines in baseline order, one per (benchmark, metric) pair.
  std::vector<std::optional<Target>> targets(report.lines.size());
  std::map<std::string, std::size_t> slot;  // "name\nmetric" -> index in targets
  auto assign = [&](const Expectation& e, const BenchmarkResult& b) {
    Target t{&e, &b, e.metric.empty() ? b.primary_metric : e.metric};
    if (t.metric.empty()) t.metric = "-";
    const std::string key = b.name + "\n" + t.metric;
    auto it = slot.find(key);
    if (it == slot.end()) {
      slot[key] = targets.size();
      targets.push_back(t);
      report.lines.emplace_back();
    } else if (precedence(e) >= precedence(*targets[it->second]->expectation)) {
      targets[it->second] = t;
    }
  };
  for (const Expectation& e : baseline.expectations) {
    if (static_cast<int>(gpus.size()) < e.gpus_needed()) continue;  // not for a node this small
    if (e.is_pattern) {
      std::size_t matched = 0;
      for (const BenchmarkResult& b : run.benchmarks)
        if (fnmatch(e.name.c_str(), b.name.c_str(), 0) == 0) {
          assign(e, b);
          ++matched;
        }
      if (matched) continue;
      targets.emplace_back();
      report.lines.push_back(missing_line(e, e.name));
      continue;
    }
    // Every GPU (pair) of the node is checked: one absent from the run is a missing line.
    for (const std::string& name : expand_gpu_name(e.name, gpus, e.unordered_pairs)) {
      if (const BenchmarkResult* b = run.find(name)) {
        assign(e, *b);
        continue;
      }
      targets.emplace_back();
      report.lines.push_back(missing_line(e, name));
    }
  }
  std::set<std::string> checked;
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i]) {
      report.lines[i] = evaluate(baseline, *targets[i]);
      checked.insert(targets[i]->benchmark->name);
    }
  unbounded_failure_lines(run, checked, report.lines);
  health_lines(baseline, run, report.lines);
  return report;
}

std::string value_text(const CheckLine& line) {
  return line.value ? format_number(*line.value) : !line.unknown.empty() ? "unknown" : "-";
}

int CheckReport::unknowns() const {
  return static_cast<int>(
      std::count_if(lines.begin(), lines.end(), [](const CheckLine& l) { return !l.unknown.empty(); }));
}

int CheckReport::count(LineResult result) const {
  return static_cast<int>(std::count_if(lines.begin(), lines.end(),
                                        [&](const CheckLine& l) { return l.result == result; }));
}

bool CheckReport::failed() const {
  return !unjudgeable.empty() ||
         count(LineResult::kFail) + count(LineResult::kMissing) + count(LineResult::kError) > 0;
}

std::vector<std::string> failing_benchmarks(const CheckReport& report) {
  std::vector<std::string> out;
  for (const CheckLine& l : report.lines)
    if ((l.result == LineResult::kFail || l.result == LineResult::kError) && !l.benchmark.empty() &&
        std::find(out.begin(), out.end(), l.benchmark) == out.end())
      out.push_back(l.benchmark);
  return out;
}

namespace {

// The re-run benchmarks in place of the first ones, with the re-run's reasons in place of
// theirs; a reason of the re-run as a whole (interrupted, say) is the run's too.
void take_reruns(ResultFile& run, const ResultFile& again, const std::vector<std::string>& names) {
  auto& reasons = run.unjudgeable;
  for (const UnjudgeableReason& r : again.unjudgeable)
    if (r.benchmark.empty()) reasons.push_back(r);
  for (const std::string& name : names) {
    const BenchmarkResult* fresh = again.find(name);
    if (!fresh) continue;
    run.put(*fresh);
    auto of_name = [&](const UnjudgeableReason& r) { return r.benchmark == name; };
    reasons.erase(std::remove_if(reasons.begin(), reasons.end(), of_name), reasons.end());
    std::copy_if(again.unjudgeable.begin(), again.unjudgeable.end(), std::back_inserter(reasons), of_name);
  }
}

}  // namespace

CheckReport check_with_retries(const Baseline& baseline, ResultFile run, const CheckOptions& options,
                               const Rerun& rerun) {
  const CheckReport first = check_run(baseline, run, options);
  CheckReport report = first;
  std::map<std::string, int> reruns;
  for (int attempt = 1; attempt <= options.retries; ++attempt) {
    const std::vector<std::string> names = failing_benchmarks(report);
    if (names.empty()) break;
    // A retry that cannot run leaves the report as it stands: its error goes beside it.
    ResultFile again;
    try {
      again = rerun(names);
    } catch (const UsageError& e) {
      report.retry_errors.push_back("retry " + std::to_string(attempt) + ": " + e.message);
      break;
    } catch (const std::exception& e) {
      report.retry_errors.push_back("retry " + std::to_string(attempt) + ": " + e.what());
      break;
    }
    judge_run(again);
    take_reruns(run, again, names);
    for (const std::string& name : names) ++reruns[name];
    std::vector<std::string> errors = std::move(report.retry_errors);
    report = check_run(baseline, run, options);
    report.retry_errors = std::move(errors);
  }
  // The first report stands beside the retries: each retried line keeps what it first showed.
  for (CheckLine& line : report.lines) {
    auto it = reruns.find(line.benchmark);
    if (it == reruns.end()) continue;
    line.retries = it->second;
    for (const CheckLine& before : first.lines)
      if (before.subject == line.subject && before.metric == line.metric) {
        line.first_result = before.result;
        line.first_value = before.value;
      }
  }
  return report;
}

std::vector<std::string> suites_for(const Baseline& baseline) {
  if (!baseline.run.suites.empty()) return baseline.run.suites;
  std::set<std::string> suites;
  for (const Expectation& e : baseline.expectations) {
    const std::string first = e.name.substr(0, e.name.find('/'));
    if (first.find_first_of("*?[\\") != std::string::npos) return {"all"};
    suites.insert(first);
  }
  return {suites.begin(), suites.end()};
}

}  // namespace gpubench
