#pragma once
// The health rules of a GPU, from its context: `gpubench info` shows the findings of the GPU it
// runs on, `gpubench check` holds every GPU of a result file to them. One copy of the rules
// serves both, so that info and check never disagree about what a healthy GPU is.
#include <string>
#include <vector>

#include "harness/report/context.h"

namespace gpubench {

enum class HealthRule { kPcieWidth, kPcieGen, kNvlink, kEcc, kMig, kClocks };
const char* to_string(HealthRule rule);  // "pcie_width", "pcie_gen", "nvlink", "ecc", "mig", "clocks"

// One rule applied to one GPU. A rule whose inputs are unknown (0 or absent in the context)
// gives no finding; one that holds gives a finding with bad = false, for check's pass lines.
struct HealthFinding {
  HealthRule rule;
  bool bad = false;
  std::string expected;  // e.g. "gen5 x16", ">= 18 links"
  std::string text;      // what was seen, e.g. "PCIe link x8, x16 possible"
};

// expected_nvlinks: how many NVLinks the GPU should have up (0: no NVLink rule).
std::vector<HealthFinding> gpu_health(const GpuInfo& gpu, int expected_nvlinks);

}  // namespace gpubench
