#include "harness/run/watchdog.h"

#include <algorithm>

namespace gpubench {

WorkerWatchdog::WorkerWatchdog(double startup_limit_s, Clock clock)
    : startup_limit_s_(startup_limit_s), clock_(std::move(clock)), since_s_(clock_()) {}

void WorkerWatchdog::benchmark_started(double timeout_s) {
  phase_ = Phase::kRunning;
  benchmark_timeout_s_ = timeout_s;
  since_s_ = clock_();
}

void WorkerWatchdog::benchmark_finished() {
  phase_ = Phase::kBetween;
  since_s_ = clock_();
}

double WorkerWatchdog::limit_s() const {
  return phase_ == Phase::kRunning ? benchmark_timeout_s_ : startup_limit_s_;
}

double WorkerWatchdog::remaining_s() const { return std::max(0.0, since_s_ + limit_s() - clock_()); }

WorkerWatchdog::Verdict WorkerWatchdog::verdict() const {
  if (clock_() - since_s_ <= limit_s()) return Verdict::kWithinLimits;
  switch (phase_) {
    case Phase::kStartingUp: return Verdict::kStartupHung;
    case Phase::kBetween: return Verdict::kHungBetween;
    case Phase::kRunning: break;
  }
  return Verdict::kBenchmarkTimedOut;
}

}  // namespace gpubench
