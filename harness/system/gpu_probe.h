#pragma once
// What the run layer reads from a GPU while benchmarks run: telemetry readings, error counters
// and XID events. An interface, so that the sampler, the cooldown and the counter recorder are
// tested against a fake (tests/test_telemetry.cpp) and run against NVML (nvml_probe()).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/error_counters.h"
#include "harness/model/telemetry.h"

namespace gpubench {

struct DeviceXid {
  int device = 0;  // CUDA ordinal
  std::uint64_t xid = 0;
};

class GpuProbe {
 public:
  virtual ~GpuProbe() = default;
  virtual bool available() const = 0;
  // Unset fields where the quantity cannot be read; never throws.
  virtual TelemetryReading read(int device) = 0;
  virtual ErrorCounters counters(int device) = 0;
  // Starts watching the devices for XID events: "" when watching all of them, else why not.
  virtual std::string watch_xids(const std::vector<int>& devices) = 0;
  // Waits up to timeout_ms for the next XID event; nullopt when none came (or none is watched).
  virtual std::optional<DeviceXid> wait_xid(int timeout_ms) = 0;
};

// The process's probe over Nvml::get(), CUDA ordinals matched to NVML devices by PCI address.
GpuProbe& nvml_probe();

}  // namespace gpubench
