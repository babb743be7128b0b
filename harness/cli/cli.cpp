#include "harness/cli/cli.h"

#include <CLI/CLI.hpp>

#include <cstdio>

#include "gpubench_git_commit.h"
#include "harness/cli/commands.h"
#include "harness/cli/output.h"
#include "harness/model/exit_codes.h"
#include "harness/model/suite.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

std::string suite_list() {
  std::string text;
  for (const std::string& suite : declared_suite_names(false)) text += (text.empty() ? "" : ", ") + suite;
  return text;
}

std::string join_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

int run_command_line(int argc, char** argv) {
  CLI::App app{"gpubench: GPU node benchmarks (" + suite_list() + ")"};
  app.set_version_flag("--version", std::string("gpubench ") + GPUBENCH_VERSION + " (" + GPUBENCH_GIT_COMMIT + ")");
  const auto front_end = add_run_front_end(app);
  int subcommand_exit = kExitOk;
  add_compare_command(app, &subcommand_exit);
  add_check_command(app, &subcommand_exit, front_end->suite_runner());
  add_baseline_command(app, &subcommand_exit);
  add_report_command(app, &subcommand_exit);
  add_show_command(app, &subcommand_exit);
  add_history_command(app, &subcommand_exit);

  try {
    app.parse(argc, argv);
    if (const auto code = front_end->subcommand()) return *code;
    if (!app.get_subcommands().empty()) return subcommand_exit;
    return front_end->run(join_command_line(argc, argv));
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);
    std::fprintf(stderr, "gpubench: %s (see gpubench --help)\n", printable(error.what()).c_str());
    return kExitBadInput;
  } catch (const UsageError& error) {
    // Messages quote names and text from the files they are about: escaped, as tables are.
    std::fprintf(stderr, "gpubench: %s\n", printable(error.message).c_str());
    return error.code;
  }
}

}  // namespace

int run_cli(int argc, char** argv) {
  if (const auto worker_exit = worker_entry(argc, argv)) return *worker_exit;
  // Whatever the command printed (help and listings included) must have reached stdout.
  return exit_code_after_stdout(run_command_line(argc, argv));
}

}  // namespace gpubench
