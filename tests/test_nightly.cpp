// scripts/nightly.sh end to end, on the CPU: bad nights played through the script with a
// stand-in gpubench (tests/nightly_stand_in.cpp) whose runs are canned nights made from the
// shipped H200 baseline, and whose compare and check are the real commands.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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
  // A benchmark's metrics in one entry (a node figure has its rate and its solo_ratio).
  struct Figure {
    std::string metric;
    double value;
    bool floor;
  };
  std::vector<std::pair<std::string, std::vector<Figure>>> benchmarks;
  for (const Expectation& e : baseline.expectations) {
    if (gpus < e.gpus_needed()) continue;
    const bool floor = e.bound == Bound::kFloor;
    for (const std::string& name : expand_gpu_name(e.name, indices, e.unordered_pairs)) {
      const double value = e.value * (floor ? 1.25 : 0.75) * (scale ? scale(name) : 1.0);
      auto it = std::find_if(benchmarks.begin(), benchmarks.end(), [&](const auto& b) { return b.first == name; });
      if (it == benchmarks.end()) it = benchmarks.insert(benchmarks.end(), {name, {}});
      it->second.push_back({e.metric, value, floor});
    }
  }
  ResultBuilder run(gpus);
  for (const auto& [name, figures] : benchmarks) {
    run.bench(name, figures.front().metric, samples(figures.front().value, 0.5, 10), figures.front().floor);
    for (std::size_t i = 1; i < figures.size(); ++i)
      run.metric_of_last(figures[i].metric, samples(figures[i].value, 0.5, 10), figures[i].floor);
  }
  return run;
}

// GPU 5's HBM 30 % slow: its STREAM figures fall below their floors.
double slow_gpu5(const std::string& name) {
  return name.find("memory/stream/") == 0 && name.find("gpu:gpu5") != std::string::npos ? 0.7 : 1.0;
}

struct Night {
  int exit_code = -1;
  std::string summary, err, check;  // the script's stdout and stderr, and <date>-check.txt
};

// How a night is played: the script's arguments and environment, where it runs from, the night
// before (in the results directory), and whether that directory is mounted read-only.
struct Play {
  std::string args;
  std::map<std::string, std::string> env;
  std::string cwd = kRepo;
  const ResultBuilder* previous = nullptr;
  bool read_only_results = false;
};

// Runs the script with the stand-in as GPUBENCH and `run` as the night's result.
Night play(const ResultBuilder& run, Play p) {
  const std::string dir = testing::temp_dir(), results = dir + "/results";
  testing::write_file(dir + "/night.json", run.doc().dump());
  if (p.previous || p.read_only_results) std::filesystem::create_directories(results);
  if (p.previous) testing::write_file(results + "/2026-11-30.json", p.previous->doc().dump());
  p.env["STAND_IN_RUN"] = dir + "/night.json";
  p.env["GPUBENCH"] = GPUBENCH_STAND_IN;
  std::string command = "cd '" + p.cwd + "' && env";
  for (const auto& [name, value] : p.env) command += " " + name + "='" + value + "'";
  // In a mount namespace of its own, so that the read-only mount is the script's alone.
  if (p.read_only_results)
    command += " unshare -m sh -c 'mount --bind \"$0\" \"$0\" && mount -o remount,ro,bind \"$0\" \"$0\" && "
               "exec \"$@\"' '" + results + "'";
  command += " '" + kRepo + "/scripts/nightly.sh' --results-dir '" + results + "' --date 2026-12-01 " + p.args +
             " >'" + dir + "/summary.txt' 2>'" + dir + "/stderr.txt'";
  const int status = std::system(command.c_str());
  Night n;
  n.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  n.summary = testing::read_file(dir + "/summary.txt");
  n.err = testing::read_file(dir + "/stderr.txt");
  n.check = testing::read_file(results + "/2026-12-01-check.txt");
  return n;
}

Night play(const ResultBuilder& run, const std::string& args, std::map<std::string, std::string> env = {},
           std::string cwd = kRepo) {
  return play(run, Play{args, std::move(env), std::move(cwd)});
}

bool has(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

// The result word of the check line of `benchmark` in a check report ("" when none).
std::string result_of(const std::string& check, const std::string& benchmark) {
  const auto at = check.find(" " + benchmark + " ");
  if (at == std::string::npos) return "";
  const auto start = check.rfind('\n', at) + 1;
  return check.substr(start, check.find(' ', start) - start);
}

const char* kCopy5 = "memory/stream/op:copy/type:fp64/array_bytes:1073741824/mode:node/gpu:gpu5";
const char* kCopy4 = "memory/stream/op:copy/type:fp64/array_bytes:1073741824/mode:node/gpu:gpu4";

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

// Exactly one line on `stream`, the summary, with `exit (code)` and `fragment`.
void expect_summary(const std::string& stream, int code, const std::string& fragment) {
  EXPECT_EQ(std::count(stream.begin(), stream.end(), '\n'), 1) << stream;
  EXPECT_EQ(stream.rfind("nightly ", 0), 0u) << stream;
  EXPECT_TRUE(has(stream, "(exit " + std::to_string(code) + "): ")) << stream;
  EXPECT_TRUE(has(stream, fragment)) << stream;
}

TEST(Nightly, AResultsDirectoryThatCannotBeWrittenIsOneSummaryLineOnStderr) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/file", "");
  Night n = play(night(2), "--results-dir " + dir + "/file/results");  // its parent is a file
  EXPECT_EQ(n.exit_code, 2);
  EXPECT_EQ(n.summary, "");
  expect_summary(n.err, 2, "cannot write in the results directory " + dir + "/file/results: Not a directory");

  if (std::system("unshare -m true 2>/dev/null") != 0) GTEST_SKIP() << "no mount namespace for a read-only mount";
  n = play(night(2), Play{"", {}, kRepo, nullptr, true});
  EXPECT_EQ(n.exit_code, 2) << n.summary << n.err;
  EXPECT_EQ(n.summary, "");
  expect_summary(n.err, 2, "Read-only file system");
}

TEST(Nightly, ARunThatDiesOfASignalFailsTheNightNamingIt) {
  for (const auto& [signal, said] : std::map<std::string, std::string>{{"9", "run died of SIGKILL (exit 137)"},
                                                                       {"11", "run died of SIGSEGV (exit 139)"}}) {
    // What it left passes check: the night fails all the same.
    const Night n = play(night(2), "", {{"STAND_IN_RUN_SIGNAL", signal}});
    EXPECT_EQ(n.exit_code, 1) << n.summary;
    expect_summary(n.summary, 1, said);
    EXPECT_TRUE(has(n.check, "-> ok")) << n.check;
  }
}

TEST(Nightly, AnIncompleteRunFailsTheNight) {
  ResultBuilder unfinished = night(2);
  unfinished.gpubench_context()["complete"] = false;
  Night n = play(unfinished, "");
  EXPECT_EQ(n.exit_code, 1) << n.summary << n.check;
  expect_summary(n.summary, 1, "run incomplete (its JSON says \"complete\": false)");

  ResultBuilder interrupted = unfinished;
  interrupted.gpubench_context()["interrupted"] = "SIGTERM";
  n = play(interrupted, "", {{"STAND_IN_RUN_EXIT", "143"}});
  EXPECT_EQ(n.exit_code, 1) << n.summary;
  expect_summary(n.summary, 1, "run interrupted by SIGTERM (exit 143)");
}

TEST(Nightly, ACompareThatCannotWorkIsASetUpErrorUnlessTheNodeFails) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/plain.json", R"({"default_pct": 5})");
  testing::write_file(dir + "/broken.json", R"({"default_pct": "five"})");
  const ResultBuilder before = night(8);
  Night n = play(night(8), Play{"--gpus 8 --tolerance " + dir + "/plain.json", {}, kRepo, &before});
  EXPECT_EQ(n.exit_code, 0) << n.summary;
  expect_summary(n.summary, 0, "compare vs 2026-11-30: 0 regressed");

  n = play(night(8), Play{"--gpus 8 --tolerance " + dir + "/broken.json", {}, kRepo, &before});
  EXPECT_EQ(n.exit_code, 2) << n.summary;
  expect_summary(n.summary, 2, "compare vs 2026-11-30: ERROR exit 2: gpubench: " + dir + "/broken.json");
  // A node known to fail is reported as failing, whatever else went wrong.
  n = play(night(8, slow_gpu5), Play{"--gpus 8 --retries 0 --tolerance " + dir + "/broken.json", {}, kRepo, &before});
  EXPECT_EQ(n.exit_code, 1) << n.summary;
  expect_summary(n.summary, 1, "ERROR exit 2");
}

TEST(Nightly, TheDateIsACalendarDate) {
  for (const std::string day : {"2026-13-45", "2026-02-30", "2026-1-05", "tomorrow"}) {
    const Night n = play(night(2), "--date " + day);
    EXPECT_EQ(n.exit_code, 2) << day << ": " << n.summary;
    expect_summary(n.summary, 2, "--date '" + day + "' is not a calendar date");
  }
  EXPECT_EQ(play(night(2), "--date 2028-02-29").exit_code, 0);  // a leap day
}

TEST(Nightly, BadUsageIsOneSummaryLine) {
  const Night n = play(night(2), "--frobnicate");
  EXPECT_EQ(n.exit_code, 2);
  expect_summary(n.summary, 2, "unknown argument '--frobnicate'");
}

}  // namespace
}  // namespace gpubench
