#pragma once
// % of peak for the memory suite: only a working set well beyond the L2 measures HBM.
#include "harness/core/state.h"

namespace gpubench::memory {

// Sets the HBM peak (2 x memory clock x bus width) when `working_set_bytes` is at least twice
// the L2, and otherwise records that the data was cache-resident, so that an L2 figure is never
// shown as a percentage of HBM.
inline void set_hbm_peak(State& s, double working_set_bytes) {
  const GpuInfo& gpu = s.gpu(s.device());
  if (working_set_bytes >= 2.0 * static_cast<double>(gpu.l2_bytes)) {
    s.set_peak(gpu.hbm_peak_gbps(), "HBM: 2 x " + std::to_string(gpu.mem_clock_max_mhz) + " MHz x " +
                                        std::to_string(gpu.memory_bus_width_bits) + " bit");
    s.note("cache_resident", false);
  } else {
    s.note("cache_resident", true);
  }
}

}  // namespace gpubench::memory
