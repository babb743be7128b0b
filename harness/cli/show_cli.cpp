// `gpubench show RUN.json [--format ...|html] [--filter REGEX] [-o FILE]`: a saved run rendered
// by the reporters a live run is rendered by, fed the way the runner feeds them (context, each
// result, finish), so that a saved run, a live run and a run copied from another node look alike.
// `gpubench show COMPARE.json`: a saved `compare --format json` rendered as compare renders it.
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>

#include "harness/analysis/compare_json.h"
#include "harness/analysis/judgeable.h"
#include "harness/report/report_verdicts.h"
#include "harness/cli/commands.h"
#include "harness/cli/output.h"
#include "harness/report/chart_data.h"
#include "harness/model/exit_codes.h"
#include "harness/report/html_report.h"
#include "harness/report/report.h"
#include "harness/report/reporter.h"

namespace gpubench {
namespace {

struct ShowOptions {
  std::string run_path, format = "table", filter, out_path;
};

std::regex filter_pattern(const std::string& filter) {
  try {
    return std::regex(filter);
  } catch (const std::regex_error& error) {
    throw UsageError{kExitBadInput, "--filter: bad regular expression '" + filter + "': " + error.what()};
  }
}

RunDocument filtered(RunDocument document, const std::string& filter) {
  if (filter.empty()) return document;
  const std::regex pattern = filter_pattern(filter);
  std::vector<BenchResult> kept;
  for (BenchResult& r : document.results)
    if (std::regex_search(r.name, pattern)) kept.push_back(std::move(r));
  document.results = std::move(kept);
  return document;
}

std::string rendered_html(const RunDocument& document, const std::string& run_path) {
  const ResultFile figures = judged_run(document, run_path);
  HtmlReportInput input;
  input.document = &document;
  input.figures = &figures;
  input.label = std::filesystem::path(run_path).filename().string();
  input.verdicts = unjudgeable_table(figures);
  input.charts = report_charts({&figures, &document}, nullptr, {});
  return render_html_report(input);
}

std::string rendered(const RunDocument& document, const ShowOptions& options) {
  if (options.format == "html") return rendered_html(document, options.run_path);
  std::ostringstream text;
  const auto reporter = make_reporter(parse_format(options.format), text);
  reporter->context(document);
  for (const BenchResult& result : document.results) reporter->result(result);
  reporter->finish(document);
  return text.str();
}

// A comparison's lines, filtered by benchmark name as a run's results are.
Comparison filtered(Comparison comparison, const std::string& filter) {
  if (filter.empty()) return comparison;
  const std::regex pattern = filter_pattern(filter);
  std::vector<MetricComparison> kept;
  for (MetricComparison& row : comparison.rows)
    if (std::regex_search(row.benchmark, pattern)) kept.push_back(std::move(row));
  comparison.rows = std::move(kept);
  std::vector<ChoiceChange> changes;
  for (ChoiceChange& change : comparison.choice_changes)
    if (std::regex_search(change.benchmark, pattern)) changes.push_back(std::move(change));
  comparison.choice_changes = std::move(changes);
  return comparison;
}

std::string rendered_comparison(const nlohmann::json& json, const ShowOptions& options) {
  if (options.format == "prometheus")
    throw UsageError{kExitBadInput, options.run_path + ": a comparison renders as table, md, csv, html or json"};
  return render_comparison(filtered(read_comparison(json, options.run_path), options.filter), options.format);
}

// A run is an object with a "context" (read_run_document says what else is wrong with it); a
// comparison names its schema; anything else (a baseline, a check report) is neither.
bool looks_like_run(const nlohmann::json& json) { return json.is_object() && json.contains("context"); }

int show(const ShowOptions& options) {
  if (!options.out_path.empty()) check_writable(options.out_path);
  const nlohmann::json json = read_json_file(options.run_path);
  std::string text;
  if (is_comparison_document(json)) {
    text = rendered_comparison(json, options);
  } else if (looks_like_run(json)) {
    text = rendered(filtered(read_run_document(json, options.run_path), options.filter), options);
  } else {
    throw UsageError{kExitBadInput, options.run_path + ": neither a run (context.gpubench.schema gpubench/1) nor a "
                                                       "comparison (schema gpubench-compare/1)"};
  }
  return write_output(text, options.out_path) ? kExitOk : kExitCannotWrite;
}

}  // namespace

void add_show_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("show", "Render a saved run (or comparison) as a live one is rendered");
  auto options = std::make_shared<ShowOptions>();
  cmd->add_option("file", options->run_path, "RUN.json, a result file gpubench wrote, or COMPARE.json, "
                                             "a saved compare --format json")
      ->required();
  cmd->add_option("--format", options->format, "table, json, csv, md, prometheus (a run only) or html")
      ->check(CLI::IsMember({"table", "json", "csv", "md", "prometheus", "html"}))
      ->capture_default_str();
  cmd->add_option("--filter", options->filter, "regular expression over benchmark names");
  cmd->add_option("-o,--out", options->out_path, "write here instead of stdout (atomically)");
  cmd->callback([options, exit_code] { *exit_code = show(*options); });
}

}  // namespace gpubench
