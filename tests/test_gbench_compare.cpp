// Google Benchmark compatibility of the result JSON (DESIGN.md, "Result JSON"): its own
// tools/compare.py reads two gpubench files with repetitions and prints their aggregates and
// U-test lines. compare.py comes from the Debian package libbenchmark-tools (with
// python3-scipy), which scripts/setup.sh installs; without it the test skips.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "tests/report_fixtures.h"

namespace gpubench {
namespace {

constexpr const char* kComparePy = "/usr/share/benchmark/compare.py";

// Nine repetitions (compare.py's optimal number for its U test) of a bandwidth benchmark and
// of a latency one, plus a failed and a skipped benchmark.
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
    for (BenchResult* r : {&bw, &lat}) {
      r->repetitions = 9;
      r->repetition_index = i;
      r->iterations = 100;
    }
    doc.results.push_back(bw);
    doc.results.push_back(lat);
  }
  doc.results.push_back(testing::bad_result("memory/stream/op:copy/gpu:gpu0", Status::kFailed, "verification failed"));
  doc.results.push_back(testing::bad_result("transfer/peer/src:gpu0/dst:gpu1", Status::kSkipped, "needs 2 GPUs"));
  return doc;
}

TEST(GoogleBenchmarkCompare, ReadsTwoRunsWithRepetitions) {
  if (!std::filesystem::exists(kComparePy)) GTEST_SKIP() << kComparePy << " absent (package libbenchmark-tools)";
  const std::string python = testing::python_with("scipy");
  if (python.empty()) GTEST_SKIP() << "no python3 with scipy (package python3-scipy)";
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/a.json", to_json(run_with_repetitions(1.0)).dump(2));
  testing::write_file(dir + "/b.json", to_json(run_with_repetitions(1.2)).dump(2));
  const testing::CommandResult out =
      testing::run_command(python + " " + kComparePy + " benchmarks " + dir + "/a.json " + dir + "/b.json");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_EQ(out.out.find("Traceback"), std::string::npos) << out.out;
  for (const std::string name : {"memory/stream/op:triad/gpu:gpu0", "launch/latency/kind:kernel/gpu:gpu0"}) {
    for (const char* aggregate : {"_mean", "_median", "_stddev", "_cv", "_pvalue"})
      EXPECT_NE(out.out.find(name + aggregate), std::string::npos) << name << aggregate << "\n" << out.out;
  }
  EXPECT_NE(out.out.find("U Test"), std::string::npos) << out.out;
  // The latency benchmark's time grew by a fifth: compare.py sees it in real_time.
  EXPECT_NE(out.out.find("+0.2"), std::string::npos) << out.out;
}

}  // namespace
}  // namespace gpubench
