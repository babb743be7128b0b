// The measuring commands of a gpubench built with -DGPUBENCH_CUDA=OFF: compare, check with a
// RUN.json, baseline and report work; a run, `list`, `info`, and `check` without a RUN.json or
// with --retries (which would run benchmarks) are refused before anything else happens.
#include <CLI/CLI.hpp>

#include "harness/cli/commands.h"
#include "harness/cli/run_options.h"
#include "harness/model/exit_codes.h"

namespace gpubench {
namespace {

class NoRunFrontEnd : public RunFrontEnd {
 public:
  explicit NoRunFrontEnd(CLI::App& app) { add_run_options(app, line_); }
  std::optional<int> subcommand() override {
    if (line_.list->parsed() || line_.info->parsed()) throw UsageError{kExitBadInput, kBuiltWithoutCuda};
    return std::nullopt;
  }
  int run(const std::string&) override { throw UsageError{kExitBadInput, kBuiltWithoutCuda}; }
  SuiteRunner suite_runner() override { return {}; }

 private:
  RunCommandLine line_;
};

}  // namespace

std::unique_ptr<RunFrontEnd> add_run_front_end(CLI::App& app) { return std::make_unique<NoRunFrontEnd>(app); }
std::optional<int> worker_entry(int, char**) { return std::nullopt; }

}  // namespace gpubench
