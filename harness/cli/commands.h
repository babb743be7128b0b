#pragma once
// Subcommands that act on result documents rather than running benchmarks. Each add_* function
// adds its subcommand to the CLI app; when that subcommand is chosen, its callback runs and
// stores the process exit code (exit_codes.h) in *exit_code. Bad input inside a callback throws
// UsageError{kExitBadInput, "<file>: <place>: <what>"}.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/model/config_files.h"
#include "harness/model/run_document.h"

namespace gpubench {

// The transform of every option that names a config file (--config, --baseline, --tolerance):
// a shipped file is found from any directory (resolve_config_argument).
inline const std::function<std::string(std::string)> kConfigFileArgument = resolve_config_argument;

// What `check` asks the runner for when it is not given a RUN.json.
struct RunRequest {
  std::vector<std::string> suites;        // e.g. {"memory", "transfer"}
  std::string filter;                     // regex over names; empty = all
  std::vector<std::string> exact_names;   // non-empty: run only these benchmarks (retries)
  bool quick = false;
  std::string config_path;                // --config file, may be empty
};
// Runs the benchmarks and returns their result document.
using SuiteRunner = std::function<RunDocument(const RunRequest&)>;

// The commands that measure (`gpubench [--suite ...]`, `list`, `info`): run_front_end.cpp in a
// CUDA build, no_run_front_end.cpp in a -DGPUBENCH_CUDA=OFF build, which refuses them with
// kExitBadInput and this message (a problem of the set-up, not of a GPU).
inline constexpr const char* kBuiltWithoutCuda = "this gpubench was built without CUDA; use a CUDA build to measure";
class RunFrontEnd {
 public:
  virtual ~RunFrontEnd() = default;
  // After parsing: the exit code of `list` or `info` when one of them was given.
  virtual std::optional<int> subcommand() = 0;
  // No subcommand given: run the benchmarks the options select.
  virtual int run(const std::string& command_line) = 0;
  // What `check` runs when it is given no RUN.json or --retries; empty where nothing can run.
  virtual SuiteRunner suite_runner() = 0;
};
std::unique_ptr<RunFrontEnd> add_run_front_end(CLI::App& app);
// `gpubench --worker JOB --worker-fd N` (the supervisor re-executing itself): its exit code.
std::optional<int> worker_entry(int argc, char** argv);

void add_compare_command(CLI::App& app, int* exit_code);
void add_check_command(CLI::App& app, int* exit_code, SuiteRunner run_suites);
void add_baseline_command(CLI::App& app, int* exit_code);
void add_report_command(CLI::App& app, int* exit_code);
void add_show_command(CLI::App& app, int* exit_code);
void add_history_command(CLI::App& app, int* exit_code);

}  // namespace gpubench
