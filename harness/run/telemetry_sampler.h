#pragma once
// The sampler thread: reads the benchmark's GPUs every interval while it runs, so that a GPU
// that throttles in the middle of a benchmark is seen, not only what it read before and after.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/model/telemetry.h"
#include "harness/system/gpu_probe.h"

namespace gpubench {

// Seconds since the Unix epoch: the time axis of samples and XID events across processes.
double unix_time_s();

class TelemetrySampler {
 public:
  enum class Mode {
    kOff,          // no readings
    kBeforeAfter,  // a reading at start and at finish only: no NVML call beside the measurement
    kInterval,     // and one every interval_ms on a thread in between
  };
  // Starts sampling `devices` (the first reading is taken here).
  TelemetrySampler(GpuProbe& probe, std::vector<int> devices, std::string benchmark, Mode mode, int interval_ms);
  ~TelemetrySampler();
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  // Stops the thread, takes the last reading, and returns every sample in time order with
  // throughput filled in (add_throughput). Later calls return the same.
  const std::vector<TelemetrySample>& finish();
  // A reading of `device` now, kept among the samples: for a family that reads the GPU beside
  // its own figures (State::telemetry_now). None when sampling is off.
  std::optional<TelemetryReading> read_now(int device);
  Mode mode() const { return mode_; }
  static const char* to_string(Mode mode);  // "off", "before_after", "interval"

 private:
  void read_all();
  TelemetrySample read(int device);
  void poll();

  GpuProbe& probe_;
  const std::vector<int> devices_;
  const std::string benchmark_;
  const Mode mode_;
  const int interval_ms_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false, finished_ = false;
  std::vector<TelemetrySample> samples_;
  std::thread thread_;
};

}  // namespace gpubench
