#include "harness/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "harness/commands.h"
#include "harness/context.h"
#include "gpubench_git_commit.h"
#include "harness/exit_codes.h"
#include "harness/family.h"
#include "harness/report.h"
#include "harness/run_command.h"
#include "harness/supervisor.h"
#include "harness/text_table.h"

namespace gpubench {
namespace {

std::string join_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

// One block per family: name, description, then each axis with its default values.
int list_families(const std::vector<std::string>& suites) {
  std::string text;
  for (const auto& f : registered_families()) {
    const bool asked = std::find(suites.begin(), suites.end(), f->suite()) != suites.end();
    if (suites.empty() ? f->is_hidden() : !asked) continue;
    TextTable axes;
    axes.header = {"  axis", "default sweep"};
    for (const auto& axis : f->axes()) {
      std::string values = axis.kind == Axis::Kind::kGpu ? "<each selected GPU>" : "";
      for (std::size_t i = 0; i < axis.values.size(); ++i) values += (i ? ", " : "") + axis.values[i];
      axes.rows.push_back({"  " + axis.name, values});
    }
    if (f->is_per_device()) axes.rows.push_back({"  gpu", "<each selected GPU>"});
    text += f->name() + "\n  " + f->description() + "\n" + axes.to_text() + "\n";
  }
  if (text.empty()) throw UsageError{kExitBadInput, "list: no family in the given suite(s)"};
  std::cout << text;
  return kExitOk;
}

// Refuses an --out that cannot be written before anything runs: a run can take hours.
void check_out_path(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError{kExitBadInput, path + ": cannot write: no directory " + dir.string()};
  if (std::filesystem::is_directory(target, ec))
    throw UsageError{kExitBadInput, path + ": cannot write: it is a directory"};
}

}  // namespace

int run_cli(int argc, char** argv) {
  // A worker is the parent re-executing itself; it takes no other flags.
  if (argc == 5 && std::strcmp(argv[1], "--worker") == 0 && std::strcmp(argv[3], "--worker-fd") == 0)
    return worker_main(argv[2], std::atoi(argv[4]));

  CLI::App app{"gpubench: GPU node benchmarks (transfer, memory, launch, gemm, conv, attention, collective)"};
  app.set_version_flag("--version", std::string("gpubench ") + GPUBENCH_VERSION + " (" + GPUBENCH_GIT_COMMIT + ")");
  RunOptions run;
  std::string format = "table", out_path;
  app.add_option("--suite", run.suites, "suite(s) to run: transfer memory launch ... or all")->delimiter(',');
  app.add_option("--filter", run.filter, "regular expression over benchmark names");
  app.add_option("--devices", run.devices, "GPUs to use: 0,1 or all")->capture_default_str();
  app.add_option("--config", run.config_path, "JSON file of suites, settings and axis values");
  app.add_flag("--quick", run.quick, "smoke run of every selected family in seconds");
  app.add_option("--out", out_path, "also write the JSON document to this file");
  app.add_option("--format", format, "stdout format: table, json, csv, md")->capture_default_str();
  app.add_option("--min-time", run.min_time_s, "seconds of measured time to accumulate per benchmark");
  app.add_option("--max-noise", run.max_noise_pct, "stop once the median's noise is under this % (0.5)");
  app.add_option("--max-time", run.max_time_s, "soft limit on seconds of sampling per benchmark (5)");
  app.add_option("--timeout", run.timeout_s, "hard limit per benchmark; its worker is killed (120)");
  app.add_option("--repetitions", run.repetitions, "repeat each benchmark N times, each with its own samples");
  bool no_isolate = false;
  app.add_flag("--no-isolate", no_isolate, "run in this process instead of a worker per family (debugging)");

  auto* list = app.add_subcommand("list", "families, their axes and defaults");
  std::vector<std::string> list_suites;
  list->add_option("--suite", list_suites, "only these suites")->delimiter(',');
  auto* info = app.add_subcommand("info", "GPUs, driver, library versions, link matrix, health");
  int subcommand_exit = kExitOk;
  add_compare_command(app, &subcommand_exit);
  add_check_command(app, &subcommand_exit, [](const RunRequest& request) {
    RunOptions options;
    options.suites = request.suites;
    options.filter = request.filter;
    options.exact_names = request.exact_names;
    options.quick = request.quick;
    options.config_path = request.config_path;
    options.command_line = "gpubench check";
    return execute_run(options);
  });
  add_baseline_command(app, &subcommand_exit);

  try {
    app.parse(argc, argv);
    if (list->parsed()) return list_families(list_suites);
    if (info->parsed()) {
      const Context context = capture_context();
      std::cout << format_info(context);
      return context.gpus.empty() ? kExitNoGpu : kExitOk;
    }
    if (!app.get_subcommands().empty()) return subcommand_exit;
    const Format out_format = parse_format(format);
    run.isolate = !no_isolate;
    run.command_line = join_command_line(argc, argv);
    if (!out_path.empty()) check_out_path(out_path);  // before the run, not after it
    const nlohmann::json document = execute_run(run);
    if (!out_path.empty()) write_file_atomically(out_path, document.dump(2) + "\n");
    std::cout << render(document, out_format) << std::flush;
    return exit_code_of(document);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);
    std::fprintf(stderr, "gpubench: %s (see gpubench --help)\n", error.what());
    return kExitBadInput;
  } catch (const UsageError& error) {
    std::fprintf(stderr, "gpubench: %s\n", error.message.c_str());
    return error.code;
  }
}

}  // namespace gpubench
