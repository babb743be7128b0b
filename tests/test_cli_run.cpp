// Runs through the built binary: fault isolation with the CPU-only selftest families, in-process
// runs, repetitions, --config selections, --out beside the table, writes that fail (stdout on a
// full device, an --out that fails), the telemetry trace, the output formats, and the
// environment (Google Benchmark's variables change nothing; NVML may be absent). Nothing here
// needs a GPU; what would behave differently with one says so.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using gpubench::testing::CommandResult;
using gpubench::testing::describe;
using gpubench::testing::gpu_present;
using gpubench::testing::read_file;
using gpubench::testing::run_gpubench;
using gpubench::testing::temp_dir;
using gpubench::testing::write_file;
using gpubench::testing::cli::entries_of;
using gpubench::testing::cli::kHealthy;
using gpubench::testing::cli::parse_json;
using json = nlohmann::json;

// Sets an environment variable for the commands a test runs, and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Google Benchmark's variables are not ours: they change nothing, in a worker or in process.
TEST(CliRun, GoogleBenchmarkVariablesChangeNothing) {
  const std::string args = "--suite selftest --filter 'cpu_faults/fault:none' --format json";
  auto summary = [](const CommandResult& r) {
    std::vector<std::string> rows;
    const json doc = json::parse(r.out, nullptr, false);
    if (doc.is_discarded()) return rows;
    for (const auto& b : doc.at("benchmarks"))
      rows.push_back(b.at("name").get<std::string>() + " " + b.at("gpubench").at("status").get<std::string>() + " " +
                     std::to_string(b.at("repetitions").get<int>()));
    return rows;
  };
  for (const std::string mode : {"", " --no-isolate"}) {
    SCOPED_TRACE("mode '" + mode + "'");
    const CommandResult plain = run_gpubench(args + mode);
    ASSERT_EQ(plain.exit_code, 0) << describe(plain);
    ASSERT_EQ(summary(plain).size(), 2u) << describe(plain);
    const ScopedEnv filter("BENCHMARK_FILTER", "zzz");
    const ScopedEnv repetitions("BENCHMARK_REPETITIONS", "3");
    const ScopedEnv min_time("BENCHMARK_MIN_TIME", "5");
    const ScopedEnv list("BENCHMARK_LIST_TESTS", "true");
    const ScopedEnv format("BENCHMARK_FORMAT", "csv");
    const CommandResult with = run_gpubench(args + mode);
    EXPECT_EQ(with.exit_code, 0) << describe(with);
    EXPECT_EQ(summary(with), summary(plain)) << describe(with);
  }
}

TEST(CliRun, ConfigSelectsSuiteFilterAndValues) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/healthy.json";
  write_file(path, R"({"suites": ["selftest"], "filter": "cpu_faults",
                       "settings": {"repetitions": 2, "max_time": 1},
                       "families": {"selftest/cpu_faults": {"fault": ["none_after", "none"]}}})");
  const CommandResult r = run_gpubench("--config " + path + " --format json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = parse_json(r.out);
  std::vector<std::string> names;
  for (const auto& b : doc.at("benchmarks"))
    if (b.at("run_type") == "iteration") names.push_back(b.at("name"));  // not the aggregates
  EXPECT_EQ(names, (std::vector<std::string>{"selftest/cpu_faults/fault:none_after", "selftest/cpu_faults/fault:none_after",
                                             "selftest/cpu_faults/fault:none", "selftest/cpu_faults/fault:none"}));
}

TEST(CliRun, AFamilyCanRunARepetitionCountOfItsOwn) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/by_family.json";
  write_file(path, R"({"suites": ["selftest"], "filter": "cpu_faults/fault:(none|crash)$|cpu_sleep/seconds:1/copy:a",
                       "settings": {"repetitions": 2, "max_time": 1},
                       "repetitions_by_family": {"selftest/cpu_faults": 3, "selftest/cpu_sleep": 1}})");
  const CommandResult r = run_gpubench("--config " + path + " --format json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);  // the crash
  std::vector<std::string> seen;
  const json doc = parse_json(r.out);
  for (const auto& b : doc.at("benchmarks"))
    if (b.at("run_type") == "iteration")
      seen.push_back(b.at("name").get<std::string>() + " " + std::to_string(b.at("repetitions").get<int>()));
  // The crash ends its benchmark's repetitions in one failed entry; the worker that follows runs the rest.
  EXPECT_EQ(seen, (std::vector<std::string>{"selftest/cpu_faults/fault:none 3", "selftest/cpu_faults/fault:none 3",
                                            "selftest/cpu_faults/fault:none 3", "selftest/cpu_faults/fault:crash 3",
                                            "selftest/cpu_sleep/seconds:1/copy:a 1"}));
  // --repetitions overrides every family's count.
  const CommandResult flag = run_gpubench("--config " + path + " --filter 'cpu_faults/fault:none$' --repetitions 1 --format json");
  ASSERT_EQ(flag.exit_code, 0) << describe(flag);
  EXPECT_EQ(parse_json(flag.out).at("benchmarks").size(), 1u);
  write_file(path, R"({"repetitions_by_family": {"selftest/cpu_faults": 0}})");
  testing::cli::expect_usage_error(run_gpubench("--config " + path), path + ": /repetitions_by_family/selftest/cpu_faults: ");
  write_file(path, R"({"repetitions_by_family": {"selftest/nothing": 2}})");
  testing::cli::expect_usage_error(run_gpubench("--config " + path), "unknown family 'selftest/nothing'");
}

TEST(CliRun, FaultsAreIsolatedAndTheRunContinues) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/faults.json";
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = run_gpubench("--suite selftest --filter cpu_faults --timeout 2 --out " + path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_LT(seconds, 30) << "the hang was not cut off by --timeout 2";
  const json doc = parse_json(read_file(path));
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("context").at("gpubench").at("schema"), "gpubench/1");
  const auto& benchmarks = doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 4u) << doc.dump(2);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"selftest/cpu_faults/fault:none", "ok"}, {"selftest/cpu_faults/fault:hang", "timeout"},
      {"selftest/cpu_faults/fault:crash", "failed"}, {"selftest/cpu_faults/fault:none_after", "ok"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(benchmarks[i].at("name"), expected[i].first);
    EXPECT_EQ(benchmarks[i].at("gpubench").at("status"), expected[i].second) << benchmarks[i].dump(2);
  }
  // The failures say why.
  const std::string hang_error = benchmarks[1].at("gpubench").at("error");
  EXPECT_NE(hang_error.find("2 s"), std::string::npos) << hang_error;
  const std::string crash_error = benchmarks[2].at("gpubench").at("error");
  EXPECT_NE(crash_error.find("signal 11"), std::string::npos) << crash_error;
  EXPECT_TRUE(benchmarks[1].at("gpubench").at("metrics").empty());
  EXPECT_TRUE(benchmarks[2].at("gpubench").at("metrics").empty());
  EXPECT_EQ(benchmarks[1].at("error_occurred"), true);
  // The run went on past them: the healthy case after the crash was measured and verified.
  for (std::size_t i : {0u, 3u}) {
    const auto& g = benchmarks[i].at("gpubench");
    EXPECT_EQ(g.at("verified"), true);
    EXPECT_FALSE(g.at("metrics").at("time_us").at("values").empty());
    EXPECT_GT(benchmarks[i].at("real_time").get<double>(), 0);
  }
  // stderr reports each failure; stdout has the table with the summary.
  EXPECT_NE(r.err.find("fault:hang: timeout"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("fault:crash: failed"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("2 ok, 2 failed, 0 skipped"), std::string::npos) << describe(r);
  // The JSON file is the only thing left in the directory (no temporary, no worker job file).
  EXPECT_EQ(entries_of(dir), std::vector<std::string>{"faults.json"});
}

TEST(CliRun, NoIsolateRunsInProcess) {
  const CommandResult r = run_gpubench(kHealthy + " --no-isolate --format json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = parse_json(r.out);
  ASSERT_EQ(doc.at("benchmarks").size(), 1u);
  EXPECT_EQ(doc["benchmarks"][0].at("gpubench").at("status"), "ok");
  EXPECT_EQ(doc["benchmarks"][0].at("gpubench").at("verified"), true);
}

TEST(CliRun, RepetitionsEachHaveTheirOwnSamples) {
  const CommandResult r = run_gpubench(kHealthy + " --repetitions 3 --format json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = parse_json(r.out);
  const auto& benchmarks = doc.at("benchmarks");
  // Three repetitions, then Google Benchmark's aggregates of them.
  ASSERT_EQ(benchmarks.size(), 7u);
  EXPECT_EQ(benchmarks[3].at("name"), "selftest/cpu_faults/fault:none_mean");
  EXPECT_EQ(benchmarks[6].at("aggregate_name"), "cv");
  for (int i = 0; i < 3; ++i) {
    const auto& b = benchmarks[i];
    EXPECT_EQ(b.at("name"), "selftest/cpu_faults/fault:none");
    EXPECT_EQ(b.at("repetition_index"), i);
    EXPECT_EQ(b.at("repetitions"), 3);
    EXPECT_EQ(b.at("gpubench").at("status"), "ok");
    EXPECT_GE(b.at("gpubench").at("metrics").at("time_us").at("samples").get<int>(), 10);
  }
  EXPECT_NE(benchmarks[0].at("gpubench").at("metrics").at("time_us").at("values"),
            benchmarks[1].at("gpubench").at("metrics").at("time_us").at("values"));
}

TEST(CliRun, RepetitionsInProcessToo) {
  const CommandResult r = run_gpubench(kHealthy + " --repetitions 2 --no-isolate --format json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = parse_json(r.out);
  ASSERT_EQ(doc.at("benchmarks").size(), 6u);  // two repetitions and four aggregates
  EXPECT_EQ(doc["benchmarks"][1].at("repetition_index"), 1);
}

TEST(CliRun, OutWritesTheDocumentAndStdoutKeepsTheTable) {
  const std::string path = temp_dir() + "/run.json";
  const CommandResult r = run_gpubench(kHealthy + " --out " + path);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = parse_json(read_file(path));
  ASSERT_EQ(doc.at("benchmarks").size(), 1u);
  EXPECT_EQ(doc.at("benchmarks")[0].at("name"), "selftest/cpu_faults/fault:none");
  EXPECT_NE(r.out.find("benchmark"), std::string::npos);
  EXPECT_NE(r.out.find("selftest/cpu_faults/fault:none"), std::string::npos);
  EXPECT_NE(r.out.find("1 ok, 0 failed, 0 skipped"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("gpubench: 1 benchmark in [0-9]+\\.[0-9] s\n"))) << r.err;
}

// The fallback file a failed write left, as stderr names it after `said` ("" when none).
std::string fallback_named(const std::string& err, const std::string& said) {
  std::smatch match;
  return std::regex_search(err, match, std::regex(said + "(/[^ \n]+)")) ? match[1].str() : "";
}

TEST(CliRun, StdoutOnAFullDeviceIsExitTwoAndTheResultsAreKept) {
  const std::string dir = temp_dir();
  CommandResult r = testing::run_gpubench_to("/dev/full", kHealthy, "TMPDIR=" + dir);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("gpubench: stdout: cannot write: No space left on device"), std::string::npos) << describe(r);
  const std::string kept = fallback_named(r.err, "gpubench: the results are in ");
  ASSERT_EQ(kept.rfind(dir + "/gpubench-run-", 0), 0u) << describe(r);
  EXPECT_EQ(parse_json(read_file(kept)).at("benchmarks").at(0).at("gpubench").at("status"), "ok");
  // With --out the document is in its file already: no fallback.
  r = testing::run_gpubench_to("/dev/full", kHealthy + " --out " + dir + "/run.json", "TMPDIR=" + dir);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_EQ(r.err.find("the results are in"), std::string::npos) << describe(r);
  EXPECT_EQ(parse_json(read_file(dir + "/run.json")).at("benchmarks").size(), 1u);
}

// The disk under --out fails after the run has started (its directory goes, a file takes its
// place): the table is still printed, the document is in a fallback file, and the exit is 2.
TEST(CliRun, AnOutFileThatFailsDuringTheRunLeavesTheTableAndAFallbackFile) {
  const std::string dir = temp_dir(), out = dir + "/disk/run.json";
  std::filesystem::create_directory(dir + "/disk");
  const CommandResult r = testing::run_command(
      "{ TMPDIR=" + dir + " " + GPUBENCH_EXE + " --suite selftest --filter 'cpu_sleep/seconds:1/' --out " + out +
      " >" + dir + "/stdout 2>&1 & pid=$!; while [ ! -s " + out + " ]; do sleep 0.05; done; rm -r " + dir +
      "/disk; touch " + dir + "/disk; wait $pid; }");
  const std::string table = read_file(dir + "/stdout");
  EXPECT_EQ(r.exit_code, 2) << describe(r) << table;
  EXPECT_NE(table.find("3 ok, 0 failed, 0 skipped"), std::string::npos) << table;
  const std::string kept = fallback_named(table, "run.json: cannot write: Not a directory; written to ");
  ASSERT_FALSE(kept.empty()) << table;
  const json doc = parse_json(read_file(kept));
  EXPECT_EQ(doc.at("benchmarks").size(), 3u);
  EXPECT_EQ(doc.at("context").at("gpubench").at("complete"), true);
}

// A device is written in place, never replaced by a file: /dev/full (made here) refuses the
// first write, before anything is measured.
TEST(CliRun, AnOutOnAFullDeviceIsRefusedBeforeAnythingIsMeasured) {
  const std::string device = temp_dir() + "/full";
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) GTEST_SKIP() << "mknod needs root";
  const CommandResult r = run_gpubench(kHealthy + " --out " + device);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find(device + ": cannot write: No space left on device"), std::string::npos) << describe(r);
  EXPECT_EQ(r.out, "") << describe(r);
  EXPECT_TRUE(std::filesystem::is_character_file(device));
}

TEST(CliRun, TelemetryTraceIsWrittenWithItsHeader) {
  const std::string path = temp_dir() + "/trace.csv";
  const CommandResult r = run_gpubench(kHealthy + " --telemetry-interval 0 --cooldown-max-wait 0 --telemetry-trace " + path);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(read_file(path).rfind("t_s,gpu,benchmark,sm_clock_mhz,", 0), 0u) << read_file(path);
}

TEST(CliRun, JsonOnStdout) {
  const CommandResult r = run_gpubench(kHealthy + " --format json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = parse_json(r.out);
  const auto& g = doc.at("context").at("gpubench");
  EXPECT_EQ(g.at("schema"), "gpubench/1");
  EXPECT_NE(g.at("command_line").get<std::string>().find("--format json"), std::string::npos);
  for (const char* key : {"version", "git_commit", "driver_version", "cuda_driver", "cuda_runtime", "cublas", "cudnn",
                          "nccl", "gpus", "links", "peak"})
    EXPECT_TRUE(g.contains(key)) << key;
  const auto& b = doc.at("benchmarks").at(0);
  for (const char* key : {"name", "run_name", "run_type", "repetitions", "iterations", "real_time", "cpu_time",
                          "time_unit"})
    EXPECT_TRUE(b.contains(key)) << key;
  EXPECT_EQ(b.at("gpubench").at("params"), (json{{"fault", "none"}}));
  EXPECT_EQ(b.at("gpubench").at("suite"), "selftest");
  EXPECT_EQ(b.at("gpubench").at("family"), "selftest/cpu_faults");
}

TEST(CliRun, CsvAndMarkdownOnStdout) {
  const CommandResult csv = run_gpubench(kHealthy + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << describe(csv);
  // The tidy CSV of docs/outputs.md, as `show --format csv` writes it.
  EXPECT_EQ(csv.out.rfind("run_id,host,gpu_index,gpu_uuid,suite,family,repetition,fault,metric,unit,median,", 0), 0u)
      << csv.out;
  EXPECT_NE(csv.out.find(",selftest,cpu_faults,0,none,time_us,us,"), std::string::npos) << csv.out;
  const CommandResult md = run_gpubench(kHealthy + " --format md");
  ASSERT_EQ(md.exit_code, 0) << describe(md);
  EXPECT_EQ(md.out.rfind("| benchmark | metric |", 0), 0u) << md.out;
  EXPECT_NE(md.out.find("| selftest/cpu_faults/fault:none | time_us |"), std::string::npos) << md.out;
}

TEST(CliRun, NvmlAbsent) {
  const ScopedEnv no_nvml("GPUBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  const CommandResult r = run_gpubench(kHealthy + " --format json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = parse_json(r.out);
  const auto& nvml = doc.at("context").at("gpubench").at("nvml");
  EXPECT_EQ(nvml.at("available"), false);
  EXPECT_NE(nvml.at("error").get<std::string>().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos)
      << nvml.dump();
  EXPECT_EQ(doc.at("benchmarks").at(0).at("gpubench").at("status"), "ok");
  if (gpu_present()) EXPECT_NE(r.err.find("NVML unavailable"), std::string::npos) << describe(r);
  const CommandResult info = run_gpubench("info");
  EXPECT_EQ(info.exit_code, gpu_present() ? 0 : 3) << describe(info);
  EXPECT_NE(info.out.find("NVML: unavailable"), std::string::npos) << describe(info);
}

}  // namespace
}  // namespace gpubench
