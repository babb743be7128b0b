// `gpubench baseline RUN.json... --tolerance PCT`: writes a baseline file from runs.
#include <iostream>
#include <memory>

#include "harness/analysis/baseline.h"
#include "harness/analysis/judgeable.h"
#include "harness/cli/commands.h"
#include "harness/cli/number_options.h"
#include "harness/cli/output.h"
#include "harness/model/number_rules.h"
#include "harness/report/report.h"

namespace gpubench {

void add_baseline_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("baseline", "Write a baseline file from one or more runs");
  struct Options {
    std::vector<std::string> runs;
    double tolerance_pct = 0;
    std::string out_path, filter;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("runs", options->runs, "result files of one GPU model")->required();
  cmd->add_option("--tolerance", options->tolerance_pct,
                  "percent below the median (above, for lower-is-better) where a bound sits")
      ->required()
      ->check(checked_number([](double pct) { return number_range_problem(pct, 0, 100, true); }));
  cmd->add_option("--out", options->out_path, "write here instead of stdout");
  cmd->add_option("--filter", options->filter, "regex over benchmark names to include");
  cmd->callback([options, exit_code] {
    if (!options->out_path.empty()) check_writable(options->out_path);  // a write that fails later falls back
    std::vector<ResultFile> runs;
    for (const std::string& path : options->runs) runs.push_back(load_judged_run(path));
    std::vector<const ResultFile*> read;
    for (const ResultFile& run : runs) read.push_back(&run);
    if (const auto unjudgeable = unjudgeable_lines(read); !unjudgeable.empty()) {
      print_unjudgeable(std::cerr, unjudgeable);
      std::cerr << "baseline: nothing written: a run that cannot be judged makes no baseline\n";
      *exit_code = kExitFailure;
      return;
    }
    int skipped = 0;
    const Baseline baseline = make_baseline(runs, options->tolerance_pct, options->filter, &skipped);
    const bool written = write_output(to_json(baseline).dump(2) + "\n", options->out_path);
    std::cerr << "baseline: " << baseline.expectations.size() << " benchmarks from " << runs.size()
              << " run(s)";
    if (skipped) std::cerr << "; " << skipped << " left out (not ok in some run, or a difference of two figures)";
    std::cerr << "\n";
    *exit_code = baseline.expectations.empty() ? kExitFailure : kExitOk;
    if (!written) *exit_code = exit_code_with_failed_write(*exit_code);
  });
}

}  // namespace gpubench
