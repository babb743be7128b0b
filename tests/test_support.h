#pragma once
// Helpers shared by the tests: run the gpubench binary, temporary files, GPU presence.
#include <string>

namespace gpubench::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the built gpubench binary with `args` (a shell-quoted string), capturing both streams.
CommandResult run_gpubench(const std::string& args);
// A fresh, empty directory under the system temp dir (one root per test process).
std::string temp_dir();
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
bool gpu_present();

}  // namespace gpubench::testing

#define GPUBENCH_REQUIRE_GPU()                                                  \
  do {                                                                          \
    if (!::gpubench::testing::gpu_present()) GTEST_SKIP() << "no GPU present"; \
  } while (0)
