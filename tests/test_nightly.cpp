// scripts/nightly.sh end to end, on the CPU: bad nights played through the script with a
// stand-in gpubench (tests/nightly_stand_in.cpp) whose runs are canned nights made from the
// shipped H200 baseline, and whose compare and check are the real commands.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include "harness/analysis/baseline.h"
#include "harness/analysis/gpu_names.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::ResultBuilder;
using testing::samples;

const std::string kRepo = GPUBENCH_SOURCE_DIR;

// A night of `gpus` H200s: every figure the baseline expects, 25 % clear of its bound, except
// where `scale` (by name) moves it.
ResultBuilder night(int gpus, const std::function<double(const std::string&)>& scale = {}) {
  const Baseline baseline = load_baseline(kRepo + "/configs/baselines/h200.json");
  std::vector<int> indices;
  for (int i = 0; i < gpus; ++i) indices.push_back(i);
  ResultBuilder run(gpus);
  for (const Expectation& e : baseline.expectations) {
    if (gpus < e.gpus_needed()) continue;
    const bool floor = e.bound == Bound::kFloor;
    for (const std::string& name : expand_gpu_name(e.name, indices, e.unordered_pairs)) {
      const double value = e.value * (floor ? 1.25 : 0.75) * (scale ? scale(name) : 1.0);
      run.bench(name, e.metric, samples(value, 0.5, 10), floor);
    }
  }
  return run;
}

// GPU 5's HBM 30 % slow: its STREAM figures fall below their floors.
double slow_gpu5(const std::string& name) {
  return name.find("memory/stream/") == 0 && name.find("gpu:gpu5") != std::string::npos ? 0.7 : 1.0;
}

struct Night {
  int exit_code = -1;
  std::string summary, check;  // the script's stdout, and <date>-check.txt
};

// Runs the script from `cwd` with the stand-in as GPUBENCH and `run` as the night's result.
Night play(const ResultBuilder& run, const std::string& args, std::map<std::string, std::string> env = {},
           std::string cwd = kRepo) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/night.json", run.doc().dump());
  env["STAND_IN_RUN"] = dir + "/night.json";
  env["GPUBENCH"] = GPUBENCH_STAND_IN;
  std::string command = "cd '" + cwd + "' && env";
  for (const auto& [name, value] : env) command += " " + name + "='" + value + "'";
  command += " '" + kRepo + "/scripts/nightly.sh' --results-dir '" + dir + "/results' --date 2026-12-01 " + args +
             " >'" + dir + "/summary.txt' 2>'" + dir + "/stderr.txt'";
  const int status = std::system(command.c_str());
  Night n;
  n.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  n.summary = testing::read_file(dir + "/summary.txt");
  n.check = testing::read_file(dir + "/results/2026-12-01-check.txt");
  return n;
}

bool has(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

// The result word of the check line of `benchmark` in a check report ("" when none).
std::string result_of(const std::string& check, const std::string& benchmark) {
  const auto at = check.find(" " + benchmark + " ");
  if (at == std::string::npos) return "";
  const auto start = check.rfind('\n', at) + 1;
  return check.substr(start, check.find(' ', start) - start);
}

const char* kCopy5 = "memory/stream/op:copy/type:fp64/array_bytes:1073741824/gpu:gpu5";
const char* kCopy4 = "memory/stream/op:copy/type:fp64/array_bytes:1073741824/gpu:gpu4";

TEST(Nightly, HealthyNodesOfAnyGpuCountPass) {
  for (int gpus : {1, 2, 8}) {
    const Night n = play(night(gpus), "--gpus " + std::to_string(gpus));
    EXPECT_EQ(n.exit_code, 0) << gpus << " GPU(s): " << n.summary << n.check;
    EXPECT_TRUE(has(n.check, "0 fail, 0 missing, 0 error -> ok")) << n.check;
  }
}

TEST(Nightly, ASlowGpuAmongEightFails) {
  const Night n = play(night(8, slow_gpu5), "--gpus 8 --retries 0");
  EXPECT_EQ(n.exit_code, 1) << n.summary;
  EXPECT_EQ(result_of(n.check, kCopy5), "fail") << n.check;
  EXPECT_EQ(result_of(n.check, kCopy4), "pass");
}

TEST(Nightly, LinksDownFail) {
  ResultBuilder run = night(8);
  run.gpu(3)["nvlink"]["links_active"] = 12;
  Night n = play(run, "--gpus 8");
  EXPECT_EQ(n.exit_code, 1) << n.summary;
  EXPECT_TRUE(has(n.check, "NVLink 12 of 18 links active")) << n.check;
  for (int i = 0; i < 8; ++i) run.gpu(i)["nvlink"]["links_active"] = 0;  // every link: still exit 1
  n = play(run, "--gpus 8");
  EXPECT_EQ(n.exit_code, 1) << n.summary << n.check;
}

TEST(Nightly, AMissingGpuFails) {
  const Night n = play(night(7), "--gpus 8");
  EXPECT_EQ(n.exit_code, 1) << n.summary;
  EXPECT_TRUE(has(n.check, "the node shows 7 of 8 GPUs")) << n.check;
}

TEST(Nightly, ARetryThatPassesPasses) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/healthy.json", night(8).doc().dump());
  const Night n = play(night(8, slow_gpu5), "--gpus 8", {{"STAND_IN_RETRY", dir + "/healthy.json"}});
  EXPECT_EQ(n.exit_code, 0) << n.summary << n.check;
  EXPECT_TRUE(has(n.check, "after 1 retry (first run: fail at")) << n.check;
}

TEST(Nightly, ARetryThatErrorsKeepsTheFirstReport) {
  const Night n = play(night(8, slow_gpu5), "--gpus 8", {{"STAND_IN_RETRY_ERROR", "worker lost"}});
  EXPECT_EQ(n.exit_code, 1) << n.summary;
  EXPECT_EQ(result_of(n.check, kCopy5), "fail") << n.check;
  EXPECT_TRUE(has(n.check, "check: retry 1: worker lost (the report above stands as it was)")) << n.check;
  EXPECT_TRUE(has(n.summary, "fail")) << n.summary;
}

TEST(Nightly, RunsFromAnotherWorkingDirectory) {
  // As under cron: the baseline's run.config is found beside the baseline, not in the cwd.
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/healthy.json", night(8).doc().dump());
  const Night n = play(night(8, slow_gpu5), "--gpus 8", {{"STAND_IN_RETRY", dir + "/healthy.json"}}, "/");
  EXPECT_EQ(n.exit_code, 0) << n.summary << n.check;
}

TEST(Nightly, WithoutGpusTheSummarySaysTheCountWasNotChecked) {
  const Night n = play(night(2), "");
  EXPECT_EQ(n.exit_code, 0) << n.summary;
  EXPECT_TRUE(has(n.summary, "GPU count not checked")) << n.summary;
  EXPECT_TRUE(has(n.summary, "no previous night")) << n.summary;
}

}  // namespace
}  // namespace gpubench
