// The front end of everything that runs benchmarks: `gpubench [--suite ...]`, `list`, `info`,
// the worker entry point, and the runner that `check` uses when it is given no RUN.json.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/cli/output.h"
#include "harness/cli/run_command.h"
#include "harness/report/info_text.h"
#include "harness/model/context.h"
#include "harness/model/exit_codes.h"
#include "harness/model/host_info.h"
#include "harness/report/report.h"
#include "harness/report/reporter.h"
#include "harness/model/run_document.h"
#include "harness/model/telemetry.h"
#include "harness/run/interrupt.h"
#include "harness/core/child_process.h"
#include "harness/run/worker.h"
#include "harness/system/capture.h"

namespace gpubench {
namespace {

// Under mpirun or srun every rank runs gpubench; rank 0 speaks for the job (the collective
// suite gathers the other ranks' part into its results) and its exit code is the verdict.
bool secondary_launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* rank = std::getenv(name)) return std::atoi(rank) != 0;
  return false;
}

// Every benchmark's samples, in run order, as one CSV written at once (interrupted runs too).
// False when it went to a fallback file instead.
bool write_trace(const std::string& path, const RunDocument& document) {
  std::vector<TelemetrySample> samples;
  for (const BenchResult& result : document.results) samples.insert(samples.end(), result.trace.begin(), result.trace.end());
  return write_file_or_fallback(path, telemetry_trace_csv(samples));
}

// Stdout lost the results: unless an --out file holds the document (or its fallback does), it
// goes to a fallback file, so that nothing measured is lost.
void keep_results(const RunDocument& document, const std::vector<std::string>& out_paths) {
  if (std::any_of(out_paths.begin(), out_paths.end(), [](const std::string& p) { return !is_prometheus_path(p); }))
    return;
  std::string why_not;
  const std::string fallback = write_fallback_file("run.json", to_json(document).dump(2) + "\n", &why_not);
  if (fallback.empty()) std::fprintf(stderr, "gpubench: the results could not be kept in a file either (%s)\n", why_not.c_str());
  else std::fprintf(stderr, "gpubench: the results are in %s\n", fallback.c_str());
}

class BenchmarkFrontEnd : public RunFrontEnd {
 public:
  explicit BenchmarkFrontEnd(CLI::App& app) { add_run_options(app, line_); }

  std::optional<int> subcommand() override {
    if (line_.list->parsed()) {
      std::cout << family_listing(line_.list_suites, line_.run.config_path, line_.list_format == "json");
      return kExitOk;
    }
    if (line_.info->parsed()) {
      const Context context = capture_context();
      if (line_.info_format == "json")
        std::cout << context_json(start_run_document(context, "gpubench info")).at("gpubench").dump(2) << "\n";
      else
        std::cout << format_info(context);
      return context.gpus.empty() ? kExitNoGpu : kExitOk;
    }
    return std::nullopt;
  }

  int run(const std::string& command_line) override {
    const Format out_format = parse_format(line_.format);
    line_.run.isolate = !line_.no_isolate;
    line_.run.command_line = command_line;
    // From the start to the last write: a signal stops the run, and what finished is still written.
    const InterruptCatcher interrupts;
    for (const auto& path : line_.out_paths) check_writable(path);  // before the run, not after it
    if (!line_.telemetry_trace_path.empty()) check_writable(line_.telemetry_trace_path);
    // Rank 0 writes the job's one result; an interrupted rank still says it was interrupted.
    const bool writes = !secondary_launcher_rank();
    MultiReporter reporters;
    if (writes)
      for (const auto& path : line_.out_paths) reporters.add(out_file_reporter(path));
    if (writes) reporters.add(make_reporter(out_format, std::cout));
    const RunDocument document = started_run(reporters, interrupts, out_format == Format::kPrometheus && writes);
    if (!writes) return document.interrupted ? run_exit_code(document) : kExitOk;
    // Every write checked: each one that failed has said so and where its output went instead.
    bool written = !reporters.write_failed();
    if (!stdout_written()) {
      written = false;
      keep_results(document, line_.out_paths);
    }
    if (!line_.telemetry_trace_path.empty() && !write_trace(line_.telemetry_trace_path, document)) written = false;
    if (document.interrupted)
      std::fprintf(stderr, "gpubench: interrupted by %s: %zu result(s) written\n", document.interrupted->c_str(),
                   document.results.size());
    return written ? run_exit_code(document) : exit_code_with_failed_write(run_exit_code(document));
  }

  // A run that cannot start (no GPU or driver, bad input) still leaves its Prometheus text, with
  // gpubench_up 0 and the exit code, so that an alert on the node fires.
  RunDocument started_run(Reporter& reporters, const InterruptCatcher& interrupts, bool prometheus_stdout) {
    try {
      return execute_run(line_.run, interrupts, reporters);
    } catch (const UsageError& error) {
      const std::string text = no_run_prometheus(capture_host(), error.code);
      for (const auto& path : line_.out_paths)
        if (is_prometheus_path(path)) write_file_or_fallback(path, text);
      if (prometheus_stdout) std::cout << text << std::flush;
      throw;
    }
  }

  SuiteRunner suite_runner() override {
    return [](const RunRequest& request) {
      RunOptions options;
      options.suites = request.suites;
      options.filter = request.filter;
      options.exact_names = request.exact_names;
      options.quick = request.quick;
      options.config_path = request.config_path;
      options.command_line = "gpubench check";
      const InterruptCatcher interrupts;
      MultiReporter no_reporters;  // check renders its own report; progress still goes to stderr
      RunDocument document = execute_run(options, interrupts, no_reporters);
      // A partial run would be checked as if benchmarks were missing: stop with the signal's code.
      if (document.interrupted)
        throw UsageError{interrupted_exit_code(*document.interrupted), "interrupted by " + *document.interrupted + "; nothing checked"};
      return document;
    };
  }

 private:
  RunCommandLine line_;
};

}  // namespace

std::optional<int> worker_entry(int argc, char** argv) {
  // A worker is the parent re-executing itself; it takes no other flags.
  if (argc == 5 && std::strcmp(argv[1], "--worker") == 0 && std::strcmp(argv[3], "--worker-fd") == 0)
    return worker_main(argv[2], std::atoi(argv[4]));
  return run_child_entry(argc, argv);  // a process a family started (harness/core/child_process.h)
}

std::unique_ptr<RunFrontEnd> add_run_front_end(CLI::App& app) {
  return std::make_unique<BenchmarkFrontEnd>(app);
}

}  // namespace gpubench
