// The measuring commands of a gpubench built with -DGPUBENCH_CUDA=OFF: compare, check with a
// RUN.json, baseline and report work; anything that would run a benchmark says why it cannot.
#include <CLI/CLI.hpp>

#include "harness/cli/commands.h"
#include "harness/cli/run_options.h"
#include "harness/report/exit_codes.h"

namespace gpubench {
namespace {

constexpr const char* kNoCuda = "this gpubench was built without CUDA (-DGPUBENCH_CUDA=OFF): it compares, checks, "
                                "makes baselines and reports; running benchmarks needs a CUDA build";

class NoRunFrontEnd : public RunFrontEnd {
 public:
  explicit NoRunFrontEnd(CLI::App& app) { add_run_options(app, line_); }
  std::optional<int> subcommand() override {
    if (line_.list->parsed() || line_.info->parsed()) throw UsageError{kExitNoGpu, kNoCuda};
    return std::nullopt;
  }
  int run(const std::string&) override { throw UsageError{kExitNoGpu, kNoCuda}; }
  SuiteRunner suite_runner() override {
    return [](const RunRequest&) -> RunDocument { throw UsageError{kExitNoGpu, kNoCuda}; };
  }

 private:
  RunCommandLine line_;
};

}  // namespace

std::unique_ptr<RunFrontEnd> add_run_front_end(CLI::App& app) { return std::make_unique<NoRunFrontEnd>(app); }
std::optional<int> worker_entry(int, char**) { return std::nullopt; }

}  // namespace gpubench
