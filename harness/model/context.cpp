// The context's peaks, version strings and throttle reasons. Its JSON form is in
// context_json.cpp; `gpubench info`'s text of it is harness/report/info_text.cpp's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "harness/model/context.h"

namespace gpubench {

std::map<std::string, std::string> measurement_environment(const char* const* variables) {
  std::map<std::string, std::string> out;
  for (; variables && *variables; ++variables) {
    const std::string entry = *variables;
    const auto equals = entry.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = entry.substr(0, equals);
    if (name.rfind("CUDA_", 0) == 0 || name.rfind("NCCL_", 0) == 0) out[name] = entry.substr(equals + 1);
  }
  return out;
}

double pcie_lane_gbps(int gen) {
  // Per lane and direction after line encoding: 8b/10b for Gen1-2, 128b/130b for Gen3-5,
  // FLIT (242/256 with FEC) for Gen6.
  switch (gen) {
    case 1: return 0.25;
    case 2: return 0.5;
    case 3: return 0.98462;
    case 4: return 1.96923;
    case 5: return 3.93846;
    case 6: return 7.56;
    default: return 0;
  }
}

double nvlink_link_gbps(unsigned nvml_version) {
  // nvmlDeviceGetNvLinkVersion answers nvmlNvlinkVersion_t, not the generation: 1 = 1.0,
  // 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0. NVLink 2-4 carry 25 GB/s per link
  // and direction (fewer lanes at higher signalling each generation), NVLink 5 twice that.
  switch (nvml_version) {
    case 1: return 20;
    case 2: case 3: case 4: case 5: case 6: return 25;
    case 7: return 50;
    default: return 0;  // unknown (6.0 included, until its per-link rate is confirmed)
  }
}

double GpuInfo::hbm_peak_gbps() const {
  return 2.0 * mem_clock_max_mhz * 1e6 * memory_bus_width_bits / 8 / 1e9;
}

double GpuInfo::pcie_peak_gbps() const {
  // An idle GPU retrains its link down (often to Gen1) to save power and back up under load,
  // so the current generation at capture says little: the peak uses the maximum the GPU and
  // slot support, and a link that stays slow under load shows in the measurement and in the
  // health check. Width does not change with load, so the current width counts.
  const int gen = pcie.gen_max > 0 ? pcie.gen_max : pcie.gen;
  const int width = pcie.width > 0 ? pcie.width : pcie.width_max;
  return pcie_lane_gbps(gen) * width;
}

double GpuInfo::nvlink_peak_gbps() const { return nvlinks_active.value_or(0) * nvlink_gbps_per_link; }

std::string shared_pcie_bridge(const GpuInfo& a, const GpuInfo& b) {
  for (const std::string& bridge : a.pcie_path)
    if (std::find(b.pcie_path.begin(), b.pcie_path.end(), bridge) != b.pcie_path.end()) return bridge;
  return "";
}

std::string cuda_version_string(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string cudnn_version_string(std::size_t version) {
  if (version == 0) return "";
  const std::size_t major_unit = version >= 90000 ? 10000 : 1000;
  return std::to_string(version / major_unit) + "." + std::to_string(version % major_unit / 100) +
         "." + std::to_string(version % 100);
}

std::string nccl_version_string(int version) {
  if (version <= 0) return "";
  const int major_unit = version >= 20900 ? 10000 : 1000;
  return std::to_string(version / major_unit) + "." + std::to_string(version % major_unit / 100) +
         "." + std::to_string(version % 100);
}

namespace {
// nvmlClocksEventReason* bits of nvml.h.
constexpr std::uint64_t kGpuIdle = 0x1, kSwPowerCap = 0x4, kHwSlowdown = 0x8,
                        kSwThermal = 0x20, kHwThermal = 0x40, kHwPowerBrake = 0x80;
constexpr std::pair<std::uint64_t, const char*> kReasonNames[] = {
    {kGpuIdle, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {kSwPowerCap, "sw_power_cap"},
    {kHwSlowdown, "hw_slowdown"},
    {0x10, "sync_boost"},
    {kSwThermal, "sw_thermal_slowdown"},
    {kHwThermal, "hw_thermal_slowdown"},
    {kHwPowerBrake, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};
}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : kReasonNames) {
    if (mask & bit) names.push_back(name);
    mask &= ~bit;
  }
  // Bits newer drivers may add are kept visible rather than dropped.
  for (int bit = 0; bit < 64; ++bit) {
    if (!(mask >> bit & 1)) continue;
    char name[32];
    std::snprintf(name, sizeof name, "reason_0x%llx", 1ULL << bit);
    names.push_back(name);
  }
  return names;
}

bool is_throttled(std::uint64_t mask) {
  return mask & (kSwPowerCap | kHwSlowdown | kSwThermal | kHwThermal | kHwPowerBrake);
}

}  // namespace gpubench
