#include "harness/report/report_verdicts.h"

#include <algorithm>
#include <cmath>

#include "harness/analysis/judgeable.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

const char* tone_of(Verdict v) {
  switch (v) {
    case Verdict::kRegressed:
    case Verdict::kNotOk:
    case Verdict::kMissing: return "bad";
    case Verdict::kNoisy: return "warn";
    case Verdict::kImproved: return "good";
    case Verdict::kNew:
    case Verdict::kSame: return "";
  }
  return "";
}

const char* tone_of(LineResult r) {
  switch (r) {
    case LineResult::kFail:
    case LineResult::kMissing:
    case LineResult::kError: return "bad";
    case LineResult::kWarn: return "warn";
    case LineResult::kPass: return "";
  }
  return "";
}

std::string figure(const std::optional<double>& value) { return value ? format_number(*value) : "-"; }

}  // namespace

VerdictTable verdict_table(const Comparison& c) {
  VerdictTable t;
  t.title = "Compare: base " + c.base_path + ", new " + c.new_path;
  t.failed = c.failed();
  for (Verdict v : {Verdict::kRegressed, Verdict::kNotOk, Verdict::kMissing, Verdict::kNoisy, Verdict::kImproved,
                    Verdict::kNew, Verdict::kSame})
    t.summary += (t.summary.empty() ? "" : " / ") + std::string(v == Verdict::kNotOk ? "not ok" : to_string(v)) + " " +
                 std::to_string(c.count(v));
  t.summary += t.failed ? ": FAIL" + unjudgeable_note(c.unjudgeable) : ": ok";
  t.unjudgeable = c.unjudgeable;
  t.context_header = {"context", "base", "new"};
  for (const ContextDifference& d : c.context) {
    t.context_rows.push_back({d.field});
    t.context_rows.back().insert(t.context_rows.back().end(), d.values.begin(), d.values.end());
  }
  t.header = {"verdict", "benchmark", "metric", "base", "new", "change", "p", "threshold", "note"};
  t.quiet_label = "unchanged lines with a note";
  for (const MetricComparison& r : c.rows) {
    if (r.verdict == Verdict::kSame && r.note.empty()) {
      ++t.unchanged;
      continue;
    }
    const bool both = r.base && r.now;
    std::vector<std::string> row = {
        r.verdict == Verdict::kNotOk ? r.status : to_string(r.verdict), r.benchmark, r.metric, figure(r.base),
        figure(r.now), both ? format_change(r.change_pct, r.change_in_points) : "-", format_p_value(r.p_value),
        both ? format_number(r.threshold_pct, 2) + (r.change_in_points ? " pt" : "%") : "-", r.note};
    if (r.verdict == Verdict::kSame) {
      t.quiet_rows.push_back(std::move(row));
      continue;
    }
    t.rows.push_back(std::move(row));
    t.row_tone.push_back(tone_of(r.verdict));
  }
  return t;
}

VerdictTable verdict_table(const CheckReport& report) {
  VerdictTable t;
  t.title = "Check: " + report.run_path + " against " + report.baseline_path;
  t.failed = report.failed();
  for (LineResult l : {LineResult::kPass, LineResult::kWarn, LineResult::kFail, LineResult::kMissing, LineResult::kError})
    t.summary += (t.summary.empty() ? "" : " / ") + std::string(to_string(l)) + " " + std::to_string(report.count(l));
  t.summary += t.failed ? ": FAIL" + unjudgeable_note(report.unjudgeable) : ": ok";
  t.unjudgeable = report.unjudgeable;
  t.header = {"result", "subject", "metric", "value", "expected", "margin", "note"};
  t.quiet_label = "passing lines";
  // Failures first, then warnings; the passes, what the node was held to, folded below them.
  for (LineResult shown : {LineResult::kFail, LineResult::kError, LineResult::kMissing, LineResult::kWarn,
                           LineResult::kPass})
    for (const CheckLine& l : report.lines) {
      if (l.result != shown) continue;
      std::vector<std::string> row = {to_string(l.result), l.subject, l.metric, value_text(l),
                                      l.expected.empty() ? "-" : l.expected,
                                      l.margin_pct ? format_pct(*l.margin_pct) : "-", l.note};
      if (shown == LineResult::kPass) {
        t.quiet_rows.push_back(std::move(row));
        continue;
      }
      t.rows.push_back(std::move(row));
      t.row_tone.push_back(tone_of(l.result));
    }
  for (const std::string& e : report.retry_errors) {
    t.rows.push_back({"error", "retry", "", "-", "-", "-", e});
    t.row_tone.push_back("bad");
  }
  return t;
}

std::optional<VerdictTable> unjudgeable_table(const ResultFile& run) {
  if (run.unjudgeable.empty()) return std::nullopt;
  VerdictTable t;
  t.title = "Run: " + run.path;
  t.failed = true;
  t.unjudgeable = unjudgeable_lines({&run});
  t.summary = "FAIL" + unjudgeable_note(t.unjudgeable);
  return t;
}

std::map<std::string, std::string> changed_benchmarks(const Comparison& c) {
  std::map<std::string, Verdict> worst;
  for (const MetricComparison& r : c.rows)
    if (r.verdict != Verdict::kSame && r.verdict != Verdict::kNew && r.verdict != Verdict::kMissing) {
      const auto [it, added] = worst.try_emplace(r.benchmark, r.verdict);
      if (!added) it->second = std::min(it->second, r.verdict);  // Verdict is ordered worst first
    }
  std::map<std::string, std::string> out;
  for (const auto& [name, verdict] : worst) out.emplace(name, to_string(verdict));
  return out;
}

}  // namespace gpubench
