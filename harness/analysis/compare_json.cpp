#include "harness/analysis/compare_json.h"

#include <cmath>

#include "harness/model/json_at.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

using nlohmann::json;

constexpr Verdict kVerdicts[] = {Verdict::kRegressed, Verdict::kNotOk, Verdict::kMissing, Verdict::kNoisy,
                                 Verdict::kImproved,  Verdict::kNew,   Verdict::kSame};

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(); }

// A change is written where both figures are and it is finite (read_row recomputes the others).
json change_json(const std::optional<double>& base, const std::optional<double>& now, double change_pct) {
  return base && now && std::isfinite(change_pct) ? json(change_pct) : json();
}

json row_json(const MetricComparison& r) {
  return {{"benchmark", r.benchmark}, {"base_name", r.base_name}, {"metric", r.metric}, {"unit", r.unit},
          {"better", r.higher_is_better ? "higher" : "lower"}, {"base", optional_json(r.base)},
          {"new", optional_json(r.now)}, {"change_pct", change_json(r.base, r.now, r.change_pct)},
          {"change_in_points", r.change_in_points},
          {"u_test_on", r.repetitions_tested ? "repetition_medians" : "samples"},
          {"base_noise_pct", r.base_noise_pct}, {"new_noise_pct", r.new_noise_pct},
          {"p_value", optional_json(r.p_value)}, {"threshold_pct", r.threshold_pct},
          {"verdict", to_string(r.verdict)}, {"status", r.status}, {"note", r.note}};
}

json identities_json(const std::vector<TunedChoice>& choices) {
  json out = json::array();
  for (const TunedChoice& choice : choices) out.push_back(choice.identity);
  return out;
}

json choice_change_json(const ChoiceChange& change) {
  const auto& f = change.figure;
  return {{"benchmark", change.benchmark}, {"base_choice", change.base_choice}, {"new_choice", change.new_choice},
          {"base_identity", identities_json(change.base)}, {"new_identity", identities_json(change.now)},
          {"metric", f ? json(f->metric) : json()},
          {"change_pct", f ? change_json(f->base, f->now, f->change_pct) : json()},
          {"verdict", f ? json(to_string(f->verdict)) : json()}};
}

Verdict read_verdict(const JsonAt& verdict) {
  for (Verdict v : kVerdicts)
    if (verdict.str() == to_string(v)) return v;
  verdict.fail("expected a verdict (regressed, not_ok, missing, noisy, improved, new, same), found \"" +
               verdict.str() + "\"");
}

std::optional<double> optional_figure(const JsonAt& row, const char* key) {
  if (auto node = row.find(key)) return node->num();
  return std::nullopt;
}

MetricComparison read_row(const JsonAt& row) {
  MetricComparison r;
  r.benchmark = row.at("benchmark").str();
  r.base_name = optional_string(row, "base_name");
  r.metric = row.at("metric").str();
  r.unit = optional_string(row, "unit");
  const JsonAt better = row.at("better");
  if (better.str() != "higher" && better.str() != "lower")
    better.fail("expected \"higher\" or \"lower\", found \"" + better.str() + "\"");
  r.higher_is_better = better.str() == "higher";
  r.base = optional_figure(row, "base");
  r.now = optional_figure(row, "new");
  r.change_in_points = optional_bool(row, "change_in_points").value_or(false);
  // A change not written is recomputed as compare computed it (from a base of zero: infinite).
  if (auto change = row.find("change_pct")) r.change_pct = change->num();
  else if (r.base && r.now) r.change_pct = change_between(*r.base, *r.now, r.change_in_points);
  r.repetitions_tested = optional_string(row, "u_test_on") == "repetition_medians";
  r.base_noise_pct = optional_number(row, "base_noise_pct");
  r.new_noise_pct = optional_number(row, "new_noise_pct");
  r.p_value = optional_figure(row, "p_value");
  r.threshold_pct = optional_number(row, "threshold_pct");
  r.verdict = read_verdict(row.at("verdict"));
  r.status = row.find("status") ? row.at("status").str() : "ok";
  r.note = optional_string(row, "note");
  return r;
}

std::vector<TunedChoice> read_identities(const JsonAt& change, const char* key) {
  std::vector<TunedChoice> out;
  if (auto identities = change.find(key))
    for (const JsonAt& identity : identities->items()) out.push_back({identity.get(), ""});
  return out;
}

// The figure beside a choice change is the row of its benchmark and metric.
ChoiceChange read_choice_change(const JsonAt& change, const std::vector<MetricComparison>& rows) {
  ChoiceChange c;
  c.benchmark = change.at("benchmark").str();
  c.base_choice = optional_string(change, "base_choice");
  c.new_choice = optional_string(change, "new_choice");
  c.base = read_identities(change, "base_identity");
  c.now = read_identities(change, "new_identity");
  if (auto metric = change.find("metric")) {
    for (const MetricComparison& r : rows)
      if (r.benchmark == c.benchmark && r.metric == metric->str()) c.figure = r;
    if (!c.figure) metric->fail("no line of benchmark \"" + c.benchmark + "\" and metric \"" + metric->str() + "\"");
  }
  return c;
}

}  // namespace

json comparison_json(const Comparison& c) {
  json out = {{"schema", kCompareSchema}, {"base", c.base_path}, {"new", c.new_path}, {"failed", c.failed()},
              {"allow_missing", c.allow_missing}, {"unjudgeable", c.unjudgeable}};
  out["context_differences"] = json::array();
  for (const ContextDifference& d : c.context)
    out["context_differences"].push_back({{"field", d.field}, {"base", d.values[0]}, {"new", d.values[1]}});
  for (Verdict v : kVerdicts) out["summary"][to_string(v)] = c.count(v);
  out["rows"] = json::array();
  for (const MetricComparison& r : c.rows) out["rows"].push_back(row_json(r));
  out["choice_changes"] = json::array();
  for (const ChoiceChange& change : c.choice_changes) out["choice_changes"].push_back(choice_change_json(change));
  return out;
}

bool is_comparison_document(const json& document) {
  if (!document.is_object()) return false;
  const auto schema = document.find("schema");
  return schema != document.end() && schema->is_string() &&
         schema->get<std::string>().rfind("gpubench-compare/", 0) == 0;
}

Comparison read_comparison(const json& document, const std::string& file) {
  const JsonAt root(document, file);
  const JsonAt schema = root.at("schema");
  if (schema.str() != kCompareSchema)
    schema.fail("unsupported schema \"" + schema.str() + "\" (this gpubench reads \"" + kCompareSchema + "\")");
  Comparison c;
  c.base_path = root.at("base").str();
  c.new_path = root.at("new").str();
  if (auto unjudgeable = root.find("unjudgeable"))
    for (const JsonAt& line : unjudgeable->items()) c.unjudgeable.push_back(line.str());
  if (auto context = root.find("context_differences"))
    for (const JsonAt& d : context->items())
      c.context.push_back({d.at("field").str(), {d.at("base").str(), d.at("new").str()}});
  for (const JsonAt& row : root.at("rows").items()) c.rows.push_back(read_row(row));
  if (auto changes = root.find("choice_changes"))
    for (const JsonAt& change : changes->items()) c.choice_changes.push_back(read_choice_change(change, c.rows));
  const JsonAt failed = root.at("failed");
  // Files from before allow_missing was written: the verdict says whether missing lines failed.
  c.allow_missing = optional_bool(root, "allow_missing").value_or(!failed.boolean() && c.count(Verdict::kMissing) > 0);
  if (c.failed() != failed.boolean())
    failed.fail(std::string("says ") + (failed.boolean() ? "true" : "false") + ", but its lines and unjudgeable runs make it " +
                (c.failed() ? "true" : "false"));
  return c;
}

std::string comparison_csv(const Comparison& c) {
  TextTable table;
  table.header = {"benchmark", "base_name", "metric", "unit", "better", "base", "new", "change_pct",
                  "change_in_points", "u_test_on", "base_noise_pct", "new_noise_pct", "p_value", "threshold_pct",
                  "verdict", "status", "note"};
  auto figure = [](const std::optional<double>& v) { return v ? csv_number(*v) : ""; };
  for (const MetricComparison& r : c.rows)
    table.rows.push_back({r.benchmark, r.base_name, r.metric, r.unit, r.higher_is_better ? "higher" : "lower",
                          figure(r.base), figure(r.now), r.base && r.now ? csv_number(r.change_pct) : "",
                          r.change_in_points ? "true" : "false", r.repetitions_tested ? "repetition_medians" : "samples",
                          csv_number(r.base_noise_pct), csv_number(r.new_noise_pct), figure(r.p_value),
                          csv_number(r.threshold_pct), to_string(r.verdict), r.status, r.note});
  return table.to_csv();
}

}  // namespace gpubench
