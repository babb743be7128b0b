#include "harness/report/health.h"

namespace gpubench {

const char* to_string(HealthRule rule) {
  switch (rule) {
    case HealthRule::kPcieWidth: return "pcie_width";
    case HealthRule::kPcieGen: return "pcie_gen";
    case HealthRule::kNvlink: return "nvlink";
    case HealthRule::kEcc: return "ecc";
    case HealthRule::kMig: return "mig";
    case HealthRule::kClocks: return "clocks";
  }
  return "?";
}

namespace {

constexpr std::uint64_t kGpuIdle = 0x1;  // nvmlClocksEventReasonGpuIdle

std::vector<HealthFinding> pcie_health(const GpuInfo& g) {
  std::vector<HealthFinding> out;
  const PcieLink& p = g.pcie;
  const std::string now = "gen" + std::to_string(p.gen) + " x" + std::to_string(p.width);
  if (p.width > 0 && p.width_max > 0)
    out.push_back({HealthRule::kPcieWidth, p.width < p.width_max, "x" + std::to_string(p.width_max),
                   p.width < p.width_max ? "PCIe link x" + std::to_string(p.width) + ", x" +
                                               std::to_string(p.width_max) + " possible"
                                         : "PCIe link at " + now});
  // An idle GPU lowers its link speed to save power, so a low generation is a finding only
  // where the GPU is not known to be idle; the message says which case it is.
  if (p.gen > 0 && p.gen_max > 0) {
    const bool idle = g.throttle_mask && (*g.throttle_mask & kGpuIdle);
    const bool low = p.gen < p.gen_max && !idle;
    const std::string why = g.throttle_mask ? " while busy" : " (an idle link may train down)";
    out.push_back({HealthRule::kPcieGen, low, "gen" + std::to_string(p.gen_max),
                   low ? "PCIe Gen" + std::to_string(p.gen) + why + ", Gen" + std::to_string(p.gen_max) +
                             " possible"
                       : "PCIe link at " + now});
  }
  return out;
}

}  // namespace

std::vector<HealthFinding> gpu_health(const GpuInfo& g, int expected_nvlinks) {
  std::vector<HealthFinding> out = pcie_health(g);
  if (expected_nvlinks > 0)
    out.push_back({HealthRule::kNvlink, g.nvlinks_active < expected_nvlinks,
                   ">= " + std::to_string(expected_nvlinks) + " links",
                   "NVLink " + std::to_string(g.nvlinks_active) + " of " + std::to_string(expected_nvlinks) +
                       " links active"});
  if (g.ecc_enabled)
    out.push_back({HealthRule::kEcc, !*g.ecc_enabled, "enabled", *g.ecc_enabled ? "ECC enabled" : "ECC disabled"});
  if (g.mig_mode)
    out.push_back({HealthRule::kMig, *g.mig_mode, "off",
                   *g.mig_mode ? "MIG mode on: benchmarks see one instance, not the GPU" : "MIG mode off"});
  // gpu_idle is what an idle GPU shows; anything else holds the clocks down now.
  if (g.throttle_mask) {
    const std::uint64_t mask = *g.throttle_mask & ~kGpuIdle;
    std::string text = !mask ? "clocks not limited" : is_throttled(mask) ? "clocks throttled now:" : "clocks limited now:";
    for (const auto& name : throttle_reason_names(mask)) text += " " + name;
    out.push_back({HealthRule::kClocks, mask != 0, "not limited", text});
  }
  return out;
}

}  // namespace gpubench
