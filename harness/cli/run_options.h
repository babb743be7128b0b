#pragma once
// The options of `gpubench [--suite ...]`, declared once for the CUDA build, which runs them,
// and for the -DGPUBENCH_CUDA=OFF build, which refuses them with the reason.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace gpubench {

struct RunOptions {
  std::vector<std::string> suites;  // empty: from --config, else all
  std::string filter;
  std::vector<std::string> exact_names;
  std::string devices = "all";
  std::string config_path;
  bool quick = false;
  bool concurrent = false;  // --concurrent, or the config's "concurrent"
  std::optional<std::string> solo_reference;  // --solo-reference; unset: the config's
  // Unset: from --config, else the default. Checked as --config's settings are (config.h).
  std::optional<double> min_time_s, max_noise_pct, timeout_s, max_time_s;
  std::optional<long long> repetitions;
  // Telemetry and cooldown (docs/running.md, "Telemetry, cooldown and error counters"); unset:
  // the defaults of TelemetrySettings, with no cooldown under --quick.
  std::optional<long long> telemetry_interval_ms;
  std::optional<double> cooldown_margin_c, cooldown_target_c, cooldown_max_wait_s;
  bool isolate = true;
  std::string command_line;
};

// Where the options of a run are parsed into.
struct RunCommandLine {
  RunOptions run;
  std::string format = "table";
  std::vector<std::string> out_paths;  // --out, given once or more
  std::string telemetry_trace_path;  // --telemetry-trace: the samples as CSV
  bool no_isolate = false;
  CLI::App* list = nullptr;  // `gpubench list`
  std::vector<std::string> list_suites;
  CLI::App* info = nullptr;  // `gpubench info`
  std::string list_format = "table", info_format = "table";  // table or json
};

void add_run_options(CLI::App& app, RunCommandLine& line);

}  // namespace gpubench
