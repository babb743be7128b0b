// `gpubench report RUN.json [--baseline BASE.json | RUN2.json] -o report.html`: the HTML page
// of a run, with compare's verdicts against a base run or check's against a baseline file.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "harness/analysis/check.h"
#include "harness/analysis/compare.h"
#include "harness/analysis/judgeable.h"
#include "harness/model/run_stream.h"
#include "harness/report/report_verdicts.h"
#include "harness/cli/commands.h"
#include "harness/cli/output.h"
#include "harness/report/html_report.h"
#include "harness/report/report.h"

namespace gpubench {
namespace {

struct LoadedRun {
  std::string path;
  RunDocument document;
  ResultFile figures;
};

LoadedRun loaded_run(const std::string& path, RunDocument document) {
  LoadedRun run{path, std::move(document), {}};
  run.figures = judged_run(run.document, path);
  return run;
}

struct ReportOptions {
  std::vector<std::string> runs;  // RUN.json, or BASE.json NEW.json as compare takes them
  std::string baseline_path, out_path, tolerance_path;
};

// What the page is of, and what it is held against: --baseline names a result file (compare)
// or a baseline file (check); a second positional run is NEW against the first as BASE.
int write_report(const ReportOptions& options) {
  if (options.runs.size() > 2 || (options.runs.size() == 2 && !options.baseline_path.empty()))
    throw UsageError{kExitBadInput, "report takes RUN.json and at most one of --baseline FILE or RUN2.json"};
  check_writable(options.out_path);  // before the work; a write that fails later falls back
  const std::string run_path = options.runs.back();
  const std::string base_path = options.runs.size() == 2 ? options.runs.front() : options.baseline_path;
  const LoadedRun run = loaded_run(run_path, load_run_document(run_path));
  std::optional<LoadedRun> base;
  std::optional<VerdictTable> verdicts;
  std::map<std::string, std::string> changed;
  if (!base_path.empty()) {
    const nlohmann::json json = read_json_file(base_path);
    if (json.is_object() && json.contains("gpubench_baseline")) {
      const Baseline baseline = parse_baseline(json, base_path);
      verify_applies_to(baseline, run.figures);
      verdicts = verdict_table(check_run(baseline, run.figures));
    } else {
      base = loaded_run(base_path, read_run_document(json, base_path));
      CompareOptions compare;
      compare.tolerances = tolerances_for(options.tolerance_path, {&base->figures, &run.figures});
      const Comparison comparison = compare_runs(base->figures, run.figures, compare);
      verdicts = verdict_table(comparison);
      changed = changed_benchmarks(comparison);
    }
  } else {
    verdicts = unjudgeable_table(run.figures);
  }
  if (verdicts) print_unjudgeable(std::cerr, verdicts->unjudgeable);
  const ChartRun base_charts{base ? &base->figures : nullptr, base ? &base->document : nullptr};
  HtmlReportInput input;
  input.document = &run.document;
  input.figures = &run.figures;
  input.label = std::filesystem::path(run_path).filename().string();
  input.verdicts = verdicts;
  input.charts = report_charts({&run.figures, &run.document}, base ? &base_charts : nullptr, changed);
  input.compared = base.has_value();
  input.changed = std::move(changed);
  const int verdict = verdicts && verdicts->failed ? kExitFailure : kExitOk;
  if (!write_output(render_html_report(input), options.out_path)) return exit_code_with_failed_write(verdict);
  std::cerr << "report: wrote " << options.out_path << " (" << input.charts.size() << " charts"
            << (verdicts ? std::string(", ") + (verdicts->failed ? "FAIL" : "ok") : std::string()) << ")\n";
  return verdict;
}

}  // namespace

void add_report_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("report", "Write a self-contained HTML report of a run (charts, context, verdicts)");
  auto options = std::make_shared<ReportOptions>();
  cmd->add_option("runs", options->runs, "RUN.json, or BASE.json NEW.json (the second reported against the first)")
      ->required();
  cmd->add_option("--baseline", options->baseline_path,
                  "a result file to compare against, or a baseline file (configs/baselines/<model>.json) to check against")
      ->transform(kConfigFileArgument);
  cmd->add_option("-o,--out", options->out_path, "the HTML file to write")->required();
  cmd->add_option("--tolerance", options->tolerance_path,
                  "tolerance file for the comparison, or none, as compare takes it (default: the shipped one)")
      ->transform(kConfigFileArgument);
  cmd->callback([options, exit_code] { *exit_code = write_report(*options); });
}

}  // namespace gpubench
