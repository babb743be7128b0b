// `gpubench check`: the command and its renderings.
#include <iostream>
#include <memory>
#include <set>

#include "harness/analysis/check.h"
#include "harness/analysis/judgeable.h"
#include "harness/cli/commands.h"
#include "harness/cli/number_options.h"
#include "harness/cli/output.h"
#include "harness/model/config_files.h"
#include "harness/model/number_rules.h"
#include "harness/report/reporter.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

std::string note_text(const CheckLine& line) {
  if (line.retries == 0) return line.note;
  std::string retried = (line.result == LineResult::kFail || line.result == LineResult::kError
                             ? "still failing after "
                             : "after ") +
                        std::to_string(line.retries) + (line.retries == 1 ? " retry" : " retries");
  if (line.first_result)
    retried += " (first run: " + std::string(to_string(*line.first_result)) +
               (line.first_value ? " at " + format_number(*line.first_value) : "") + ")";
  return retried + (line.note.empty() ? "" : "; " + line.note);
}

std::string summary_line(const CheckReport& r) {
  std::string out = "check:";
  for (LineResult l : {LineResult::kPass, LineResult::kWarn, LineResult::kFail, LineResult::kMissing,
                       LineResult::kError})
    out += std::string(l == LineResult::kPass ? " " : ", ") + std::to_string(r.count(l)) + " " + to_string(l);
  out += r.failed() ? " -> FAIL" + unjudgeable_note(r.unjudgeable) : std::string(" -> ok");
  if (const int unknown = r.unknowns()) out += "; " + std::to_string(unknown) + " health line(s) unknown";
  return out + "\n";
}

nlohmann::json check_json(const CheckReport& r) {
  nlohmann::json out = {{"schema", "gpubench-check/1"}, {"baseline", r.baseline_path},
                        {"run", r.run_path}, {"failed", r.failed()}, {"unjudgeable", r.unjudgeable}};
  for (LineResult l : {LineResult::kPass, LineResult::kWarn, LineResult::kFail, LineResult::kMissing,
                       LineResult::kError})
    out["summary"][to_string(l)] = r.count(l);
  out["summary"]["unknown"] = r.unknowns();
  out["lines"] = nlohmann::json::array();
  for (const CheckLine& l : r.lines)
    out["lines"].push_back({{"result", to_string(l.result)}, {"subject", l.subject},
                            {"benchmark", l.benchmark}, {"metric", l.metric},
                            {"value", l.value ? nlohmann::json(*l.value) : nlohmann::json()},
                            {"expected", l.expected},
                            {"margin_pct", l.margin_pct ? nlohmann::json(*l.margin_pct) : nlohmann::json()},
                            {"retries", l.retries},
                            {"first_result", l.first_result ? nlohmann::json(to_string(*l.first_result))
                                                            : nlohmann::json()},
                            {"unknown", l.unknown.empty() ? nlohmann::json() : nlohmann::json(l.unknown)},
                            {"note", l.note}});
  out["retry_errors"] = r.retry_errors;
  return out;
}

}  // namespace

std::string render_check(const CheckReport& report, const std::string& format) {
  if (format == "json") return check_json(report).dump(2) + "\n";
  if (format == "prometheus") return check_prometheus(report);
  TextTable table{{"result", "benchmark", "metric", "value", "expected", "margin", "note"},
                  {}, {false, false, false, true, false, true, false}};
  for (const CheckLine& l : report.lines)
    table.rows.push_back({to_string(l.result), l.subject, l.metric, value_text(l),
                          l.expected.empty() ? "-" : l.expected,
                          l.margin_pct ? format_pct(*l.margin_pct) : "-", note_text(l)});
  const bool md = format == "md";
  std::string errors;
  for (const std::string& e : report.retry_errors)
    errors += "check: " + printable(e) + " (the report above stands as it was)\n";
  return std::string(md ? "### " : "") + "Check: " + printable(report.run_path) + " against " +
         printable(report.baseline_path) + "\n\n" + render_unjudgeable(report.unjudgeable, md) +
         (md ? table.to_markdown() : table.to_text()) + "\n" + errors + summary_line(report);
}

void add_check_command(CLI::App& app, int* exit_code, SuiteRunner run_suites) {
  auto* cmd = app.add_subcommand("check", "Hold a run against a baseline of expected figures");
  struct Options {
    std::string baseline_path, run_path, format = "table", out_path;
    CheckOptions check;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("--baseline", options->baseline_path, "baseline file, e.g. configs/baselines/h200.json")
      ->required()
      ->transform(kConfigFileArgument);
  cmd->add_option("run", options->run_path, "result file to check; without it, check runs the suites");
  cmd->add_option("--retries", options->check.retries,
                  "re-run failing benchmarks up to N times before a failure stands")
      ->check(checked_count([](long long n) { return count_range_problem(n, 0, 100); }));
  cmd->add_option("--gpus", options->check.expected_gpus,
                  "GPUs the node must show; fewer is a failure (a GPU fell off the bus)")
      ->check(checked_count([](long long n) { return count_range_problem(n, 1, 1024); }));
  cmd->add_option("--format", options->format, "table, md, json or prometheus")
      ->check(CLI::IsMember({"table", "md", "json", "prometheus"}));
  cmd->add_option("--out", options->out_path,
                  "write the report here (atomically) instead of stdout; a FILE.prom is in the Prometheus format");
  cmd->callback([options, exit_code, run_suites] {
    const bool need_runner = options->run_path.empty() || options->check.retries > 0;
    if (need_runner && !run_suites) throw UsageError{kExitBadInput, kBuiltWithoutCuda};
    const Baseline baseline = load_baseline(options->baseline_path);
    if (!options->out_path.empty()) check_writable(options->out_path);
    RunRequest request;
    request.suites = suites_for(baseline);
    request.filter = baseline.run.filter;
    request.quick = baseline.run.quick;
    // Found when a run needs it: a retry that cannot find it reports so beside the first report.
    auto with_config = [&](RunRequest r) {
      if (!baseline.run.config.empty())
        r.config_path = locate_baseline_file(baseline, baseline.run.config, config_search_path());
      return r;
    };
    ResultFile run = options->run_path.empty()
                         ? judged_run(run_suites(with_config(request)), "(benchmark run)")
                         : load_judged_run(options->run_path);
    verify_applies_to(baseline, run);
    int attempt = 0;
    // Retries re-run only the failing benchmarks, by exact name, on this machine.
    auto rerun = [&](const std::vector<std::string>& names) {
      std::cerr << "check: retry " << ++attempt << " of " << options->check.retries << ": re-running "
                << names.size() << " failing benchmark(s)\n";
      RunRequest again = with_config(request);
      again.exact_names = names;
      again.filter.clear();
      std::set<std::string> suites;
      for (const std::string& name : names) suites.insert(name.substr(0, name.find('/')));
      again.suites.assign(suites.begin(), suites.end());
      return result_file_of(run_suites(again), "(retry run)");
    };
    const CheckReport report = check_with_retries(baseline, std::move(run), options->check, rerun);
    print_unjudgeable(std::cerr, report.unjudgeable);
    const bool prom = is_prometheus_path(options->out_path);
    *exit_code = report.failed() ? kExitFailure : kExitOk;
    if (!write_output(render_check(report, prom ? "prometheus" : options->format), options->out_path))
      *exit_code = exit_code_with_failed_write(*exit_code);
  });
}

}  // namespace gpubench
