// State at measurement, without a GPU: plausibility (a figure above 1.05 x its peak fails with
// the shared message and reports no figure), the order rules of the per-sample hooks, and the
// settle of a power-limited family, the samples' share of the wall time, and measure_batched on
// fake work: the batch the harness chose, its warm-up and samples at that batch, and the record.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "harness/core/state.h"

namespace gpubench {
namespace {

void no_op(State&) {}

const Family& plausibility_family =
    family("unittest/plausibility").axis_str("op", {"copy"}).hidden().cpu_only().run(no_op);

class StatePlausibility : public ::testing::Test {
 protected:
  StatePlausibility() : instance_(plausibility_family.expand(ExpandOptions{}).at(0)) { settings_.warmup_s = 0; }

  // 4 operations of 1e6 bytes per 1 ms sample: 4 GB/s.
  BenchResult four_gbps_against(double peak) {
    State s(instance_, settings_, context_);
    s.count_bytes(1e6);
    s.set_peak(peak, "test link");
    s.measure_manual([] { return 1e-3; }, 4);
    s.verify(true, "copied");
    return s.finish();
  }

  Instance instance_;
  RunSettings settings_;
  Context context_;
};

TEST_F(StatePlausibility, AFigureAbovePeakFailsAndReportsNoFigure) {
  const BenchResult r = four_gbps_against(3.0);
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_NE(r.error.find("exceeds the physical peak (133 % of 3)"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("the measurement is wrong"), std::string::npos);
  EXPECT_NE(r.error.find("bandwidth_gbps"), std::string::npos);
  EXPECT_TRUE(r.metrics.empty());
}

TEST_F(StatePlausibility, WithinFivePercentOfPeakIsOk) {
  EXPECT_EQ(four_gbps_against(3.9).status, Status::kOk);  // 103 %
  EXPECT_EQ(four_gbps_against(0).status, Status::kOk);    // no known peak: nothing to check against
}

TEST_F(StatePlausibility, ABoundAboveThePeakAdmitsCountedWorkTheHardwareDidNotDo) {
  State s(instance_, settings_, context_);
  s.count_bytes(1e6);
  s.set_peak(2.0, "test link");
  s.bound_by_peak_times(3.0, "a fast algorithm moves fewer bytes than counted");
  s.measure_manual([] { return 1e-3; }, 4);  // 4 GB/s: 200 % of the peak, under 3 x 2
  s.verify(true, "copied");
  const BenchResult r = s.finish();
  EXPECT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_DOUBLE_EQ(*r.peak, 2.0);  // % of peak stays against the peak itself
  EXPECT_EQ(r.notes.at("plausibility_bound"), "a fast algorithm moves fewer bytes than counted");

  State beyond(instance_, settings_, context_);
  beyond.count_bytes(1e6);
  beyond.set_peak(1.0, "test link");
  beyond.bound_by_peak_times(3.0, "fewer bytes");
  beyond.measure_manual([] { return 1e-3; }, 4);  // 4 GB/s: above 3 x 1
  beyond.verify(true, "copied");
  EXPECT_EQ(beyond.finish().status, Status::kFailed);
  State s2(instance_, settings_, context_);
  EXPECT_THROW(s2.bound_by_peak_times(0.5, "below one"), std::logic_error);
}

TEST_F(StatePlausibility, ATimeMetricHasNoCeiling) {
  State s(instance_, settings_, context_);
  s.report_time_as("latency_us", "us", 1e6);
  s.set_peak(1e-3, "test");  // a peak in a lower-is-better unit is no ceiling
  s.measure_manual([] { return 1e-3; });
  s.verify(true, "ran");
  EXPECT_EQ(s.finish().status, Status::kOk);
}

TEST_F(StatePlausibility, AFailedVerificationKeepsItsOwnError) {
  State s(instance_, settings_, context_);
  s.count_bytes(1e6);
  s.set_peak(1.0, "test");
  s.measure_manual([] { return 1e-3; }, 4);
  s.verify(false, "bad data");
  const BenchResult r = s.finish();
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_NE(r.error.find("bad data"), std::string::npos);
}

TEST_F(StatePlausibility, HooksBeforeSamplesMustComeBeforeTheMeasuredRegion) {
  State s(instance_, settings_, context_);
  s.measure_manual([] { return 1e-3; });
  EXPECT_THROW(s.before_each_sample([](cudaStream_t) {}), std::logic_error);
  EXPECT_THROW(s.flush_l2_between_samples(), std::logic_error);
}

TEST_F(StatePlausibility, NoLaunchFactIsStampedOnEveryResult) {
  State s(instance_, settings_, context_);
  s.measure_manual([] { return 1e-3; });
  s.verify(true, "ran");
  EXPECT_FALSE(s.finish().notes.contains("process_streams"));
}

TEST_F(StatePlausibility, APowerLimitedMeasurementSettlesBeforeItsSamples) {
  settings_.settle_s = 0.03;
  State s(instance_, settings_, context_);
  s.count_flops(2e9);  // 2 GFLOP per 1 ms operation: 2 TFLOP/s
  int calls = 0;
  const auto start = std::chrono::steady_clock::now();
  s.measure_manual([&] {  // calls 1-2 warm up (warmup_s 0), the settle's calls fill 30 ms
    ++calls;
    return 1e-3;
  });
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.03);
  s.verify(true, "computed");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.metrics.at("tflops").values.size(), static_cast<std::size_t>(settings_.stop.min_samples));
  EXPECT_GT(calls, 2 + settings_.stop.min_samples);  // the settle's calls are not samples
  EXPECT_DOUBLE_EQ(r.notes.at("settle_s").get<double>(), 0.03);
  EXPECT_DOUBLE_EQ(r.metrics.at("tflops").summary().median, 2.0);
}

TEST_F(StatePlausibility, TheSamplesShareOfTheWallTimeIsNoted) {
  State s(instance_, settings_, context_);
  s.measure_manual([] {  // 1 ms of work in every 2 ms or more of wall time
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return 1e-3;
  });
  s.verify(true, "slept");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_GT(r.notes.at("busy_pct").get<double>(), 10);
  EXPECT_LE(r.notes.at("busy_pct").get<double>(), 50);
}

// cpu_time: the process's CPU time over the samples per operation timed, measured. Work that
// spins on the host (a synchronising wait) costs its wall time; a wait that sleeps, next to none.
TEST_F(StatePlausibility, TheCpuTimePerOperationIsMeasured) {
  auto cpu_per_op = [&](bool spin) {
    State s(instance_, settings_, context_);
    s.measure_manual([spin] {  // 4 operations per 2 ms sample
      const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
      if (!spin) std::this_thread::sleep_until(end);
      while (std::chrono::steady_clock::now() < end) {
      }
      return 2e-3;
    }, 4);
    s.verify(true, spin ? "spun" : "slept");
    const BenchResult r = s.finish();
    EXPECT_EQ(r.status, Status::kOk) << r.error;
    EXPECT_TRUE(r.cpu_time_ns.has_value());
    return r.cpu_time_ns.value_or(-1) * 1e-9;
  };
  const double spun = cpu_per_op(true), slept = cpu_per_op(false);
  // Spinning costs up to its 0.5 ms per operation (less on a loaded host, which runs it less).
  EXPECT_GT(spun, 0.05e-3);
  EXPECT_LT(spun, 0.6e-3);
  EXPECT_GE(slept, 0);
  EXPECT_LT(slept * 5, spun) << "sleeping costs next to no CPU";
  State failed(instance_, settings_, context_);
  failed.measure_manual([] { return 1e-3; });
  failed.verify(false, "wrong");
  EXPECT_FALSE(failed.finish().cpu_time_ns.has_value()) << "a result that did not verify states no figure";
}

TEST_F(StatePlausibility, MeasureBatchedSamplesAtTheBatchItChose) {
  State s(instance_, settings_, context_);
  s.count_bytes(1e4);  // 10 kB per 10 us operation: 1 GB/s
  s.declare_metric("per_call_ops", "ops", true);
  std::vector<int> calls;
  s.measure_batched([&](int ops) {
    calls.push_back(ops);
    s.record("per_call_ops", ops);  // a probe's and the warm-up's values are dropped
    return ops * 1e-5;
  });  // the family's batch_target_s: 200 us, so 20 operations
  s.verify(true, "copied");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.ops_per_sample, 20);
  ASSERT_GE(calls.size(), 3u);
  EXPECT_EQ(calls.front(), 1);  // the probe
  for (std::size_t i = 1; i < calls.size(); ++i) EXPECT_EQ(calls[i], 20) << i;
  const auto& samples = r.metrics.at("per_call_ops").values;
  EXPECT_EQ(samples.size(), r.metrics.at("time_us").values.size());
  EXPECT_EQ(samples.size() + 3, calls.size());  // the probe and two warm-up calls (warmup_s 0) are not samples
  EXPECT_DOUBLE_EQ(r.metrics.at("time_us").summary().median, 10);
  EXPECT_DOUBLE_EQ(r.metrics.at("bandwidth_gbps").summary().median, 1);
  EXPECT_EQ(r.iterations, static_cast<long long>(samples.size()) * 20);
  EXPECT_EQ(r.notes.at("batching"), "in the family's run");
  EXPECT_DOUBLE_EQ(r.notes.at("batch_rule").at("target_s").get<double>(), settings_.batch_target_s);
  EXPECT_EQ(r.notes.at("batch_rule").at("probes"), 1);
}

TEST_F(StatePlausibility, MeasureBatchedLeavesLongWorkUnbatched) {
  State s(instance_, settings_, context_);
  BatchRule rule;
  rule.target_s = 1e-3;
  rule.probes = 2;
  s.measure_batched([](int ops) { return ops * 5e-3; }, rule);
  s.verify(true, "ran");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.ops_per_sample, 1);
  EXPECT_EQ(r.notes.at("batching"), "none");
  EXPECT_DOUBLE_EQ(r.metrics.at("time_us").summary().median, 5000);
}

}  // namespace
}  // namespace gpubench
