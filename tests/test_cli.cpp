// The command line's refusals, through the built binary: flags, --config, --out, --devices,
// telemetry settings and formats checked before anything runs, each bad input one clear line
// on stderr with its exit code (DESIGN.md: 2 bad usage or input, 3 no GPU) and no partial
// output. Nothing here needs a GPU; what would behave differently with one says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>
#include <utility>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using gpubench::testing::CommandResult;
using gpubench::testing::describe;
using gpubench::testing::gpu_present;
using gpubench::testing::run_gpubench;
using gpubench::testing::temp_dir;
using gpubench::testing::write_file;
using gpubench::testing::cli::entries_of;
using gpubench::testing::cli::expect_usage_error;
using gpubench::testing::cli::kHealthy;

TEST(Cli, Version) {
  const CommandResult r = run_gpubench("--version");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^gpubench \d+\.\d+\.\d+)"))) << describe(r);
}

TEST(Cli, Help) {
  const CommandResult r = run_gpubench("--help");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  for (const char* flag : {"--suite", "--filter", "--devices", "--config", "--quick", "--out", "--format",
                           "--min-time", "--max-noise", "--timeout", "--repetitions", "list", "info"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag << " not in --help";
}

TEST(Cli, UnknownSuite) {
  expect_usage_error(run_gpubench("--suite hbm"), "unknown suite 'hbm'");
  expect_usage_error(run_gpubench("--suite memory,hbm"), "unknown suite 'hbm'");
}

TEST(Cli, UnknownFlag) {
  const CommandResult r = run_gpubench("--suite selftest --bogus-flag");
  expect_usage_error(r, "--bogus-flag");
}

TEST(Cli, BadFlagValues) {
  expect_usage_error(run_gpubench(kHealthy + " --timeout soon"), "--timeout");
  expect_usage_error(run_gpubench(kHealthy + " --repetitions x"), "--repetitions");
}

// Each numeric flag obeys the rule its --config setting obeys: one line naming the flag, exit 2.
TEST(Cli, NumericFlagsAreCheckedLikeTheConfig) {
  for (const std::string flag : {"--timeout 0", "--timeout -5", "--max-noise -1", "--max-noise 0", "--min-time nan",
                                 "--min-time -0.5", "--max-time inf", "--max-time 0", "--repetitions 0",
                                 "--repetitions -2", "--repetitions 2000000"}) {
    SCOPED_TRACE(flag);
    const CommandResult r = run_gpubench(kHealthy + " " + flag);
    expect_usage_error(r, flag.substr(0, flag.find(' ')) + ": expected a positive");
  }
}

TEST(Cli, TelemetryFlagsAreChecked) {
  const std::pair<const char*, const char*> cases[] = {
      {"--telemetry-interval -1", "--telemetry-interval: expected an integer from 0 to 60000 (got -1)"},
      {"--telemetry-interval 60001", "--telemetry-interval: expected an integer from 0 to 60000"},
      {"--cooldown-max-wait nan", "--cooldown-max-wait: expected a number >= 0"},
      {"--cooldown-margin -2", "--cooldown-margin: expected a number >= 0"},
      {"--cooldown-target 0", "--cooldown-target: expected a positive"},
      {"--telemetry-trace /proc/gpubench-trace.csv", "/proc/gpubench-trace.csv: cannot write"}};
  for (const auto& [flag, message] : cases) {
    SCOPED_TRACE(flag);
    expect_usage_error(run_gpubench(kHealthy + " " + flag), message);
  }
}

TEST(Cli, OutWhereNothingCanBeCreatedIsRefusedBeforeRunning) {
  // /proc refuses new files even to root.
  expect_usage_error(run_gpubench(kHealthy + " --out /proc/gpubench-run.json"), "/proc/gpubench-run.json: cannot write");
  const std::string dir = temp_dir();
  expect_usage_error(run_gpubench(kHealthy + " --out " + dir), "it is a directory");
}

TEST(Cli, OutIntoADirectoryWithoutWritePermission) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  const std::string dir = temp_dir() + "/read-only";
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  expect_usage_error(run_gpubench(kHealthy + " --out " + dir + "/run.json"), "Permission denied");
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
}

TEST(Cli, FilterMatchingNothing) {
  expect_usage_error(run_gpubench("--suite selftest --filter 'cpu_faults/nomatch'"), "matches no benchmark");
}

TEST(Cli, BadFilterRegex) {
  expect_usage_error(run_gpubench("--suite selftest --filter 'cpu_faults/(none'"), "--filter");
}

TEST(Cli, MalformedConfig) {
  const std::string path = temp_dir() + "/broken.json";
  write_file(path, "{\"suites\": [\"selftest\",]}");
  const CommandResult r = run_gpubench("--config " + path);
  expect_usage_error(r, path);
  EXPECT_NE(r.err.find("byte 24"), std::string::npos) << describe(r);
}

TEST(Cli, MissingConfig) {
  const std::string path = temp_dir() + "/missing.json";
  expect_usage_error(run_gpubench("--config " + path), path);
}

TEST(Cli, InvalidConfigNamesTheFileAndPath) {
  const std::string path = temp_dir() + "/bad-axis.json";
  write_file(path, R"({"suites": ["selftest"], "families": {"selftest/cpu_faults": {"fault": ["explode"]}}})");
  const CommandResult r = run_gpubench("--config " + path);
  expect_usage_error(r, path + ": /families/selftest/cpu_faults/fault/0: ");
}

// A per-device family's gpu axis is checked with the config, so a value that names no GPU is bad
// input, not an exception out of expansion.
TEST(Cli, ConfigWithABadGpuValueIsBadInput) {
  const std::string path = temp_dir() + "/bad-gpu.json";
  write_file(path, R"({"families": {"memory/stream": {"gpu": ["banana"]}}})");
  const CommandResult r = run_gpubench("--suite memory --config " + path);
  expect_usage_error(r, path);
}

TEST(Cli, UnknownFormat) {
  expect_usage_error(run_gpubench(kHealthy + " --format bogus"), "unknown format 'bogus'");
}

// --devices is parsed whether or not a GPU is visible: garbage is never silently ignored.
TEST(Cli, GarbageDevicesIsBadUsage) {
  expect_usage_error(run_gpubench(kHealthy + " --devices abc"), "--devices");
  expect_usage_error(run_gpubench(kHealthy + " --devices 0,0"), "--devices");
}

TEST(Cli, DeviceIndexPastTheVisibleGpus) {
  GPUBENCH_REQUIRE_GPU();
  expect_usage_error(run_gpubench(kHealthy + " --devices 64"), "no GPU 64");
}

TEST(Cli, NoGpuForAGpuSuite) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present";
  const std::string dir = temp_dir();
  const CommandResult r = run_gpubench("--suite memory --quick --out " + dir + "/run.json");
  expect_usage_error(r, "no usable GPU", 3);
  EXPECT_TRUE(entries_of(dir).empty()) << "a file was written";
  expect_usage_error(run_gpubench("--suite selftest"), "no usable GPU", 3);  // gpu_faults needs one
}

TEST(Cli, InfoWithoutGpu) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present";
  const CommandResult r = run_gpubench("info");
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_NE(r.out.find("No usable GPU"), std::string::npos) << describe(r);
}

TEST(Cli, OutIntoAMissingDirectory) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/no/such/dir/run.json";
  const CommandResult r = run_gpubench(kHealthy + " --out " + path);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(r.out.empty()) << describe(r);
  // The last line on stderr says what could not be written.
  const std::string last_line = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
  EXPECT_EQ(last_line.rfind("gpubench: " + path + ": ", 0), 0u) << describe(r);
  EXPECT_TRUE(entries_of(dir).empty()) << "something was written";
}

// A typo in --out's directory must not throw away a whole run's results: it is refused before
// anything runs, in one line.
TEST(Cli, OutIntoAMissingDirectoryIsRefusedBeforeRunning) {
  const std::string path = temp_dir() + "/no/such/dir/run.json";
  expect_usage_error(run_gpubench(kHealthy + " --out " + path), path);
}

}  // namespace
}  // namespace gpubench
