// A gpubench for tests/test_nightly.cpp: scripts/nightly.sh runs it as $GPUBENCH. A run
// (no subcommand) writes the canned result $STAND_IN_RUN to --out and exits $STAND_IN_RUN_EXIT,
// or dies of signal $STAND_IN_RUN_SIGNAL; compare, check, baseline and history are the real commands (their
// stdout checked as gpubench's is), and check's retries get $STAND_IN_RETRY (or fail with
// $STAND_IN_RETRY_ERROR) after opening the config file as the real runner does.
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/cli/commands.h"
#include "harness/cli/output.h"
#include "harness/model/exit_codes.h"
#include "harness/model/result_file.h"
#include "harness/model/run_document.h"
#include "harness/model/run_stream.h"

namespace {

const char* env(const char* name) { return std::getenv(name); }

gpubench::RunDocument retry_run(const gpubench::RunRequest& request) {
  if (!request.config_path.empty() && !std::ifstream(request.config_path))
    throw gpubench::UsageError{gpubench::kExitBadInput, request.config_path + ": cannot open config file"};
  if (const char* error = env("STAND_IN_RETRY_ERROR")) throw gpubench::UsageError{gpubench::kExitBadInput, error};
  const char* path = env("STAND_IN_RETRY");
  if (!path) throw gpubench::UsageError{gpubench::kExitBadInput, "stand-in: no STAND_IN_RETRY"};
  return gpubench::load_run_document(path);
}

int canned_run(int argc, char** argv) {
  std::string out;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--out") == 0) out = argv[i + 1];
  const char* canned = env("STAND_IN_RUN");
  if (out.empty() || !canned) {
    std::fprintf(stderr, "stand-in: a run needs --out and STAND_IN_RUN\n");
    return gpubench::kExitBadInput;
  }
  std::filesystem::copy_file(canned, out, std::filesystem::copy_options::overwrite_existing);
  if (const char* signal = env("STAND_IN_RUN_SIGNAL")) {
    std::signal(std::atoi(signal), SIG_DFL);
    std::raise(std::atoi(signal));
  }
  return env("STAND_IN_RUN_EXIT") ? std::atoi(env("STAND_IN_RUN_EXIT")) : gpubench::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "compare") && std::strcmp(argv[1], "check") && std::strcmp(argv[1], "baseline") &&
                    std::strcmp(argv[1], "history")))
    return canned_run(argc, argv);
  CLI::App app{"gpubench stand-in"};
  int exit_code = gpubench::kExitOk;
  gpubench::add_compare_command(app, &exit_code);
  gpubench::add_check_command(app, &exit_code, retry_run);
  gpubench::add_baseline_command(app, &exit_code);
  gpubench::add_history_command(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : gpubench::kExitBadInput;
  } catch (const gpubench::UsageError& error) {
    std::fprintf(stderr, "gpubench: %s\n", error.message.c_str());
    return error.code;
  }
  return gpubench::exit_code_after_stdout(exit_code);
}
