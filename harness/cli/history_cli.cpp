// `gpubench history add|show|drift`: nightly runs kept in SQLite (history_store.h), shown as
// series and searched for steps and drifts (history_drift.h). docs/history.md says how.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "harness/analysis/history_drift.h"
#include "harness/analysis/history_store.h"
#include "harness/analysis/judgeable.h"
#include "harness/cli/commands.h"
#include "harness/cli/history_render.h"
#include "harness/cli/number_options.h"
#include "harness/cli/output.h"
#include "harness/model/number_rules.h"
#include "harness/report/report.h"
#include "harness/model/run_stream.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

struct HistoryOptions {
  std::string db;
  double busy_timeout_s = 10;
  std::vector<std::string> runs;  // add
  HistoryFilter filter;
  std::string since, series = "gpu";
  std::string format = "table", out_path;
  std::optional<std::string> tolerance;
  std::optional<double> threshold;
};

// --db, else $GPUBENCH_HISTORY_DB: a collector or nightly.sh sets it once.
std::string database_path(const HistoryOptions& options) {
  if (!options.db.empty()) return options.db;
  if (const char* env = std::getenv("GPUBENCH_HISTORY_DB"); env && *env) return env;
  throw UsageError{kExitBadInput, "history: no database: give --db FILE or set GPUBENCH_HISTORY_DB"};
}

void add_database_options(CLI::App* cmd, HistoryOptions& options) {
  cmd->add_option("--db", options.db, "the history database (SQLite); default: $GPUBENCH_HISTORY_DB");
  cmd->add_option("--busy-timeout", options.busy_timeout_s,
                  "seconds to wait for another writer before giving up (exit 2, nothing changed)")
      ->check(checked_number([](double s) { return number_range_problem(s, 0, 3600); }))
      ->capture_default_str();
}

void add_filter_options(CLI::App* cmd, HistoryOptions& options) {
  cmd->add_option("--host", options.filter.host, "only this host's runs (its host_name)");
  cmd->add_option("--gpu", options.filter.gpu, "only the figures of this GPU (its UUID, or the start of it)");
  cmd->add_option("--name", options.filter.name_regex, "regular expression over benchmark names");
  cmd->add_option("--since", options.since, "only runs from this date on (YYYY-MM-DD or an ISO 8601 date-time)");
  cmd->add_option("--series", options.series, "a series per gpu (UUID), or per host and figure whatever GPU measured it")
      ->check(CLI::IsMember({"gpu", "host"}))
      ->capture_default_str();
}

HistoryData read_history(HistoryOptions& options) {
  options.filter.per_host = options.series == "host";
  if (!options.since.empty()) {
    options.filter.since = parse_history_date(options.since);
    if (!options.filter.since)
      throw UsageError{kExitBadInput, "--since: '" + options.since + "' is not a date (YYYY-MM-DD)"};
  }
  HistoryStore store(database_path(options), false, options.busy_timeout_s);
  return store.read(options.filter);
}

// Each file is added in its own transaction: a refused or malformed file leaves the others in.
int add_runs(const HistoryOptions& options) {
  HistoryStore store(database_path(options), true, options.busy_timeout_s);
  int added = 0, there = 0, refused = 0, unreadable = 0;
  for (const std::string& path : options.runs) {
    std::optional<RunDocument> document;
    try {
      document = load_run_document(path);
    } catch (const UsageError& error) {
      std::cerr << "gpubench: " << printable(error.message) << "\n";
      ++unreadable;
      continue;
    }
    const ResultFile run = judged_run(*document, path);
    if (const std::string why = history_refusal(run, document->host.date); !why.empty()) {
      std::cerr << printable(why) << "\n";
      std::cout << "refused " << printable(path) << ": it cannot be judged (reasons on stderr)\n";
      ++refused;
      continue;
    }
    const bool new_run = store.add(run, document->host.date, path) == AddOutcome::kAdded;
    std::cout << (new_run ? "added " : "already there ") << printable(path) << " (" << printable(run.host_name) << ", "
              << printable(document->host.date) << ")\n";
    ++(new_run ? added : there);
  }
  std::cout << "history add: " << added << " added, " << there << " already there, " << refused << " refused, "
            << unreadable << " unreadable -> " << (refused || unreadable ? "FAIL" : "ok") << "\n";
  return unreadable ? kExitBadInput : refused ? kExitFailure : kExitOk;
}

int show_history(HistoryOptions& options) {
  if (!options.out_path.empty()) check_writable(options.out_path);
  const HistoryData data = read_history(options);
  std::string text;
  if (options.format == "html") {
    // The rings: what drift finds under the shipped tolerances.
    text = render_history_html(data, find_drift(data, tolerances_for("", {}), 3));
  } else {
    text = render_history(data, options.format);
  }
  return write_output(text, options.out_path) ? kExitOk : kExitCannotWrite;
}

int drift_history(HistoryOptions& options) {
  const HistoryData data = read_history(options);
  // As compare: --threshold alone replaces the shipped file; the history holds no files to
  // check a tolerance file's names against, so a named file is applied as it is.
  const Tolerances tolerances =
      tolerances_for(options.tolerance ? *options.tolerance : options.threshold ? "none" : "", {});
  const ChangeOptions change;
  const DriftReport report = find_drift(data, tolerances, options.threshold.value_or(3), change);
  const int code = report.failed() ? kExitFailure : kExitOk;
  return write_output(render_drift(data, report, options.format, 2 * change.min_segment), "")
             ? code : exit_code_with_failed_write(code);
}

}  // namespace

void add_history_command(CLI::App& app, int* exit_code) {
  auto* history = app.add_subcommand("history", "Keep runs in an SQLite database; show their series; find drift");
  history->require_subcommand(1);
  auto options = std::make_shared<HistoryOptions>();

  auto* add = history->add_subcommand("add", "Add result files to the history (a run already there is kept once)");
  add->add_option("runs", options->runs, "RUN.json files")->required();
  add_database_options(add, *options);
  add->callback([options, exit_code] { *exit_code = add_runs(*options); });

  auto* show = history->add_subcommand("show", "The series of the history: one per host, figure and GPU");
  add_database_options(show, *options);
  add_filter_options(show, *options);
  show->add_option("--format", options->format, "table, csv, json or html")
      ->check(CLI::IsMember({"table", "csv", "json", "html"}))
      ->capture_default_str();
  show->add_option("-o,--out", options->out_path, "write here instead of stdout (atomically)");
  show->callback([options, exit_code] { *exit_code = show_history(*options); });

  auto* drift = history->add_subcommand("drift", "Steps and slow drift in each series, and the context change that night");
  add_database_options(drift, *options);
  add_filter_options(drift, *options);
  drift->add_option("--tolerance", options->tolerance,
                    "tolerance file, or none; default: the shipped configs/tolerance.json")
      ->transform(kConfigFileArgument);
  drift->add_option("--threshold", options->threshold,
                    "change in percent below which nothing counts (default 3); alone, it replaces the tolerance file")
      ->check(checked_number([](double pct) { return number_range_problem(pct, 0, 1000); }));
  drift->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  drift->callback([options, exit_code] { *exit_code = drift_history(*options); });
}

}  // namespace gpubench
