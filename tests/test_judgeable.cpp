// The gate every verdict puts its runs through (harness/analysis/judgeable.h): what makes a run,
// or one benchmark of it, impossible to judge, and that check, compare, fleet, baseline and the
// report's verdicts fail on it and say why instead of passing (issue 28, cases 1-3, 6 and 9).
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/analysis/check.h"
#include "harness/analysis/fleet.h"
#include "harness/analysis/judgeable.h"
#include "harness/report/report_verdicts.h"
#include "tests/check_support.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using namespace testing::check;
using testing::ResultBuilder;
using testing::samples;

ResultFile judged(const ResultBuilder& b, const std::string& label = "run.json") {
  ResultFile run = b.parse(label);
  judge_run(run);
  return run;
}

std::vector<std::string> reasons_of(const ResultFile& run) { return unjudgeable_lines({&run}); }

nlohmann::json& metric_of(ResultBuilder& b, std::size_t entry, const std::string& metric) {
  return b.benchmarks()[entry]["gpubench"]["metrics"][metric];
}

CheckOptions with_retries(int retries) {
  CheckOptions options;
  options.retries = retries;
  return options;
}

TEST(Judgeable, AHealthyRunCanBeJudged) {
  ResultBuilder b = healthy_run();
  b.bench("launch/graph/nodes:10", "host_reduction_pct", {-3.5, 0, 2});  // a percentage may be <= 0
  const ResultFile run = judged(b);
  EXPECT_TRUE(run.unjudgeable.empty()) << reasons_of(run).front();
  for (const BenchmarkResult& bench : run.benchmarks) EXPECT_TRUE(bench.ok()) << bench.name << ": " << bench.error;
}

TEST(Judgeable, AnUnfinishedOrInterruptedRunCannotBeJudged) {
  ResultBuilder b = healthy_run();
  b.gpubench_context()["complete"] = false;
  b.gpubench_context()["interrupted"] = "SIGTERM";
  const ResultFile run = judged(b);
  ASSERT_EQ(reasons_of(run).size(), 2u);
  EXPECT_EQ(reasons_of(run)[0],
            "run.json: cannot be judged: /context/gpubench/complete is false: the run did not finish (stopped, "
            "killed, or still running)");
  EXPECT_EQ(reasons_of(run)[1],
            "run.json: cannot be judged: /context/gpubench/interrupted is \"SIGTERM\": a signal stopped the run");
  EXPECT_TRUE(run.find(kTriad)->ok());  // the run as a whole, not its figures
  // Files from before "complete" was written are of finished runs.
  ResultBuilder old = healthy_run();
  old.gpubench_context().erase("complete");
  EXPECT_TRUE(judged(old).unjudgeable.empty());
}

TEST(Judgeable, AGpuListedTwiceMakesTheRunUnusable) {
  ResultBuilder twice(2);
  twice.gpu(1)["index"] = 0;
  twice.bench(kTriad, "bandwidth_gbps", samples(4400, 0.5, 10));
  EXPECT_EQ(reasons_of(judged(twice)),
            std::vector<std::string>{"run.json: cannot be judged: /context/gpubench/gpus/1: gpu0 is listed twice "
                                     "(also /context/gpubench/gpus/0)"});
  ResultBuilder same_uuid(2);
  same_uuid.gpu(1)["uuid"] = same_uuid.gpu(0)["uuid"];
  same_uuid.bench(kTriad, "bandwidth_gbps", samples(4400, 0.5, 10));
  EXPECT_EQ(reasons_of(judged(same_uuid)),
            std::vector<std::string>{"run.json: cannot be judged: /context/gpubench/gpus/1: uuid GPU-1000 is listed "
                                     "twice (also /context/gpubench/gpus/0)"});
}

TEST(Judgeable, ANullOrNonFiniteSampleFailsItsBenchmark) {
  ResultBuilder b = healthy_run();
  metric_of(b, 0, "bandwidth_gbps")["values"][3] = nullptr;
  const ResultFile run = judged(b, "nightly.json");
  const BenchmarkResult& triad = *run.find(kTriad);
  EXPECT_EQ(triad.status, Status::kFailed);
  EXPECT_EQ(triad.error, "metric bandwidth_gbps: 1 of 10 samples is null or not finite");
  EXPECT_EQ(reasons_of(run), std::vector<std::string>{"nightly.json: " + std::string(kTriad) +
                                                      ": cannot be judged: metric bandwidth_gbps: 1 of 10 "
                                                      "samples is null or not finite"});
  EXPECT_TRUE(run.find(kCopy)->ok());
  // Judged again, it keeps its judgement (the failed benchmark's reason is not lost).
  ResultFile again = run;
  EXPECT_EQ(judge_run(again).size(), 1u);
  EXPECT_EQ(again.find(kTriad)->error, triad.error);
}

TEST(Judgeable, NullMediansAndFiguresFailTheirBenchmark) {
  ResultBuilder b = healthy_run();
  metric_of(b, 0, "bandwidth_gbps")["median"] = nullptr;  // beside finite samples
  b.last()["latency_us"] = nullptr;                       // Google Benchmark's flat copy
  metric_of(b, 1, "bandwidth_gbps").erase("values");      // the stated median is the figure
  metric_of(b, 1, "bandwidth_gbps")["median"] = nullptr;
  const ResultFile run = judged(b);
  EXPECT_EQ(run.find(kTriad)->error,
            "figures written as null (numbers that were not finite): /benchmarks/0/gpubench/metrics/bandwidth_gbps/median");
  EXPECT_EQ(run.find(kCopy)->error, "metric bandwidth_gbps: the median is null or not finite");
  EXPECT_EQ(run.find(kLaunch)->error, "figures written as null (numbers that were not finite): /benchmarks/2/latency_us");
  EXPECT_EQ(run.unjudgeable.size(), 3u);
}

TEST(Judgeable, ZeroOrNegativeTimesAndRatesFailTheirBenchmark) {
  ResultBuilder b = healthy_run();
  metric_of(b, 2, "latency_us")["values"][0] = 0;
  metric_of(b, 2, "latency_us")["values"][4] = -1.5;
  b.bench("memory/stream/op:scale", "bandwidth_gbps", {});
  b.last()["gpubench"]["metrics"]["bandwidth_gbps"].erase("values");
  b.last()["gpubench"]["metrics"]["bandwidth_gbps"]["median"] = 0;
  const ResultFile run = judged(b);
  EXPECT_EQ(run.find(kLaunch)->error,
            "metric latency_us: 2 of 10 samples are zero or negative (a time or a rate is positive)");
  EXPECT_EQ(run.find("memory/stream/op:scale")->error,
            "metric bandwidth_gbps: the median is 0 (a time or a rate is positive)");
  EXPECT_TRUE(run.find(kTriad)->ok());
}

// launch/event's wait_latency_us on an H100 in node mode (results/h100/2026-12-05-launch-host-node-2.json):
// a two-stream chain's hop time minus a one-stream chain's, 0.015 us median, two samples at or below 0.
TEST(Judgeable, ADifferenceMayBeZeroOrNegativeAndOnlyWhereTheFileSaysSo) {
  ResultBuilder b = healthy_run();
  b.bench("launch/event/op:cross_stream_wait", "wait_latency_us", {0.015, -0.0145, 0.0, 0.024, 0.003}, false);
  b.last()["gpubench"]["metrics"]["wait_latency_us"]["difference"] = true;
  b.bench("launch/event/op:cross_stream_wait/mode:node", "wait_latency_us", {0.015, -0.0145, 0.024}, false);
  const ResultFile run = judged(b);
  EXPECT_TRUE(run.find("launch/event/op:cross_stream_wait")->ok());
  EXPECT_TRUE(run.find("launch/event/op:cross_stream_wait")->metrics.at("wait_latency_us").difference);
  EXPECT_EQ(run.find("launch/event/op:cross_stream_wait/mode:node")->error,
            "metric wait_latency_us: 1 of 3 samples is zero or negative (a time or a rate is positive)");
  // The marker on a rate is damage, whatever its samples (tests/corpus/gate_difference_on_a_rate).
  ResultBuilder marked = healthy_run();
  metric_of(marked, 0, "bandwidth_gbps")["difference"] = true;
  metric_of(marked, 0, "bandwidth_gbps")["unit"] = "GB/s";
  EXPECT_EQ(judged(marked).find(kTriad)->error,
            "metric bandwidth_gbps: marked a difference, which a rate or an operation's time never is");
}

TEST(Judgeable, ImpossibleFiguresFailTheirBenchmark) {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(3640, 1, 10));  // 58 x a 64 GB/s PCIe link
  b.last()["gpubench"]["peak"] = 63.0;
  b.bench("transfer/peer/src:gpu0/dst:gpu1", "bandwidth_gbps", samples(7530, 1, 10));
  b.last()["gpubench"]["pct_of_peak"] = 1673.0;  // recorded as % of peak only
  b.bench("memory/stream/op:copy", "bandwidth_gbps", samples(4400, 1, 10));
  b.last()["gpubench"]["peak"] = 4800.0;  // 92 %: fine
  b.bench("launch/empty", "latency_us", samples(2, 1, 10), false);
  b.last()["gpubench"]["peak"] = 1.0;  // a time has no such ceiling
  const std::string winograd = "conv/forward/layer:res3_3x3_128/type:fp32";
  b.bench(winograd, "tflops", samples(80, 1, 10));  // 133 % of a 60 TFLOP/s peak, under 9 x it
  b.last()["gpubench"]["peak"] = 60.0;
  b.last()["gpubench"]["plausibility_factor"] = 9.0;
  const ResultFile r = judged(b);
  EXPECT_EQ(r.find(kTriad)->status, Status::kFailed);
  EXPECT_EQ(r.find(kTriad)->error, "exceeds the physical peak (5778 % of 63): the measurement is wrong");
  EXPECT_EQ(r.find("transfer/peer/src:gpu0/dst:gpu1")->status, Status::kFailed);
  EXPECT_TRUE(r.find("memory/stream/op:copy")->ok());
  EXPECT_TRUE(r.find("launch/empty")->ok());
  EXPECT_TRUE(r.find(winograd)->ok());
  EXPECT_EQ(r.unjudgeable.size(), 2u);
}

TEST(Judgeable, ADuplicatedEntryIsDamageButRepetitionsAreNot) {
  ResultBuilder b;
  for (int rep = 0; rep < 3; ++rep) b.bench(kTriad, "bandwidth_gbps", samples(4400, 0.5, 10), true, rep, 3);
  EXPECT_TRUE(judged(b).unjudgeable.empty());
  const nlohmann::json copy = b.last();
  b.benchmarks().push_back(copy);
  const ResultFile run = judged(b);
  EXPECT_EQ(run.find(kTriad)->error, "repetition_index 2 appears 2 times: a duplicated entry, not a repetition");
  EXPECT_EQ(run.unjudgeable.size(), 1u);
}

TEST(Judgeable, ABenchmarkOnAGpuTheContextDoesNotListFails) {
  ResultBuilder b(2);
  b.bench("memory/stream/op:triad/gpu:gpu1", "bandwidth_gbps", samples(4400, 0.5, 10));
  b.bench("transfer/peer/src:gpu0/dst:gpu3", "bandwidth_gbps", samples(700, 0.5, 10));
  b.bench("transfer/peer/src:gpu0/dst:gpu5", "bandwidth_gbps", {}).status_of_last("skipped", "needs 6 GPUs");
  const ResultFile run = judged(b);
  EXPECT_TRUE(run.find("memory/stream/op:triad/gpu:gpu1")->ok());
  EXPECT_EQ(run.find("transfer/peer/src:gpu0/dst:gpu3")->error, "names gpu3, which the run's context does not list");
  EXPECT_EQ(run.find("transfer/peer/src:gpu0/dst:gpu5")->status, Status::kSkipped);
  EXPECT_EQ(run.unjudgeable.size(), 1u);
}

TEST(Judgeable, AnOkEntryWithoutAFigureFails) {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(4400, 0.5, 10));
  b.last()["gpubench"]["metrics"] = nlohmann::json::object();
  b.last()["gpubench"].erase("primary_metric");
  EXPECT_EQ(judged(b).find(kTriad)->error, "status ok but no figure");
}

ResultBuilder with_null_sample() {
  ResultBuilder b = healthy_run();
  metric_of(b, 0, "bandwidth_gbps")["values"][3] = nullptr;
  return b;
}

TEST(JudgeableVerdicts, CompareFailsOnEitherRunAndSaysWhy) {
  ResultBuilder slower = healthy_run();
  metric_of(slower, 0, "bandwidth_gbps")["values"] = samples(3000, 0.5, 10);
  for (const auto& [base, now] : {std::pair{judged(with_null_sample(), "base.json"), judged(slower, "new.json")},
                                  std::pair{judged(slower, "base.json"), judged(with_null_sample(), "new.json")}}) {
    const Comparison c = compare_runs(base, now, {});
    EXPECT_TRUE(c.failed());
    ASSERT_EQ(c.unjudgeable.size(), 1u);
    EXPECT_NE(c.unjudgeable[0].find(": " + std::string(kTriad) + ": cannot be judged: metric bandwidth_gbps"),
              std::string::npos);
    const std::string table = render_comparison(c, "table");
    EXPECT_NE(table.find("Cannot be judged (the verdict is FAIL):\n  " + c.unjudgeable[0]), std::string::npos) << table;
    EXPECT_NE(table.find("-> FAIL (cannot be judged: 1 reason)"), std::string::npos) << table;
    EXPECT_EQ(nlohmann::json::parse(render_comparison(c, "json"))["unjudgeable"][0], c.unjudgeable[0]);
    EXPECT_TRUE(verdict_table(c).failed);
    EXPECT_EQ(verdict_table(c).unjudgeable, c.unjudgeable);
  }
  // A run killed before its first result has nothing in common with BASE and still fails, not exit 2.
  ResultBuilder killed;
  killed.gpubench_context()["complete"] = false;
  const Comparison c = compare_runs(judged(healthy_run()), judged(killed), {});
  EXPECT_TRUE(c.failed());
}

TEST(JudgeableVerdicts, CheckFailsAnUnfinishedRunAndSaysWhy) {
  ResultBuilder b = healthy_run();
  b.gpubench_context()["complete"] = false;
  const CheckReport r = check_run(baseline_of(any_entry()), judged(b));
  EXPECT_EQ(r.count(LineResult::kFail) + r.count(LineResult::kError), 0);
  EXPECT_TRUE(r.failed());
  EXPECT_NE(render_check(r, "md").find("#### Cannot be judged (the verdict is FAIL)\n\n- run.json: cannot be judged"),
            std::string::npos);
  EXPECT_NE(render_check(r, "table").find("-> FAIL (cannot be judged: 1 reason)"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(render_check(r, "json"))["unjudgeable"].size(), 1u);
  EXPECT_TRUE(verdict_table(r).failed);
}

TEST(JudgeableVerdicts, ARetryReplacesTheReasonsOfWhatItReran) {
  const Baseline b = baseline_of(any_entry());
  const CheckReport first = check_run(b, judged(with_null_sample()));
  EXPECT_TRUE(first.failed());
  EXPECT_EQ(failing_benchmarks(first), std::vector<std::string>{kTriad});
  auto healthy_rerun = [](const std::vector<std::string>&) { return healthy_run().parse("(retry run)"); };
  const CheckReport healed = check_with_retries(b, judged(with_null_sample()), with_retries(1), healthy_rerun);
  EXPECT_FALSE(healed.failed()) << render_check(healed, "table");
  // The re-run faces the gate too: a null sample again stays a failure, named by the re-run.
  auto broken_rerun = [](const std::vector<std::string>&) { return with_null_sample().parse("(retry run)"); };
  const CheckReport still = check_with_retries(b, judged(with_null_sample()), with_retries(1), broken_rerun);
  EXPECT_TRUE(still.failed());
  ASSERT_EQ(still.unjudgeable.size(), 1u);
  EXPECT_EQ(still.unjudgeable[0].rfind("(retry run): ", 0), 0u) << still.unjudgeable[0];
}

TEST(JudgeableVerdicts, FleetFailsAndSaysWhy) {
  std::vector<ResultFile> runs = {judged(healthy_run(), "a.json"), judged(healthy_run(), "b.json"),
                                  judged(with_null_sample(), "c.json")};
  const FleetReport r = compare_fleet(runs, {});
  EXPECT_TRUE(r.failed());
  ASSERT_EQ(r.unjudgeable.size(), 1u);
  EXPECT_EQ(r.unjudgeable[0].rfind("c.json: ", 0), 0u);
  EXPECT_NE(render_fleet(r, "table").find("Cannot be judged"), std::string::npos);
}

TEST(JudgeableVerdicts, ARunReportedAloneFailsWhenItCannotBeJudged) {
  EXPECT_FALSE(unjudgeable_table(judged(healthy_run())));
  const auto table = unjudgeable_table(judged(with_null_sample()));
  ASSERT_TRUE(table);
  EXPECT_TRUE(table->failed);
  EXPECT_EQ(table->unjudgeable.size(), 1u);
}

TEST(JudgeableVerdicts, BaselineIsNeverMadeFromARunThatCannotBeJudged) {
  try {
    make_baseline({judged(with_null_sample())}, 5, "");
    ADD_FAILURE() << "a baseline was made";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, kExitFailure);
    EXPECT_NE(e.message.find("cannot be judged: metric bandwidth_gbps"), std::string::npos) << e.message;
  }
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/run.json", with_null_sample().doc().dump());
  EXPECT_EQ(run_cli({"baseline", dir + "/run.json", "--tolerance", "5", "--out", dir + "/b.json"}), kExitFailure);
  EXPECT_FALSE(std::filesystem::exists(dir + "/b.json"));
}

}  // namespace
}  // namespace gpubench
