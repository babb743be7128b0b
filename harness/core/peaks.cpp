#include "harness/core/peaks.h"

namespace gpubench {

void set_hbm_peak(State& s, double working_set_bytes) {
  const GpuInfo& gpu = s.gpu(s.device());
  if (working_set_bytes >= 2.0 * static_cast<double>(gpu.l2_bytes)) {
    s.set_peak(gpu.hbm_peak_gbps(), "HBM: 2 x " + std::to_string(gpu.mem_clock_max_mhz) + " MHz x " +
                                        std::to_string(gpu.memory_bus_width_bits) + " bit");
    s.note("cache_resident", false);
  } else {
    s.note("cache_resident", true);
  }
}

void set_datasheet_tflops_peak(State& s, const std::string& key) {
  const GpuInfo& gpu = s.gpu(s.device());
  const auto peak = gpu.tflops_peak.find(key);
  if (peak == gpu.tflops_peak.end())
    s.set_peak(0, gpu.tflops_peak_source.empty() ? "no datasheet peak for " + gpu.name : gpu.tflops_peak_source);
  else
    s.set_peak(peak->second, gpu.tflops_peak_source + ": " + key);
}

}  // namespace gpubench
