#pragma once
// The wait between benchmarks: until the GPUs a benchmark uses are back near idle, so that one
// heavy benchmark does not throttle the next; bounded, and recorded in the result.
#include <functional>
#include <vector>

#include "harness/model/telemetry.h"
#include "harness/system/gpu_probe.h"

namespace gpubench {

// The clock the wait runs on: the steady clock and a real sleep, or a test's fake.
struct CooldownClock {
  std::function<double()> now_s;
  std::function<void(double seconds)> sleep_s;
};
CooldownClock steady_cooldown_clock();

// A GPU is near idle when its temperature is at or below its target (cooldown_target_c, else
// its idle temperature + cooldown_margin_c) and no thermal slowdown holds its clocks. Polls every
// `poll_s` until every device is, or cooldown_max_wait_s passed. An H200 falls below its target
// within a few tenths of a second after most benchmarks, so a coarse poll would make most waits
// one whole poll. "unavailable" when a device has neither temperature nor idle reference to
// wait on.
CooldownRecord cool_down(GpuProbe& probe, const std::vector<int>& devices, const TelemetrySettings& settings,
                         const CooldownClock& clock, double poll_s = 0.05);

}  // namespace gpubench
