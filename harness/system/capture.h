#pragma once
// Context capture: CUDA runtime for what CUDA knows, NVML (when loadable) for links, clocks
// and modes, sysfs for NUMA and as PCIe fallback, dlopen for library versions. Capture never
// throws: what cannot be read (no GPU, no NVML, no cuDNN) stays empty and the reason is recorded.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "harness/report/context.h"

namespace gpubench {

class Nvml;
Context capture_context();  // with Nvml::get()
Context capture_context(const Nvml& nvml);

// Clocks, power and throttling read through NVML around each benchmark.
struct Telemetry {
  unsigned sm_clock_mhz = 0, mem_clock_mhz = 0, temp_c = 0;
  double power_w = 0;
  std::uint64_t throttle_mask = 0;
};
std::optional<Telemetry> read_telemetry(int device);

}  // namespace gpubench
