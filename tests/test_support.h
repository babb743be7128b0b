#pragma once
// Helpers shared by the tests: run the gpubench binary, temporary files, GPU presence.
#include <string>

#include "harness/model/context.h"

namespace gpubench::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the built gpubench binary with `args` (a shell-quoted string), capturing both streams.
CommandResult run_gpubench(const std::string& args);
// The same with stdout written to `stdout_path` (/dev/full stands for a full disk) rather than
// captured, and `env` ("NAME=value ...", shell-quoted) set for the command.
CommandResult run_gpubench_to(const std::string& stdout_path, const std::string& args, const std::string& env = "");
// Runs `command` in a shell: its exit code, and stdout and stderr together in `out`.
CommandResult run_command(const std::string& command);
// The distribution's python3 (whose python3-* packages it has) or the one on PATH, whichever
// imports `module`; empty when none does.
std::string python_with(const std::string& module);
// Exit code and both streams, for a failed expectation's message.
std::string describe(const CommandResult& result);
// A fresh, empty directory under the system temp dir (one root per test process).
std::string temp_dir();
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
bool gpu_present();
// GPU `index` of an H200 SXM node as context capture describes it: 132 SMs, 6144-bit HBM at
// 3201 MHz, PCIe Gen5 x16, 18 NVLinks at 25 GB/s, ECC on, MIG off, NUMA node `index`.
GpuInfo h200_gpu_info(int index);

}  // namespace gpubench::testing

#define GPUBENCH_REQUIRE_GPU()                                                  \
  do {                                                                          \
    if (!::gpubench::testing::gpu_present()) GTEST_SKIP() << "no GPU present"; \
  } while (0)
