#pragma once
// The supervisor's timing decisions for one worker, on an injectable clock so that they can be
// tested without waiting. A worker is in one of three phases: starting up (no benchmark begun
// yet), running a benchmark (under that benchmark's timeout), or between benchmarks (a result
// came; the next must begin within the start-up limit, counted from that result).
#include <functional>

#include "harness/core/host_clock.h"

namespace gpubench {

// A worker that has not begun a benchmark within this long is stuck (driver, start-up).
constexpr double kWorkerStartupLimitS = 120;

class WorkerWatchdog {
 public:
  using Clock = std::function<double()>;
  enum class Verdict {
    kWithinLimits,
    kStartupHung,         // no benchmark began within the start-up limit
    kHungBetween,         // after a result, the next benchmark did not begin within the limit
    kBenchmarkTimedOut,   // the running benchmark overran its timeout
  };

  explicit WorkerWatchdog(double startup_limit_s = kWorkerStartupLimitS, Clock clock = host_now_s);

  // A benchmark began; it may run `timeout_s`.
  void benchmark_started(double timeout_s);
  // Its result arrived.
  void benchmark_finished();

  Verdict verdict() const;
  bool running_benchmark() const { return phase_ == Phase::kRunning; }
  bool started_any() const { return phase_ != Phase::kStartingUp; }
  // The limit of the current phase, in seconds.
  double limit_s() const;
  // Seconds until the current phase's limit is reached (0 once it is).
  double remaining_s() const;

 private:
  enum class Phase { kStartingUp, kRunning, kBetween };
  double startup_limit_s_;
  Clock clock_;
  Phase phase_ = Phase::kStartingUp;
  double since_s_;
  double benchmark_timeout_s_ = 0;
};

}  // namespace gpubench
