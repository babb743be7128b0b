// The supervisor's timing decisions (WorkerWatchdog) on a fake clock: the start-up limit, the
// per-benchmark timeout, and the phase between benchmarks, which is timed from the last result
// and not from the start of the benchmark before it.
#include <gtest/gtest.h>

#include "harness/run/watchdog.h"

namespace gpubench {
namespace {

using Verdict = WorkerWatchdog::Verdict;

class FakeClock {
 public:
  WorkerWatchdog::Clock clock() {
    return [this] { return now_; };
  }
  void advance(double seconds) { now_ += seconds; }

 private:
  double now_ = 1000;
};

TEST(WorkerWatchdog, ALongBenchmarkUnderALongTimeoutLeavesTheNextOnesAlone) {
  FakeClock clock;
  WorkerWatchdog watchdog(120, clock.clock());
  clock.advance(3);
  watchdog.benchmark_started(300);
  clock.advance(200);  // longer than the start-up limit, within --timeout 300
  EXPECT_EQ(watchdog.verdict(), Verdict::kWithinLimits);
  watchdog.benchmark_finished();
  clock.advance(0.5);
  EXPECT_EQ(watchdog.verdict(), Verdict::kWithinLimits) << "the gap is timed from the result";
  for (int i = 0; i < 3; ++i) {
    watchdog.benchmark_started(300);
    clock.advance(250);
    EXPECT_EQ(watchdog.verdict(), Verdict::kWithinLimits) << "benchmark " << i;
    watchdog.benchmark_finished();
    clock.advance(1);
    EXPECT_EQ(watchdog.verdict(), Verdict::kWithinLimits) << "after benchmark " << i;
  }
}

TEST(WorkerWatchdog, AWorkerThatNeverStarts) {
  FakeClock clock;
  WorkerWatchdog watchdog(120, clock.clock());
  EXPECT_FALSE(watchdog.started_any());
  clock.advance(119.9);
  EXPECT_EQ(watchdog.verdict(), Verdict::kWithinLimits);
  EXPECT_NEAR(watchdog.remaining_s(), 0.1, 1e-9);
  clock.advance(0.2);
  EXPECT_EQ(watchdog.verdict(), Verdict::kStartupHung);
  EXPECT_EQ(watchdog.limit_s(), 120);
  EXPECT_EQ(watchdog.remaining_s(), 0);
}

TEST(WorkerWatchdog, AWorkerThatHangsMidBenchmark) {
  FakeClock clock;
  WorkerWatchdog watchdog(120, clock.clock());
  watchdog.benchmark_started(10);
  watchdog.benchmark_finished();
  clock.advance(0.1);
  watchdog.benchmark_started(300);
  EXPECT_TRUE(watchdog.running_benchmark());
  clock.advance(299);
  EXPECT_EQ(watchdog.verdict(), Verdict::kWithinLimits);
  clock.advance(2);
  EXPECT_EQ(watchdog.verdict(), Verdict::kBenchmarkTimedOut);
  EXPECT_EQ(watchdog.limit_s(), 300);
  // A timeout shorter than the start-up limit cuts off sooner.
  watchdog.benchmark_started(2);
  clock.advance(2.5);
  EXPECT_EQ(watchdog.verdict(), Verdict::kBenchmarkTimedOut);
  EXPECT_EQ(watchdog.limit_s(), 2);
}

TEST(WorkerWatchdog, AWorkerThatStallsBetweenBenchmarks) {
  FakeClock clock;
  WorkerWatchdog watchdog(120, clock.clock());
  watchdog.benchmark_started(300);
  clock.advance(5);
  watchdog.benchmark_finished();
  EXPECT_TRUE(watchdog.started_any());
  EXPECT_FALSE(watchdog.running_benchmark());
  clock.advance(121);
  EXPECT_EQ(watchdog.verdict(), Verdict::kHungBetween);
}

TEST(WorkerWatchdog, RealClockByDefault) {
  WorkerWatchdog watchdog;
  EXPECT_EQ(watchdog.verdict(), Verdict::kWithinLimits);
  EXPECT_EQ(watchdog.limit_s(), kWorkerStartupLimitS);
  EXPECT_GT(watchdog.remaining_s(), kWorkerStartupLimitS - 10);
}

}  // namespace
}  // namespace gpubench
