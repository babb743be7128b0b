#pragma once
// The machine's context: versions, GPUs, links, peaks, as data and as JSON. Captured once per
// run by the parent process (harness/system/capture.h) and written to context.gpubench of the
// result JSON. Nothing here needs CUDA: compare, check and report read contexts from files.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/error_counters.h"
#include "harness/model/json_at.h"

namespace gpubench {

struct PcieLink {
  int gen = 0, width = 0, gen_max = 0, width_max = 0;  // 0 = not read: a link is never 0 wide
};

struct GpuInfo {
  int index = 0;  // CUDA device ordinal
  std::string name, uuid, pci_bus_id;
  int sm_count = 0, cc_major = 0, cc_minor = 0;
  std::uint64_t memory_bytes = 0, l2_bytes = 0;
  int sm_clock_max_mhz = 0, mem_clock_max_mhz = 0, memory_bus_width_bits = 0;
  PcieLink pcie;
  std::optional<int> nvlinks_active;  // unset: not read (no NVML); 0: a GPU without NVLink up
  double nvlink_gbps_per_link = 0;  // per direction, 10^9 bytes/s
  int numa_node = -1;
  // PCIe bridges from the GPU up to its root port (sysfs), nearest first; empty: not read.
  std::vector<std::string> pcie_path;
  std::optional<bool> ecc_enabled, mig_mode;
  double power_limit_w = 0;
  // Dense datasheet rates by precision, TFLOP/s (configs/peaks.json), and their datasheet or
  // why there are none.
  std::map<std::string, double> tflops_peak;
  std::string tflops_peak_source;
  // Error counters before and after each suite of the run, in run order; empty when the run
  // did not record them (NVML unavailable, or a file from before they were recorded).
  std::vector<CounterWindow> error_counters;
  // Read at capture for `info`'s health section; not part of the JSON.
  int nvlinks_total = 0;                       // links NVML reports, active or not
  std::optional<std::uint64_t> throttle_mask;  // clock event reasons at capture

  // Theoretical peaks in 10^9 bytes/s; 0 when the inputs are unknown.
  double hbm_peak_gbps() const;        // 2 (DDR) x memory clock x bus width
  double pcie_peak_gbps() const;       // per direction, after line encoding
  double nvlink_peak_gbps() const;     // per direction, active links x per-link rate
};

// The nearest PCIe bridge both GPUs sit below (a switch port, or the root port they share);
// empty when their paths meet only at the host bridge or either path is unknown.
std::string shared_pcie_bridge(const GpuInfo& a, const GpuInfo& b);

// How two GPUs reach each other, in nvidia-smi topo -m terms: "X" (self), "NV<n>",
// "PIX", "PXB", "PHB", "NODE", "SYS", or "?" when unknown.
struct GpuLink {
  std::string kind = "?";
  int nvlinks = 0;
  bool p2p_access = false;  // cudaDeviceCanAccessPeer
};

struct Context {
  std::string driver_version, cuda_driver, cuda_runtime, cublas, cudnn, nccl;
  bool nvml_available = false;
  std::string nvml_error;  // why NVML is absent, when it is
  std::vector<GpuInfo> gpus;
  std::vector<std::vector<GpuLink>> links;  // [i][j] for i, j in gpus
  std::string gpu_error;                    // why no GPU is usable, when none is
  // CUDA_* and NCCL_* variables set for the run: several move figures (CUDA_DEVICE_MAX_CONNECTIONS
  // moved a graph node's GPU cost from 0.60 to 0.70 us on an H200; CUDA_MODULE_LOADING,
  // CUDA_LAUNCH_BLOCKING and NCCL's protocol and transport settings change what is timed).
  std::map<std::string, std::string> environment;
};

// The CUDA_* and NCCL_* entries of an environment block (`environ`'s "NAME=value" strings).
std::map<std::string, std::string> measurement_environment(const char* const* variables);

// The JSON of context.gpubench (without the run's own fields, run_document.h), GPU by GPU.
// The readers validate: a mistyped field is "<file>: <pointer>: <what>", an absent one unknown.
nlohmann::json to_json(const GpuInfo& gpu);
GpuInfo read_gpu_info(const JsonAt& gpu);
nlohmann::json to_json(const Context& context);
Context read_context(const JsonAt& gpubench_context);

// Version encodings, "major.minor[.patch]": CUDA 12040 -> "12.4"; cuDNN 90100 -> "9.1.0"
// (8907 -> "8.9.7" before 9); NCCL 22105 -> "2.21.5" (2708 -> "2.7.8" before 2.9).
std::string cuda_version_string(int version);
std::string cudnn_version_string(std::size_t version);
std::string nccl_version_string(int version);

// Bandwidth of one PCIe lane per direction after encoding, 10^9 bytes/s (gen 1..6).
double pcie_lane_gbps(int gen);
// NVLink per-link, per-direction rate by NVML's link version.
double nvlink_link_gbps(unsigned nvml_version);

// NVML clock event (throttle) reason bits, by name.
std::vector<std::string> throttle_reason_names(std::uint64_t mask);
// Power or thermal slowdown: the reasons that make a figure unrepresentative.
bool is_throttled(std::uint64_t mask);

}  // namespace gpubench
