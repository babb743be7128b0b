#pragma once
// Error counters before and after each suite, per GPU, and the XID events in between (read on a
// thread through NVML's event API): what `check` holds to the baseline's counter limits.
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/model/error_counters.h"
#include "harness/system/gpu_probe.h"

namespace gpubench {

class CounterRecorder {
 public:
  // Starts watching `devices` for XID events; records nothing when the probe is unavailable.
  CounterRecorder(GpuProbe& probe, std::vector<int> devices);
  ~CounterRecorder();
  CounterRecorder(const CounterRecorder&) = delete;
  CounterRecorder& operator=(const CounterRecorder&) = delete;

  // Ends the open window, if another suite's, and opens one for `suite` (reading "before").
  void begin_suite(const std::string& suite);
  // Ends the open window and the XID watch; the windows per CUDA ordinal, in run order.
  std::map<int, std::vector<CounterWindow>> finish();

 private:
  struct Open {
    std::string suite;
    double start_s = 0;
    std::map<int, ErrorCounters> before;
  };
  void close_window();
  void watch();

  GpuProbe& probe_;
  const std::vector<int> devices_;
  const bool enabled_;
  std::string xid_error_;
  std::optional<Open> open_;
  std::map<int, std::vector<CounterWindow>> windows_;
  std::mutex mutex_;
  std::vector<std::pair<double, DeviceXid>> xids_;  // seen so far, with their time
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

}  // namespace gpubench
