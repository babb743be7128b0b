#include "harness/cli/run_options.h"

#include "harness/cli/commands.h"
#include "harness/cli/number_options.h"
#include "harness/model/number_rules.h"

namespace gpubench {

void add_run_options(CLI::App& app, RunCommandLine& line) {
  RunOptions& run = line.run;
  app.add_option("--suite", run.suites, "suite(s) to run: transfer memory launch ... or all")->delimiter(',');
  app.add_option("--filter", run.filter, "regular expression over benchmark names");
  app.add_option("--devices", run.devices, "GPUs to use: 0,1 or all")->capture_default_str();
  app.add_option("--config", run.config_path, "JSON file of suites, settings and axis values")
      ->transform(kConfigFileArgument);
  app.add_flag("--quick", run.quick, "smoke run of every selected family in seconds");
  app.add_flag("--concurrent", run.concurrent,
               "node mode: each per-GPU family on every selected GPU at once, samples started together");
  app.add_option("--solo-reference", run.solo_reference,
                 "node mode's solo runs, for each GPU's ratio: none, first (the first GPU's) or every (config's, else none)");
  app.add_option("--out", line.out_paths,
                 "also write the JSON document to this file; a FILE.prom gets the Prometheus text (repeatable)");
  app.add_option("--format", line.format, "stdout format: table, json, csv, md, prometheus")->capture_default_str();
  // Each number obeys the rule its --config setting obeys (number_rules.h).
  const CLI::Validator positive = checked_number(positive_number_problem);
  const CLI::Validator non_negative = checked_number(non_negative_number_problem);
  app.add_option("--min-time", run.min_time_s, "seconds of measured time to accumulate per benchmark")->check(positive);
  app.add_option("--max-noise", run.max_noise_pct, "stop once the median's noise is under this % (0.5)")->check(positive);
  app.add_option("--max-time", run.max_time_s, "soft limit on seconds of sampling per benchmark (5)")->check(positive);
  app.add_option("--timeout", run.timeout_s, "hard limit per benchmark; its worker is killed (120)")->check(positive);
  app.add_option("--repetitions", run.repetitions, "repeat each benchmark N times, each with its own samples")
      ->check(checked_count(positive_count_problem));
  app.add_option("--telemetry-interval", run.telemetry_interval_ms, "NVML sampling period in ms during each benchmark (50; 0 = off)")
      ->check(checked_count([](long long ms) { return count_range_problem(ms, 0, 60000); }));
  app.add_option("--telemetry-trace", line.telemetry_trace_path, "write every telemetry sample to this CSV file");
  app.add_option("--cooldown-margin", run.cooldown_margin_c, "before a benchmark, wait until its GPUs are within this many C of idle (10)")
      ->check(non_negative);
  app.add_option("--cooldown-target", run.cooldown_target_c, "...or at or below this temperature in C (instead of the margin)")
      ->check(positive);
  app.add_option("--cooldown-max-wait", run.cooldown_max_wait_s, "longest cooldown wait in s (10; 0 = none; --quick: 0)")
      ->check(non_negative);
  app.add_flag("--no-isolate", line.no_isolate, "run in this process instead of a worker per family (debugging)");
  line.list = app.add_subcommand("list", "families, their axes and defaults");
  line.list->add_option("--suite", line.list_suites, "only these suites")->delimiter(',');
  line.list->add_option("--config", run.config_path, "show the sweep as this --config file makes it")
      ->transform(kConfigFileArgument);
  line.list->add_option("--format", line.list_format, "table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  line.info = app.add_subcommand("info", "GPUs, driver, library versions, link matrix, health");
  line.info->add_option("--format", line.info_format, "table, or json: the run context's gpubench block")
      ->check(CLI::IsMember({"table", "json"}))->capture_default_str();
}

}  // namespace gpubench
