// `gpubench show RUN.json [--format ...|html] [--filter REGEX] [-o FILE]`: a saved run rendered
// by the reporters a live run is rendered by, fed the way the runner feeds them (context, each
// result, finish), so that a saved run, a live run and a run copied from another node look alike.
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>

#include "harness/analysis/judgeable.h"
#include "harness/analysis/report_verdicts.h"
#include "harness/cli/commands.h"
#include "harness/cli/output.h"
#include "harness/report/chart_data.h"
#include "harness/report/exit_codes.h"
#include "harness/report/html_report.h"
#include "harness/report/report.h"
#include "harness/report/reporter.h"

namespace gpubench {
namespace {

struct ShowOptions {
  std::string run_path, format = "table", filter, out_path;
};

RunDocument filtered(RunDocument document, const std::string& filter) {
  if (filter.empty()) return document;
  std::regex pattern;
  try {
    pattern = std::regex(filter);
  } catch (const std::regex_error& error) {
    throw UsageError{kExitBadInput, "--filter: bad regular expression '" + filter + "': " + error.what()};
  }
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

int show(const ShowOptions& options) {
  if (!options.out_path.empty()) check_writable(options.out_path);
  const RunDocument document =
      filtered(load_run_document(options.run_path), options.filter);
  return write_output(rendered(document, options), options.out_path) ? kExitOk : kExitCannotWrite;
}

}  // namespace

void add_show_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("show", "Render a saved run as a live run is rendered");
  auto options = std::make_shared<ShowOptions>();
  cmd->add_option("run", options->run_path, "RUN.json, a result file gpubench wrote")->required();
  cmd->add_option("--format", options->format, "table, json, csv, md, prometheus or html")
      ->check(CLI::IsMember({"table", "json", "csv", "md", "prometheus", "html"}))
      ->capture_default_str();
  cmd->add_option("--filter", options->filter, "regular expression over benchmark names");
  cmd->add_option("-o,--out", options->out_path, "write here instead of stdout (atomically)");
  cmd->callback([options, exit_code] { *exit_code = show(*options); });
}

}  // namespace gpubench
