// Google Benchmark compatibility of the result JSON (DESIGN.md, "Result JSON"): its own
// tools/compare.py reads two gpubench files with repetitions and prints their aggregates and
// U-test lines, and leaves out every entry that is not ok (failed, skipped, timed out,
// interrupted), alone or beside ok repetitions, printing no zeros for them. compare.py comes from the Debian package libbenchmark-tools (with
// python3-scipy), which scripts/setup.sh installs; without it the test skips.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <vector>

#include "tests/report_fixtures.h"

namespace gpubench {
namespace {

constexpr const char* kComparePy = "/usr/share/benchmark/compare.py";

constexpr const char* kNotOk[] = {"memory/stream/op:copy/gpu:gpu0", "transfer/peer/src:gpu0/dst:gpu1",
                                  "selftest/cpu_faults/fault:hang", "selftest/cpu_faults/fault:sigint"};

// Nine repetitions (compare.py's optimal number for its U test) of a bandwidth benchmark, of a
// latency one and of a scale one whose fifth repetition failed, plus a benchmark of each
// status that is not ok.
RunDocument run_with_repetitions(double scale) {
  RunDocument doc = testing::document_of(testing::one_gpu_context(), {}, "gpubench --repetitions 9");
  for (int i = 0; i < 9; ++i) {
    BenchResult bw = testing::ok_result("memory/stream/op:triad/gpu:gpu0", 4000 + 10 * i, 4800);
    bw.metrics["time_us"].values = {250 * scale + i, 251 * scale + i, 252 * scale + i};
    BenchResult lat = bw;
    lat.name = "launch/latency/kind:kernel/gpu:gpu0";
    lat.family = "launch/latency";
    lat.primary_metric = "latency_us";
    lat.metrics = {{"latency_us", {"us", false, {2.0 * scale + 0.01 * i, 2.1 * scale, 2.2 * scale}}}};
    BenchResult mixed = i == 4 ? testing::bad_result("memory/stream/op:scale/gpu:gpu0", Status::kTimeout, "hung")
                               : testing::ok_result("memory/stream/op:scale/gpu:gpu0", 3000 + 10 * i);
    for (BenchResult* r : {&bw, &lat, &mixed}) {
      r->repetitions = 9;
      r->repetition_index = i;
      r->iterations = r->status == Status::kOk ? 100 : 0;
    }
    doc.results.push_back(bw);
    doc.results.push_back(lat);
    doc.results.push_back(mixed);
  }
  doc.results.push_back(testing::bad_result(kNotOk[0], Status::kFailed, "verification failed"));
  doc.results.push_back(testing::bad_result(kNotOk[1], Status::kSkipped, "needs 2 GPUs"));
  doc.results.push_back(testing::bad_result(kNotOk[2], Status::kTimeout, "no result within 2 s"));
  doc.results.push_back(testing::bad_result(kNotOk[3], Status::kInterrupted, "SIGINT"));
  return doc;
}

// compare.py's lines about `name` itself (not its aggregates): "<name>  <4 changes and times>".
std::vector<std::string> lines_of(const std::string& out, const std::string& name) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + " ", 0) == 0) lines.push_back(line);
  return lines;
}

TEST(GoogleBenchmarkCompare, ReadsTwoRunsWithRepetitions) {
  if (!std::filesystem::exists(kComparePy)) GTEST_SKIP() << kComparePy << " absent (package libbenchmark-tools)";
  const std::string python = testing::python_with("scipy");
  if (python.empty()) GTEST_SKIP() << "no python3 with scipy (package python3-scipy)";
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/a.json", to_json(run_with_repetitions(1.0)).dump(2));
  testing::write_file(dir + "/b.json", to_json(run_with_repetitions(1.2)).dump(2));
  const testing::CommandResult out =
      testing::run_command(python + " " + kComparePy + " --no-color benchmarks " + dir + "/a.json " + dir + "/b.json");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_EQ(out.out.find("Traceback"), std::string::npos) << out.out;
  for (const std::string name : {"memory/stream/op:triad/gpu:gpu0", "launch/latency/kind:kernel/gpu:gpu0"}) {
    for (const char* aggregate : {"_mean", "_median", "_stddev", "_cv", "_pvalue"})
      EXPECT_NE(out.out.find(name + aggregate), std::string::npos) << name << aggregate << "\n" << out.out;
  }
  EXPECT_NE(out.out.find("U Test"), std::string::npos) << out.out;
  // The latency benchmark's time grew by a fifth: compare.py sees it in real_time.
  EXPECT_NE(out.out.find("+0.2"), std::string::npos) << out.out;
  // What did not run is not compared: no line, and no repetition compared at zero time (an
  // aggregate's stddev may be zero: the fixture's CPU time is the same in every repetition).
  for (const char* name : kNotOk) EXPECT_EQ(out.out.find(name), std::string::npos) << name << "\n" << out.out;
  EXPECT_EQ(lines_of(out.out, "memory/stream/op:scale/gpu:gpu0").size(), 8u) << out.out;
  int repetition_lines = 0;
  std::istringstream lines(out.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    const std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    const std::string suffix = "/gpu:gpu0";  // a repetition's line, not an aggregate's
    if (w.size() != 7 || w[0].size() <= suffix.size() ||
        w[0].compare(w[0].size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    ++repetition_lines;
    for (std::size_t i = 3; i < w.size(); ++i) EXPECT_NE(w[i], "0") << line;
  }
  EXPECT_EQ(repetition_lines, 9 + 9 + 8) << out.out;
}

// Two committed H200 acceptance runs, each with three transfer benchmarks skipped (one GPU),
// shown again by this build: compare.py compares what ran and leaves the skipped ones out.
TEST(GoogleBenchmarkCompare, LeavesTheSkippedBenchmarksOfCommittedRunsOut) {
  if (!std::filesystem::exists(kComparePy)) GTEST_SKIP() << kComparePy << " absent (package libbenchmark-tools)";
  const std::string python = testing::python_with("scipy");
  if (python.empty()) GTEST_SKIP() << "no python3 with scipy (package python3-scipy)";
  const std::string dir = testing::temp_dir(), results = std::string(GPUBENCH_SOURCE_DIR) + "/results/h200/";
  for (const char* run : {"run1", "run2"}) {
    const auto shown =
        testing::run_gpubench(std::string("show ") + results + "2026-12-02-acceptance-" + run + ".json --format json");
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    testing::write_file(dir + "/" + run + ".json", shown.out);
  }
  const testing::CommandResult out =
      testing::run_command(python + " " + kComparePy + " --no-color benchmarks " + dir + "/run1.json " + dir + "/run2.json");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_EQ(out.out.find("Traceback"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("memory/stream/"), std::string::npos) << out.out;
  for (const char* skipped : {"transfer/all_to_all ", "transfer/peer_latency ", "transfer/peer "})
    EXPECT_EQ(out.out.find(skipped), std::string::npos) << skipped << "\n" << out.out;
}

}  // namespace
}  // namespace gpubench
