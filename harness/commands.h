#pragma once
// Subcommands that act on result documents rather than running benchmarks. Each add_* function
// adds its subcommand to the CLI app; when that subcommand is chosen, its callback runs and
// stores the process exit code (exit_codes.h) in *exit_code. Bad input inside a callback throws
// UsageError{kExitBadInput, "<file>: <place>: <what>"}.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace gpubench {

// What `check` asks the runner for when it is not given a RUN.json.
struct RunRequest {
  std::vector<std::string> suites;        // e.g. {"memory", "transfer"}
  std::string filter;                     // regex over names; empty = all
  std::vector<std::string> exact_names;   // non-empty: run only these benchmarks (retries)
  bool quick = false;
  std::string config_path;                // --config file, may be empty
};
// Runs the benchmarks and returns the gpubench/1 result document.
using SuiteRunner = std::function<nlohmann::json(const RunRequest&)>;

void add_compare_command(CLI::App& app, int* exit_code);
void add_check_command(CLI::App& app, int* exit_code, SuiteRunner run_suites);
void add_baseline_command(CLI::App& app, int* exit_code);

}  // namespace gpubench
