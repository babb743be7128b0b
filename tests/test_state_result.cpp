// How a result is made: State::finish() derives metrics and enforces verification (a result
// that did not verify carries no figure), and the runner's unrun results carry the reason and
// no figures. No GPU: State is driven through measure_manual(), whose samples the test chooses.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/core/cuda_check.h"
#include "harness/core/state.h"
#include "harness/model/result.h"
#include "harness/run/runner.h"

namespace gpubench {
namespace {

const Family& state_family = family("unittest/result_state")
                                 .axis_str("op", {"triad"})
                                 .axis_int("n", {4})
                                 .cpu_only()
                                 .hidden()
                                 .run([](State&) {});

TEST(UnrunResult, CarriesTheReasonAndNoFigures) {
  const Instance instance = state_family.expand(ExpandOptions{}).at(0);
  const BenchResult r = unrun_result(instance, Status::kTimeout, "no result within 2 s", 2, 3);
  EXPECT_EQ(r.name, "unittest/result_state/op:triad/n:4");
  EXPECT_EQ(r.family, "unittest/result_state");
  EXPECT_EQ(r.suite, "unittest");
  EXPECT_EQ(r.params, (nlohmann::json{{"op", "triad"}, {"n", 4}}));
  EXPECT_EQ(r.status, Status::kTimeout);
  EXPECT_EQ(r.error, "no result within 2 s");
  EXPECT_EQ(r.repetition_index, 2);
  EXPECT_EQ(r.repetitions, 3);
  EXPECT_TRUE(r.metrics.empty());
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(to_json(r).at("gpubench").at("status"), "timeout");
}

class StateTest : public ::testing::Test {
 protected:
  StateTest() : instance_(state_family.expand(ExpandOptions{}).at(0)) {
    settings_.warmup_s = 0;  // two warm-up calls, no more
  }
  // A sample that always takes 1 ms for `ops` operations: 10 samples, noise 0.
  static double one_ms() { return 1e-3; }

  Instance instance_;
  RunSettings settings_;
  Context context_;
};

TEST_F(StateTest, DerivesTimeBandwidthAndTflopsPerOperation) {
  State s(instance_, settings_, context_);
  EXPECT_EQ(s.get_str("op"), "triad");
  EXPECT_EQ(s.get_int("n"), 4);
  s.count_bytes(1e6);   // per operation
  s.count_flops(5e8);
  s.measure_manual(one_ms, 4);  // 4 ops per 1 ms sample: 250 us per op
  s.verify(true, "fine");
  const BenchResult r = s.finish();
  EXPECT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.name, "unittest/result_state/op:triad/n:4");
  EXPECT_EQ(r.primary_metric, "bandwidth_gbps");
  EXPECT_EQ(r.ops_per_sample, 4);
  ASSERT_EQ(r.metrics.at("time_us").values.size(), 10u);  // min_samples, then quiet enough
  EXPECT_EQ(r.iterations, 40);
  EXPECT_NEAR(r.metrics.at("time_us").summary().median, 250, 1e-9);
  EXPECT_EQ(r.metrics.at("time_us").unit, "us");
  EXPECT_FALSE(r.metrics.at("time_us").higher_is_better);
  EXPECT_NEAR(r.metrics.at("bandwidth_gbps").summary().median, 4.0, 1e-9);  // 1e6 B / 250 us
  EXPECT_TRUE(r.metrics.at("bandwidth_gbps").higher_is_better);
  EXPECT_EQ(r.metrics.at("bandwidth_gbps").unit, "GB/s");
  EXPECT_NEAR(r.metrics.at("tflops").summary().median, 2.0, 1e-9);  // 5e8 flop / 250 us
  EXPECT_EQ(r.notes.at("stopped_by"), "noise_target");
  EXPECT_EQ(r.notes.at("bytes_per_op"), 1e6);
  EXPECT_EQ(r.notes.at("flops_per_op"), 5e8);
  const nlohmann::json entry = to_json(r);
  EXPECT_NEAR(entry.at("real_time").get<double>(), 250e3, 1e-6);  // ns
  EXPECT_NEAR(entry.at("bandwidth_gbps").get<double>(), 4.0, 1e-9);
}

TEST_F(StateTest, PrimaryMetricChoice) {
  {
    State s(instance_, settings_, context_);
    s.count_flops(1e9);
    s.measure_manual(one_ms);
    s.verify(true, "");
    EXPECT_EQ(s.finish().primary_metric, "tflops");
  }
  {
    State s(instance_, settings_, context_);
    s.report_time_as("latency_ns", "ns", 1e9);
    s.measure_manual(one_ms, 1000);
    s.verify(true, "");
    const BenchResult r = s.finish();
    EXPECT_EQ(r.primary_metric, "latency_ns");
    EXPECT_NEAR(r.metrics.at("latency_ns").summary().median, 1000, 1e-6);  // 1 ms / 1000 ops
    EXPECT_FALSE(r.metrics.at("latency_ns").higher_is_better);
  }
  {
    State s(instance_, settings_, context_);
    s.measure_manual(one_ms);
    s.verify(true, "");
    EXPECT_EQ(s.finish().primary_metric, "time_us");
  }
  {
    State s(instance_, settings_, context_);
    s.count_bytes(1e6);
    s.count_flops(1e9);
    s.set_primary_metric("tflops");
    s.measure_manual(one_ms);
    s.verify(true, "");
    EXPECT_EQ(s.finish().primary_metric, "tflops");
  }
}

TEST_F(StateTest, PeakGivesPctOfPeak) {
  State s(instance_, settings_, context_);
  s.count_bytes(1e6);
  s.set_peak(8.0, "test peak");
  s.measure_manual(one_ms, 4);
  s.verify(true, "");
  const BenchResult r = s.finish();
  ASSERT_TRUE(r.pct_of_peak().has_value());
  EXPECT_NEAR(*r.pct_of_peak(), 50.0, 1e-9);
  EXPECT_EQ(r.peak_source, "test peak");
}

TEST_F(StateTest, UnknownPeakLeavesPctOfPeakNull) {
  State s(instance_, settings_, context_);
  s.count_bytes(1e6);
  s.set_peak(0, "unknown");
  s.measure_manual(one_ms);
  s.verify(true, "");
  const BenchResult r = s.finish();
  EXPECT_FALSE(r.pct_of_peak().has_value());
  EXPECT_TRUE(to_json(r).at("gpubench").at("pct_of_peak").is_null());
}

TEST_F(StateTest, FailedVerificationIsFailedWithNoFigure) {
  State s(instance_, settings_, context_);
  s.count_bytes(1e6);
  s.measure_manual(one_ms);
  s.verify(true, "first check");
  s.verify(false, "element 3 is 2, expected 1");
  s.verify(false, "sum is off");
  const BenchResult r = s.finish();
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.error, "verification failed: element 3 is 2, expected 1; sum is off");
  EXPECT_TRUE(r.metrics.empty());
  const nlohmann::json entry = to_json(r);
  EXPECT_FALSE(entry.contains("bandwidth_gbps"));
  EXPECT_TRUE(entry.at("gpubench").at("metrics").empty());
  EXPECT_EQ(entry.at("gpubench").at("verified"), false);
}

TEST_F(StateTest, NotVerifyingIsAFailure) {
  State s(instance_, settings_, context_);
  s.count_bytes(1e6);
  s.measure_manual(one_ms);
  const BenchResult r = s.finish();
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_NE(r.error.find("did not verify"), std::string::npos) << r.error;
  EXPECT_TRUE(r.metrics.empty());
}

TEST_F(StateTest, NoMeasuredRegionIsAFailure) {
  State s(instance_, settings_, context_);
  s.verify(true, "");
  const BenchResult r = s.finish();
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_NE(r.error.find("no measured region"), std::string::npos) << r.error;
  EXPECT_TRUE(r.metrics.empty());
}

TEST_F(StateTest, OnlyOneMeasuredRegion) {
  State s(instance_, settings_, context_);
  s.measure_manual(one_ms);
  EXPECT_THROW(s.measure_manual(one_ms), std::logic_error);
}

TEST_F(StateTest, RecordedMetricsKeepMeasuredSamplesOnly) {
  State s(instance_, settings_, context_);
  s.declare_metric("occupancy_pct", "%", true);
  EXPECT_THROW(s.record("undeclared", 1), std::logic_error);
  s.record("occupancy_pct", -1);  // outside the measured region: dropped
  int calls = 0;
  s.measure_manual([&] {
    s.record("occupancy_pct", 50 + calls++);
    return 1e-3;
  });
  s.verify(true, "");
  const BenchResult r = s.finish();
  EXPECT_EQ(calls, 12);  // 2 warm-up calls + 10 samples
  const auto& values = r.metrics.at("occupancy_pct").values;
  ASSERT_EQ(values.size(), 10u);
  EXPECT_EQ(values.front(), 52);  // the warm-up values 50 and 51 are dropped
  EXPECT_EQ(r.metrics.at("occupancy_pct").unit, "%");
}

TEST_F(StateTest, SkipAndFailThrowWhatTheRunnerCatches) {
  State s(instance_, settings_, context_);
  try {
    s.skip("needs 2 GPUs");
    FAIL() << "skip() returned";
  } catch (const SkipSignal& skip) {
    EXPECT_EQ(skip.reason, "needs 2 GPUs");
  }
  EXPECT_THROW(s.fail("broken"), std::runtime_error);
}

TEST_F(StateTest, NotesAreRecorded) {
  State s(instance_, settings_, context_);
  s.note("l2_flush", true);
  s.measure_manual(one_ms);
  s.verify(true, "");
  const BenchResult r = s.finish();
  EXPECT_EQ(r.notes.at("l2_flush"), true);
  EXPECT_EQ(to_json(r).at("gpubench").at("notes").at("l2_flush"), true);
}

}  // namespace
}  // namespace gpubench
