// Golden-output tests of the reporters, as Google Benchmark's output tests do: one fixed run
// (ok with a peak and three repetitions, throttled, failed, timed out, skipped) rendered by each
// reporter and compared byte for byte with tests/golden/run.<format>. A deliberate change of
// an output is accepted by regenerating the files:
//   GPUBENCH_UPDATE_GOLDEN=1 build/tests/gpubench_cpu_tests --gtest_filter='Golden*'
// and reviewing the diff of tests/golden/ like any other change.
// Also here: the JSON file reporter's rewrites (complete: false while running, a whole
// document at every moment, even when its process is killed).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/model/run_stream.h"
#include "tests/report_fixtures.h"
#include "tests/result_builder.h"

namespace gpubench {
namespace {

using testing::expect_golden;
using testing::read_file;

// Everything a real run takes from the host and the build is fixed here.
RunDocument golden_run() {
  std::vector<BenchResult> results;
  for (int i = 0; i < 3; ++i) {
    results.push_back(testing::ok_result("memory/stream/op:triad/array_bytes:1073741824/gpu:gpu0",
                                         4000 + 10 * i, 4800));
    results.back().repetition_index = i;
    results.back().repetitions = 3;
    results.back().iterations = 30;
  }
  const auto mixed = testing::mixed_results();
  results.insert(results.end(), mixed.begin() + 1, mixed.end());
  RunDocument doc;
  doc.context = testing::one_gpu_context();
  doc.results = results;
  doc.host.date = "2026-12-01T08:00:00+0000";
  doc.host.host_name = "node01";
  doc.host.executable = "/opt/gpubench/bin/gpubench";
  doc.host.num_cpus = 64;
  doc.host.mhz_per_cpu = 2000;
  doc.host.caches = {{"Data", 1, 49152, 2}, {"Unified", 3, 110100480, 128}};
  doc.host.load_avg = {0.5, 0.25, 0.1};
  doc.version = "0.0.0";
  doc.git_commit = "0123456789ab";
  doc.command_line = "gpubench --suite memory --repetitions 3";
  doc.config = {{"file", ""}, {"settings", {{"repetitions", 3}}}};
  doc.complete = true;
  return doc;
}

TEST(Golden, Table) { expect_golden(testing::render(golden_run(), Format::kTable), "run.table.txt"); }
TEST(Golden, Csv) { expect_golden(testing::render(golden_run(), Format::kCsv), "run.csv"); }
TEST(Golden, Markdown) { expect_golden(testing::render(golden_run(), Format::kMarkdown), "run.md"); }
TEST(Golden, Prometheus) {
  expect_golden(testing::render(golden_run(), Format::kPrometheus), "run.prom");
}
TEST(Golden, Json) { expect_golden(testing::render(golden_run(), Format::kJson), "run.json"); }

TEST(Golden, JsonFileIsTheJsonReportersDocument) {
  const std::string path = testing::temp_dir() + "/run.json";
  testing::render_with(*json_file_reporter(path), golden_run());
  EXPECT_EQ(read_file(path), testing::render(golden_run(), Format::kJson));
}

TEST(Golden, JsonReadsBackAsTheSameDocument) {
  const std::string text = testing::render(golden_run(), Format::kJson);
  const RunDocument back = read_run_document(nlohmann::json::parse(text), "run.json");
  EXPECT_EQ(back.results.size(), golden_run().results.size());  // aggregates are not results
  EXPECT_EQ(to_json(back), nlohmann::json::parse(text));
}

TEST(Golden, MultiReporterFeedsEveryReporter) {
  std::ostringstream table, csv;
  MultiReporter both;
  both.add(table_reporter(table));
  both.add(csv_reporter(csv));
  testing::render_with(both, golden_run());
  EXPECT_EQ(table.str(), testing::render(golden_run(), Format::kTable));
  EXPECT_EQ(csv.str(), testing::render(golden_run(), Format::kCsv));
}

nlohmann::json gpubench_context_of(const std::string& path) {
  return nlohmann::json::parse(read_file(path)).at("context").at("gpubench");
}

TEST(JsonFileReporter, RewritesTheDocumentAfterEveryResult) {
  const std::string dir = testing::temp_dir();
  const std::string path = dir + "/run.json";
  const RunDocument run = golden_run();
  RunDocument start = run;
  start.results.clear();
  start.complete = false;
  auto reporter = json_file_reporter(path);
  reporter->context(start);
  EXPECT_EQ(gpubench_context_of(path).at("complete"), false);
  EXPECT_TRUE(nlohmann::json::parse(read_file(path)).at("benchmarks").empty());
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    reporter->result(run.results[i]);
    const RunDocument so_far = load_run_document(path);
    EXPECT_FALSE(so_far.complete);
    ASSERT_EQ(so_far.results.size(), i + 1);
    EXPECT_EQ(so_far.results.back().name, run.results[i].name);
  }
  reporter->finish(run);
  EXPECT_EQ(gpubench_context_of(path).at("complete"), true);
  EXPECT_TRUE(gpubench_context_of(path).at("interrupted").is_null());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
}

TEST(JsonFileReporter, InterruptedRunSaysWhichSignal) {
  const std::string path = testing::temp_dir() + "/run.json";
  RunDocument run = golden_run();
  run.complete = false;
  run.interrupted = "SIGTERM";
  testing::render_with(*json_file_reporter(path), run);
  EXPECT_EQ(gpubench_context_of(path).at("interrupted"), "SIGTERM");
  EXPECT_EQ(gpubench_context_of(path).at("complete"), false);
  EXPECT_EQ(load_run_document(path).interrupted, "SIGTERM");
}

TEST(JsonFileReporter, UnwritablePathIsBadInputBeforeAnyResult) {
  auto reporter = json_file_reporter(testing::temp_dir() + "/no/such/dir/run.json");
  testing::expect_bad_input([&] { reporter->context(golden_run()); }, "cannot write");
}

// A process killed mid-write (SIGKILL: no handler runs) leaves the last whole document.
TEST(JsonFileReporter, KilledWriterLeavesTheLastCompleteDocument) {
  const std::string path = testing::temp_dir() + "/run.json";
  const RunDocument run = golden_run();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto reporter = json_file_reporter(path);
    reporter->context(run);
    for (;;)
      for (const BenchResult& r : run.results) reporter->result(r);
  }
  while (!std::filesystem::exists(path)) usleep(1000);
  usleep(200000);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  const RunDocument left = load_run_document(path);  // throws on half a document
  EXPECT_FALSE(left.complete);
  EXPECT_FALSE(left.results.empty());
}

}  // namespace
}  // namespace gpubench
