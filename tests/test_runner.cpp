// The in-process runner: its own loop over instances and repetitions, stopping when asked and
// at a poisoned context, deaf to Google Benchmark's BENCHMARK_* variables.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "harness/run/runner.h"

namespace gpubench {
namespace {

const Family& runner_family = family("unittest/runner")
                                  .axis_str("case", {"quick", "throws", "skips"})
                                  .cpu_only()
                                  .hidden()
                                  .run([](State& s) {
                                    if (s.get_str("case") == "throws") throw std::runtime_error("boom");
                                    if (s.get_str("case") == "skips") s.skip("not here");
                                    s.measure_host([] { std::this_thread::sleep_for(std::chrono::microseconds(50)); });
                                    s.verify(true, "nothing to check");
                                  });

struct Recorded {
  std::vector<std::pair<std::string, int>> started;
  std::vector<BenchResult> finished;
};

class RecordingSink : public ResultSink {
 public:
  explicit RecordingSink(Recorded& recorded) : recorded_(recorded) {}
  void started(const std::string& name, int repetition) override { recorded_.started.emplace_back(name, repetition); }
  void finished(const BenchResult& result) override { recorded_.finished.push_back(result); }

 private:
  Recorded& recorded_;
};

struct RunnerTest : ::testing::Test {
  RunnerTest() : instances(runner_family.expand({})) {
    for (const auto& instance : instances) pointers.push_back(&instance);
    settings.stop.max_time_s = 0.2;
    settings.warmup_s = 0.001;
  }
  InProcessEnd run(const std::function<bool()>& stop = [] { return false; }) {
    RecordingSink sink(recorded);
    return run_in_process(pointers, settings, context, sink, stop);
  }
  std::vector<Instance> instances;
  std::vector<const Instance*> pointers;
  RunSettings settings;
  Context context;
  Recorded recorded;
};

TEST_F(RunnerTest, EveryInstanceEveryRepetitionInOrder) {
  settings.repetitions = 2;
  EXPECT_EQ(run(), InProcessEnd::kCompleted);
  ASSERT_EQ(recorded.finished.size(), 6u);
  ASSERT_EQ(recorded.started.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(recorded.started[i].first, instances[i / 2].name);
    EXPECT_EQ(recorded.started[i].second, static_cast<int>(i % 2));
    EXPECT_EQ(recorded.finished[i].name, instances[i / 2].name);
    EXPECT_EQ(recorded.finished[i].repetition_index, static_cast<int>(i % 2));
    EXPECT_EQ(recorded.finished[i].repetitions, 2);
  }
  EXPECT_EQ(recorded.finished[0].status, Status::kOk);
  EXPECT_TRUE(recorded.finished[0].verified);
  EXPECT_EQ(recorded.finished[2].status, Status::kFailed);
  EXPECT_EQ(recorded.finished[2].error, "boom");
  EXPECT_EQ(recorded.finished[4].status, Status::kSkipped);
  EXPECT_EQ(recorded.finished[5].repetition_index, 1);
}

TEST_F(RunnerTest, StopsWhenAskedBetweenBenchmarks) {
  int asked = 0;
  EXPECT_EQ(run([&] { return ++asked > 2; }), InProcessEnd::kStopped);
  EXPECT_EQ(recorded.finished.size(), 2u);
  EXPECT_EQ(recorded.started.size(), 2u);
}

TEST_F(RunnerTest, GoogleBenchmarkVariablesChangeNothing) {
  const std::vector<std::pair<const char*, const char*>> variables = {
      {"BENCHMARK_FILTER", "zzz"}, {"BENCHMARK_REPETITIONS", "3"}, {"BENCHMARK_MIN_TIME", "3"},
      {"BENCHMARK_LIST_TESTS", "true"}};
  for (const auto& [name, value] : variables) setenv(name, value, 1);
  EXPECT_EQ(run(), InProcessEnd::kCompleted);
  for (const auto& [name, value] : variables) unsetenv(name);
  ASSERT_EQ(recorded.finished.size(), 3u);
  EXPECT_EQ(recorded.finished[0].status, Status::kOk);
  EXPECT_EQ(recorded.finished[0].repetitions, 1);
}

const Family& slow_family = family("unittest/runner_slow")
                                .axis_str("case", {"long"})
                                .settings({300.0, 30.0, 3})
                                .cpu_only()
                                .hidden()
                                .run([](State&) {});

TEST(SettingsFor, TheFamilysOwnSettingsOverrideTheRuns) {
  RunSettings run;
  run.timeout_s = 120;
  run.stop.max_time_s = 5;
  run.stop.min_samples = 10;
  run.repetitions = 2;
  const RunSettings slow = settings_for(slow_family.expand({}).front(), run);
  EXPECT_EQ(slow.timeout_s, 300);
  EXPECT_EQ(slow.stop.max_time_s, 30);
  EXPECT_EQ(slow.stop.min_samples, 3);
  EXPECT_EQ(slow.repetitions, 2);
  const RunSettings plain = settings_for(runner_family.expand({}).front(), run);
  EXPECT_EQ(plain.timeout_s, 120);
  EXPECT_EQ(plain.stop.max_time_s, 5);
  EXPECT_EQ(plain.stop.min_samples, 10);
  run.quick = true;  // --quick's limit stays where the family would sample longer
  run.stop.max_time_s = 0.5;
  EXPECT_EQ(settings_for(slow_family.expand({}).front(), run).stop.max_time_s, 0.5);
}

const Family& power_family = family("unittest/runner_power")
                                 .axis_str("case", {"gemm"})
                                 .settings(power_limited({}))
                                 .cpu_only()
                                 .hidden()
                                 .run([](State&) {});

TEST(SettingsFor, APowerLimitedFamilySettlesAndSamplesLongerExceptInAQuickRun) {
  RunSettings run;
  const RunSettings full = settings_for(power_family.expand({}).front(), run);
  EXPECT_GT(full.settle_s, 0);
  EXPECT_GT(full.stop.min_time_s, 0);
  EXPECT_GT(full.rest_s, 0);
  run.stop.min_time_s = 10;  // --min-time above the family's stays
  EXPECT_EQ(settings_for(power_family.expand({}).front(), run).stop.min_time_s, 10);
  run.stop.min_time_s = 0;
  run.quick = true;
  const RunSettings quick = settings_for(power_family.expand({}).front(), run);
  EXPECT_EQ(quick.settle_s, 0);
  EXPECT_EQ(quick.stop.min_time_s, 0);
  EXPECT_EQ(quick.rest_s, 0);
}

FamilySettings long_batches() {
  FamilySettings settings;
  settings.batch_below_s = 1e-3;
  settings.batch_target_s = 2e-3;
  return settings;
}

const Family& batching_family = family("unittest/runner_batching")
                                    .axis_str("case", {"gemm"})
                                    .settings(long_batches())
                                    .cpu_only()
                                    .hidden()
                                    .run([](State&) {});

TEST(SettingsFor, AFamilysBatchingReplacesTheRunsInEveryRun) {
  RunSettings run;
  EXPECT_EQ(settings_for(runner_family.expand({}).front(), run).batch_below_s, run.batch_below_s);
  for (bool quick : {false, true}) {
    run.quick = quick;
    const RunSettings own = settings_for(batching_family.expand({}).front(), run);
    EXPECT_EQ(own.batch_below_s, 1e-3);
    EXPECT_EQ(own.batch_target_s, 2e-3);
  }
}

TEST(UnrunResult, CarriesTheInstanceAndTheReason) {
  const Instance instance = runner_family.expand({}).front();
  const BenchResult r = unrun_result(instance, Status::kInterrupted, "interrupted by SIGINT", 1, 3);
  EXPECT_EQ(r.name, "unittest/runner/case:quick");
  EXPECT_EQ(r.suite, "unittest");
  EXPECT_EQ(r.family, "unittest/runner");
  EXPECT_EQ(r.params, (nlohmann::json{{"case", "quick"}}));
  EXPECT_EQ(r.status, Status::kInterrupted);
  EXPECT_EQ(r.error, "interrupted by SIGINT");
  EXPECT_EQ(r.repetition_index, 1);
  EXPECT_EQ(r.repetitions, 3);
  EXPECT_TRUE(r.metrics.empty());
}

}  // namespace
}  // namespace gpubench
