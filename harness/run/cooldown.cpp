#include "harness/run/cooldown.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "harness/core/host_clock.h"


namespace gpubench {
namespace {

// nvmlClocksEventReasonSwThermalSlowdown | HwThermalSlowdown. Power or external slowdowns are
// left out: a GPU held down by one of those at idle would make every benchmark wait in vain.
constexpr std::uint64_t kThermalSlowdown = 0x20 | 0x40;

std::optional<double> target_of(int device, const TelemetrySettings& s) {
  if (s.cooldown_target_c) return s.cooldown_target_c;
  const auto idle = s.idle_temp_c.find(device);
  if (idle == s.idle_temp_c.end()) return std::nullopt;
  return idle->second + s.cooldown_margin_c;
}

}  // namespace

CooldownClock steady_cooldown_clock() {
  return {host_now_s, [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }};
}

CooldownRecord cool_down(GpuProbe& probe, const std::vector<int>& devices, const TelemetrySettings& settings,
                         const CooldownClock& clock, double poll_s) {
  CooldownRecord record;
  if (settings.cooldown_max_wait_s <= 0 || devices.empty()) return record;  // "off"
  const double start = clock.now_s();
  while (true) {
    bool idle = true;
    std::optional<double> hottest, target;
    for (int device : devices) {
      const TelemetryReading r = probe.read(device);
      const auto device_target = target_of(device, settings);
      if (!r.temp_c || !device_target) {
        record.stopped = "unavailable";
        record.waited_s = clock.now_s() - start;
        return record;
      }
      if (!hottest || *r.temp_c > *hottest) hottest = r.temp_c, target = device_target;
      if (*r.temp_c > *device_target || (r.clock_event_reasons.value_or(0) & kThermalSlowdown)) idle = false;
    }
    record.temp_c = hottest;
    record.target_c = target;
    record.waited_s = clock.now_s() - start;
    if (idle) {
      record.stopped = "idle";
      return record;
    }
    if (record.waited_s >= settings.cooldown_max_wait_s) {
      record.stopped = "max_wait";
      return record;
    }
    clock.sleep_s(std::min(poll_s, settings.cooldown_max_wait_s - record.waited_s));
  }
}

}  // namespace gpubench
