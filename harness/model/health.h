#pragma once
// The health rules of a GPU, from its context: `gpubench info` shows the findings of the GPU it
// runs on, `gpubench check` holds every GPU of a result file to them. One copy of the rules
// serves both, so that info and check never disagree about what a healthy GPU is.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/context.h"

namespace gpubench {

enum class HealthRule {
  kPcieWidth, kPcieGen, kNvlink, kEcc, kMig, kClocks,
  // From the error counters' deltas over each suite (counter_health).
  kEccErrors, kMemoryRetirement, kPcieReplay, kNvlinkErrors, kXid,
};
// "pcie_width", "pcie_gen", "nvlink", "ecc", "mig", "clocks", "ecc_errors", "memory_retirement",
// "pcie_replay", "nvlink_errors", "xid"
const char* to_string(HealthRule rule);

// One rule applied to one GPU. A rule that holds gives a finding with bad = false, for check's
// pass lines. A rule whose input could not be read gives an unknown finding (the field named in
// `unknown`, why in `text`), never a pass: check warns, or fails where the baseline asks for
// that field. A 0 that is a real value (no NVLink on a PCIe card) is a known value; an
// unreadable one is null in the context (or 0 where 0 cannot be real: a PCIe link width).
struct HealthFinding {
  HealthRule rule;
  bool bad = false;
  std::string expected;  // e.g. "gen5 x16", ">= 18 links"
  std::string text;      // what was seen, e.g. "PCIe link x8, x16 possible"
  // Not a failure, yet not a pass either: something worth a look happened (an XID outside the
  // critical set, a pending row remap). Check warns.
  bool notice = false;
  std::string unknown{};  // the context field that could not be read, e.g. "ecc_enabled"
};

// expected_nvlinks: how many NVLinks the GPU should have up (0: no NVLink rule).
std::vector<HealthFinding> gpu_health(const GpuInfo& gpu, int expected_nvlinks);

// What one suite may add to a GPU's error counters. The defaults follow NVIDIA DCGM's hardware
// limits (dcgm_gpu_hardware_limits.h) and its health watches.
struct CounterLimits {
  std::uint64_t ecc_uncorrected = 0;           // any uncorrectable error fails
  std::optional<std::uint64_t> ecc_corrected;  // unset: not limited (ECC corrected them)
  std::uint64_t retired_pages = 0;             // new retired pages or uncorrectable row remaps
  double pcie_replays_per_min = 8;             // DCGM_LIMIT_MAX_PCIREPLAY_RATE
  double nvlink_crc_per_s = 100;               // DCGM_LIMIT_MAX_NVLINK_CRC_ERROR, per link
  std::uint64_t nvlink_replay = 0, nvlink_recovery = 0;  // per link; DCGM fails on the first
  // XIDs that mean the GPU, its memory or its links failed (NVIDIA's XID catalogue): 48 DBE,
  // 63/64 row remapping, 74 NVLink, 79 fell off the bus, 92 high SBE rate, 94/95 contained and
  // uncontained ECC errors. Any other XID is reported without failing.
  std::vector<std::uint64_t> critical_xids{48, 63, 64, 74, 79, 92, 94, 95};
};

// The error-counter rules over every suite window of the GPU, one finding per rule; none when
// the GPU has no windows (check says so, for the run or for the GPU). The NVLink rule applies
// where a window lists links or expected_nvlinks (or the GPU's own active links) says there
// should be some: then counters absent for them are unknown.
std::vector<HealthFinding> counter_health(const GpuInfo& gpu, const CounterLimits& limits, int expected_nvlinks = 0);

}  // namespace gpubench
