#include "harness/analysis/check_health.h"

#include <algorithm>
#include <map>

#include "harness/model/health.h"

namespace gpubench {
namespace {

CheckLine health(const std::string& subject, const std::string& metric, const std::string& expected,
                 const std::string& note, const std::string& benchmark = "") {
  CheckLine line;
  line.subject = subject;
  line.benchmark = benchmark;
  line.metric = metric;
  line.expected = expected;
  line.note = note;
  return line;
}

// Adds a health line unless the policy turns that check off.
void health_line(std::vector<CheckLine>& lines, Severity severity, bool bad, CheckLine line) {
  if (severity == Severity::kOff) return;
  line.result = !bad ? LineResult::kPass
                : severity == Severity::kFail ? LineResult::kFail
                                              : LineResult::kWarn;
  lines.push_back(std::move(line));
}

// What a field that could not be read counts as: the check's severity where the baseline asks
// for the field, a warning where it does not (never a pass), nothing where the check is off.
Severity unknown_severity(const Baseline& b, HealthRule rule) {
  const Severity severity = b.health.severity(rule);
  return severity == Severity::kOff || asks_for(b, rule) ? severity : Severity::kWarn;
}

// GPUs that pass a check share one line ("health/pcie: 8 GPU(s): link at gen5 x16"), so that a
// healthy node prints a line per check and a problem GPU stands out on a line of its own. An
// unknown that every GPU shares (NVML read the field on none) is one line too.
void fold_lines(std::vector<CheckLine> per_gpu, const std::string& check, std::size_t gpus,
                std::vector<CheckLine>& lines) {
  auto fold = [&](const std::vector<CheckLine>& alike, const std::string& when_mixed) {
    CheckLine folded = alike[0];
    folded.subject = "health/" + check;
    const bool same =
        std::all_of(alike.begin(), alike.end(), [&](const CheckLine& l) { return l.note == alike[0].note; });
    folded.note = std::to_string(alike.size()) + " GPU(s)" + (same ? ": " + alike[0].note : when_mixed);
    lines.push_back(folded);
  };
  std::vector<CheckLine> passes, problems;
  for (CheckLine& l : per_gpu) (l.result == LineResult::kPass ? passes : problems).push_back(std::move(l));
  if (!passes.empty()) fold(passes, " pass");
  const bool shared_unknown =
      gpus > 1 && problems.size() == gpus && std::all_of(problems.begin(), problems.end(), [&](const CheckLine& l) {
        return !l.unknown.empty() && l.note == problems[0].note && l.result == problems[0].result;
      });
  if (shared_unknown) fold(problems, "");
  else lines.insert(lines.end(), problems.begin(), problems.end());
}

// Links join GPUs: a node that shows one GPU has none to check. The expected count is the
// baseline's, else the most any GPU of the node has up (one GPU short of its peers fails).
int expected_nvlinks(const Baseline& baseline, const ResultFile& run) {
  if (run.gpus.size() < 2) return 0;
  if (baseline.applies_to.nvlinks_per_gpu) return *baseline.applies_to.nvlinks_per_gpu;
  int most = 0;
  for (const GpuInfo& g : run.gpus) most = std::max(most, g.nvlinks_active.value_or(0));
  return most;
}

// Error counters not recorded are unchecked, never passed: said once for a run without any
// (NVML unavailable, or a gpubench that did not record them), and per GPU for a GPU that lacks
// what the others have.
void error_counters_recorded_lines(const Baseline& b, const ResultFile& run, std::vector<CheckLine>& lines) {
  if (run.gpus.empty()) return;
  const auto recorded = std::count_if(run.gpus.begin(), run.gpus.end(),
                                      [](const GpuInfo& g) { return !g.error_counters.empty(); });
  const Severity severity = unknown_severity(b, HealthRule::kEccErrors);
  auto line = [&](const std::string& subject, const std::string& note) {
    CheckLine l = health(subject, "-", "recorded", note);
    l.unknown = "error_counters";
    health_line(lines, severity, true, std::move(l));
  };
  if (recorded == 0) {
    line("health/error_counters", std::string("the run has no error counters (") +
                                      (run.nvml_available == false ? "NVML unavailable"
                                                                   : "run by a gpubench that did not record them") +
                                      "): unchecked");
    return;
  }
  for (const GpuInfo& g : run.gpus)
    if (g.error_counters.empty())
      line("health/gpu" + std::to_string(g.index) + "/error_counters",
           "no error counters recorded for this GPU, " + std::to_string(recorded) +
               " other GPU(s) have them: unchecked");
}

}  // namespace

void gpu_count_line(const ResultFile& run, const CheckOptions& options, std::vector<CheckLine>& lines) {
  if (!options.expected_gpus) return;
  const int shown = static_cast<int>(run.gpus.size()), expected = *options.expected_gpus;
  CheckLine line = health("health/gpus", "gpus", std::to_string(expected), "");
  line.value = shown;
  if (shown < expected) {
    line.result = LineResult::kFail;
    line.note = "the node shows " + std::to_string(shown) + " of " + std::to_string(expected) +
                " GPUs: a GPU fell off the bus (or CUDA_VISIBLE_DEVICES hides it)";
  } else {
    line.result = shown > expected ? LineResult::kWarn : LineResult::kPass;
    line.note = "the node shows " + std::to_string(shown) + " GPU(s), " + std::to_string(expected) + " expected";
  }
  lines.push_back(line);
}

void health_lines(const Baseline& baseline, const ResultFile& run, std::vector<CheckLine>& lines) {
  const HealthPolicy& h = baseline.health;
  if (run.nvml_available == false)
    health_line(lines, Severity::kWarn, true,
                health("health/nvml", "-", "available",
                       "NVML unavailable (" + run.nvml_error + "): links, ECC, throttling unchecked"));
  std::map<HealthRule, std::vector<CheckLine>> by_rule;
  const int links = expected_nvlinks(baseline, run);
  for (const GpuInfo& g : run.gpus) {
    std::vector<HealthFinding> findings = gpu_health(g, links);
    for (HealthFinding& f : counter_health(g, h.counter_limits, links)) findings.push_back(std::move(f));
    for (const HealthFinding& f : findings) {
      // A notice (a non-critical XID, a pending remap) warns under any severity but off.
      const Severity severity = !f.unknown.empty() ? unknown_severity(baseline, f.rule)
                                : f.notice && h.severity(f.rule) != Severity::kOff ? Severity::kWarn
                                                                                   : h.severity(f.rule);
      CheckLine line = health("health/gpu" + std::to_string(g.index) + "/" + to_string(f.rule), to_string(f.rule),
                              f.expected, f.text);
      line.unknown = f.unknown;
      health_line(by_rule[f.rule], severity, f.bad || f.notice || !f.unknown.empty(), std::move(line));
    }
  }
  error_counters_recorded_lines(baseline, run, lines);
  for (auto& [rule, rule_lines] : by_rule) fold_lines(std::move(rule_lines), to_string(rule), run.gpus.size(), lines);
  for (const BenchmarkResult& b : run.benchmarks) {
    if (!b.throttled) continue;
    std::string reasons;
    for (const std::string& r : b.throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + r;
    health_line(lines, h.throttling, true,
                health("health/throttling", "-", "not throttled",
                       b.name + " throttled" + (reasons.empty() ? "" : ": " + reasons), b.name));
  }
}

}  // namespace gpubench
