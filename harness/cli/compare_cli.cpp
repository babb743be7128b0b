// `gpubench compare`: the command and its three renderings.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "harness/cli/commands.h"
#include "harness/cli/number_options.h"
#include "harness/cli/output.h"
#include "harness/analysis/compare.h"
#include "harness/analysis/compare_json.h"
#include "harness/analysis/fleet.h"
#include "harness/analysis/judgeable.h"
#include "harness/report/report_verdicts.h"
#include "harness/model/number_rules.h"
#include "harness/model/text_table.h"

namespace gpubench {

std::string render_context(const std::vector<ContextDifference>& context,
                           const std::vector<std::string>& run_labels, bool markdown) {
  if (context.empty())
    return "Context: no differences (driver, CUDA, libraries, GPUs, clocks, power, links, host).\n";
  TextTable table;
  table.header = {"context"};
  if (run_labels.size() <= 2) {
    // Side by side for a pair of runs: the usual before/after question.
    table.header.insert(table.header.end(), run_labels.begin(), run_labels.end());
    for (const ContextDifference& d : context) {
      table.rows.push_back({d.field});
      table.rows.back().insert(table.rows.back().end(), d.values.begin(), d.values.end());
    }
  } else {
    // A fleet is too wide for a column per run: each distinct value with the runs holding it.
    table.header.push_back("values");
    for (const ContextDifference& d : context) {
      std::vector<std::pair<std::string, std::string>> groups;  // value, runs
      for (std::size_t r = 0; r < d.values.size(); ++r) {
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const auto& g) { return g.first == d.values[r]; });
        if (it == groups.end()) groups.emplace_back(d.values[r], run_labels[r]);
        else it->second += ", " + run_labels[r];
      }
      std::string cell;
      for (const auto& [value, runs] : groups)
        cell += (cell.empty() ? "" : "; ") + value + " (" + runs + ")";
      table.rows.push_back({d.field, cell});
    }
  }
  return (markdown ? "#### Context differences\n\n" + table.to_markdown()
                   : "Context differences:\n" + table.to_text());
}

namespace {

std::string verdict_text(const MetricComparison& row) {
  return row.verdict == Verdict::kNotOk ? row.status : to_string(row.verdict);
}

std::string noise_text(const std::optional<double>& figure, double noise_pct) {
  return figure && noise_pct > 0 ? "±" + format_number(noise_pct, 2) + "%" : "-";
}

std::string note_text(const MetricComparison& row) {
  if (row.base_name.empty()) return row.note;
  return "matched by parameters, base name " + row.base_name + (row.note.empty() ? "" : "; " + row.note);
}

std::string summary_line(const Comparison& c) {
  std::string out = "compare:";
  const Verdict order[] = {Verdict::kRegressed, Verdict::kNotOk, Verdict::kMissing, Verdict::kNoisy,
                           Verdict::kImproved, Verdict::kNew, Verdict::kSame};
  for (Verdict v : order)
    out += std::string(v == Verdict::kRegressed ? " " : ", ") + std::to_string(c.count(v)) + " " +
           (v == Verdict::kNotOk ? "not ok" : to_string(v));
  return out + (c.failed() ? " -> FAIL" + unjudgeable_note(c.unjudgeable) + "\n" : " -> ok\n");
}

std::string figure_change(const std::optional<MetricComparison>& figure) {
  if (!figure || !figure->base || !figure->now) return "-";
  return format_change(figure->change_pct, figure->change_in_points);
}

// Tuned benchmarks whose chosen algorithm or engine changed, beside what the figure did.
std::string render_choice_changes(const Comparison& c, bool md) {
  if (c.choice_changes.empty()) return "";
  TextTable table{{"benchmark", "base choice", "new choice", "metric", "change", "verdict"}, {},
                  {false, false, false, false, true, false}};
  for (const ChoiceChange& change : c.choice_changes)
    table.rows.push_back({change.benchmark, change.base_choice, change.new_choice,
                          change.figure ? change.figure->metric : "-", figure_change(change.figure),
                          change.figure ? verdict_text(*change.figure) : "-"});
  const std::string title = "Chosen algorithm or engine changed in " + std::to_string(c.choice_changes.size()) +
                            " tuned benchmark" + (c.choice_changes.size() == 1 ? "" : "s");
  return md ? "\n#### " + title + "\n\n" + table.to_markdown() : "\n" + title + ":\n" + table.to_text();
}

}  // namespace

std::string render_comparison(const Comparison& c, const std::string& format) {
  if (format == "json") return comparison_json(c).dump(2) + "\n";
  if (format == "csv") return comparison_csv(c);
  if (format == "html") return render_html_verdicts(verdict_table(c));
  const bool md = format == "md";
  std::string out = std::string(md ? "### " : "") + "Compare: base " + printable(c.base_path) +
                    ", new " + printable(c.new_path) + "\n\n" + render_unjudgeable(c.unjudgeable, md) +
                    render_context(c.context, {"base", "new"}, md) + "\n";
  TextTable table{{"benchmark", "metric", "base", "new", "change", "noise base", "noise new", "p",
                   "threshold", "verdict", "note"},
                  {}, {false, false, true, true, true, true, true, true, true, false, false}};
  // Changed lines first (the rows are sorted worst first); unchanged ones are only counted.
  for (const MetricComparison& r : c.rows) {
    if (r.verdict == Verdict::kSame && r.note.empty()) continue;
    const bool both = r.base && r.now;
    table.rows.push_back({r.benchmark, r.metric, r.base ? format_number(*r.base) : "-",
                          r.now ? format_number(*r.now) : "-",
                          both ? format_change(r.change_pct, r.change_in_points) : "-",
                          noise_text(r.base, r.base_noise_pct), noise_text(r.now, r.new_noise_pct),
                          format_p_value(r.p_value),
                          both ? format_number(r.threshold_pct, 2) + (r.change_in_points ? " pt" : "%") : "-",
                          verdict_text(r),
                          note_text(r)});
  }
  const int unchanged = c.count(Verdict::kSame) - static_cast<int>(std::count_if(
      c.rows.begin(), c.rows.end(), [](const auto& r) { return r.verdict == Verdict::kSame && !r.note.empty(); }));
  if (!table.rows.empty()) out += (md ? table.to_markdown() : table.to_text()) + "\n";
  out += std::to_string(unchanged) + " unchanged lines not shown.\n" + render_choice_changes(c, md);
  return out + (md ? "\n" : "") + summary_line(c);
}

void add_compare_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "compare", "Compare two result files (BASE NEW), or many with --fleet");
  struct Options {
    std::vector<std::string> files;
    std::optional<double> threshold;
    std::optional<std::string> tolerance;
    std::string format = "table";
    bool fleet = false, allow_missing = false;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("files", options->files, "BASE.json NEW.json, or RUN.json... with --fleet")
      ->required();  // unreadable files are reported by the loader: file name, reason, exit 2
  cmd->add_option("--threshold", options->threshold,
                  "change in percent below which nothing regresses (default 3; 5 with --fleet); alone, "
                  "it replaces the shipped tolerance file, with --tolerance FILE it is the file's fallback")
      ->check(checked_number([](double pct) { return number_range_problem(pct, 0, 1000); }));
  cmd->add_option("--tolerance", options->tolerance,
                  "tolerance file (per-suite, per-family, per-benchmark thresholds), or none; "
                  "default: the shipped configs/tolerance.json")
      ->transform(kConfigFileArgument);
  cmd->add_option("--format", options->format, "table, md, json, csv or html")
      ->check(CLI::IsMember({"table", "md", "json", "csv", "html"}));
  cmd->add_flag("--allow-missing", options->allow_missing,
                "a benchmark of BASE missing from NEW does not fail the comparison");
  cmd->add_flag("--fleet", options->fleet,
                "many runs of like machines: flag runs worse than the fleet median");
  cmd->callback([options, exit_code] {
    if (options->fleet && (options->format == "csv" || options->format == "html"))
      throw UsageError{kExitBadInput, "compare --fleet renders as table, md or json"};
    std::vector<ResultFile> runs = load_judged_runs(options->files);
    std::vector<const ResultFile*> read;
    for (const ResultFile& run : runs) read.push_back(&run);
    // --threshold alone asks for one threshold everywhere, not the shipped file's.
    const Tolerances tolerances =
        tolerances_for(options->tolerance ? *options->tolerance : options->threshold ? "none" : "", read);
    if (options->fleet) {
      if (runs.size() < 2) throw UsageError{kExitBadInput, "compare --fleet needs at least two result files"};
      FleetOptions fleet;
      fleet.threshold_pct = options->threshold.value_or(fleet.threshold_pct);
      fleet.tolerances = tolerances;
      const FleetReport report = compare_fleet(runs, fleet);
      print_unjudgeable(std::cerr, report.unjudgeable);
      *exit_code = report.failed() ? kExitFailure : kExitOk;
      if (!write_output(render_fleet(report, options->format), "")) *exit_code = exit_code_with_failed_write(*exit_code);
      return;
    }
    if (runs.size() != 2)
      throw UsageError{kExitBadInput, "compare needs exactly two result files, BASE and NEW (or --fleet)"};
    CompareOptions compare;
    compare.threshold_pct = options->threshold.value_or(compare.threshold_pct);
    compare.tolerances = tolerances;
    compare.allow_missing = options->allow_missing;
    const Comparison result = compare_runs(runs[0], runs[1], compare);
    print_unjudgeable(std::cerr, result.unjudgeable);
    *exit_code = result.failed() ? kExitFailure : kExitOk;
    if (!write_output(render_comparison(result, options->format), "")) *exit_code = exit_code_with_failed_write(*exit_code);
  });
}

}  // namespace gpubench
