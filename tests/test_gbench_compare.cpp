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

struct Output {
  int status = -1;
  std::string text;
};

Output run_command(const std::string& command) {
  Output out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.text.append(buffer, n);
  const int status = pclose(pipe);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(GoogleBenchmarkCompare, ReadsTwoRunsWithRepetitions) {
  if (!std::filesystem::exists(kComparePy)) GTEST_SKIP() << kComparePy << " absent (package libbenchmark-tools)";
  // The distribution's interpreter is the one its python3-scipy is for; a python3 earlier on
  // PATH (pyenv, a virtual environment) may lack scipy.
  std::string python;
  for (const char* candidate : {"/usr/bin/python3", "python3"})
    if (python.empty() && run_command(std::string(candidate) + " -c 'import scipy'").status == 0) python = candidate;
  if (python.empty()) GTEST_SKIP() << "no python3 with scipy (package python3-scipy)";
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/a.json", to_json(run_with_repetitions(1.0)).dump(2));
  testing::write_file(dir + "/b.json", to_json(run_with_repetitions(1.2)).dump(2));
  const Output out =
      run_command(python + " " + kComparePy + " benchmarks " + dir + "/a.json " + dir + "/b.json");
  ASSERT_EQ(out.status, 0) << out.text;
  EXPECT_EQ(out.text.find("Traceback"), std::string::npos) << out.text;
  for (const std::string name : {"memory/stream/op:triad/gpu:gpu0", "launch/latency/kind:kernel/gpu:gpu0"}) {
    for (const char* aggregate : {"_mean", "_median", "_stddev", "_cv", "_pvalue"})
      EXPECT_NE(out.text.find(name + aggregate), std::string::npos) << name << aggregate << "\n" << out.text;
  }
  EXPECT_NE(out.text.find("U Test"), std::string::npos) << out.text;
  // The latency benchmark's time grew by a fifth: compare.py sees it in real_time.
  EXPECT_NE(out.text.find("+0.2"), std::string::npos) << out.text;
}

}  // namespace
}  // namespace gpubench
