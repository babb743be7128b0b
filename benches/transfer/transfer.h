#pragma once
// The GPU-free parts of the transfer suite, shared by its families and tested on the CPU: which
// axis combinations run, what each case counts, theoretical peaks from the captured link data,
// the choice of NUMA node, and how many operations a sample holds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/model/context.h"
#include "harness/core/family.h"

namespace gpubench::transfer {

// The default size axes. Host<->device and device-local sweep 4 KiB..1 GiB in steps of 4, so a
// plot shows where each path saturates; the peer family, whose cases multiply with the number
// of GPU pairs, takes steps of 16 from 4 KiB, plus 1 GiB; all-to-all 1 MiB and up.
std::vector<std::int64_t> peer_sizes();
std::vector<std::int64_t> all_to_all_sizes();
// Small copies, 4 B to 64 KiB in steps of 16.
std::vector<std::int64_t> memcpy_latency_sizes();
// Sizes of the default host<->device sweep that only its main path (pinned, CE, local node)
// measures, to keep the sweep short: 16 KiB, 256 KiB, 4 MiB, 64 MiB. Other sizes given in a
// config run on every path.
bool is_main_path_only_size(std::int64_t bytes);

// ---- which combinations of the axes run ----
// transfer/host_device: the GPU cannot address pageable memory, so no SM copy from or to it;
// numa:remote (the host buffer on another node) is measured for pinned CE copies only; the
// sizes of is_main_path_only_size for pinned CE on the local node only.
bool keep_host_device_case(const Params& params);
// transfer/peer: src != dst; a bidirectional case once per unordered pair (src < dst), since
// gpu0<->gpu1 and gpu1<->gpu0 are the same measurement; path:staged (peer access disabled,
// the driver stages through host memory) exists for CE copies issued by the source GPU only.
bool keep_peer_case(const Params& params);
// transfer/peer_latency: a GPU does not chase through its own memory here.
bool keep_peer_latency_case(const Params& params);

// ---- bytes counted ----
// Copies that run at once: 2 for "bidir", else 1 (h2d, d2h, uni).
int directions_of(const std::string& dir);
// Device-local copies count each byte twice, read and written, as the STREAM copy does.
double device_local_counted_bytes(std::size_t bytes);
// All-to-all: every ordered pair of `gpus` moves `bytes`.
double all_to_all_counted_bytes(std::size_t bytes, int gpus);

// ---- theoretical peaks, 10^9 bytes/s ----
struct Peak {
  double gbps = 0;     // 0: unknown
  std::string source;  // how it was computed, or why it is unknown
};
const GpuInfo* find_gpu(const Context& context, int device);
// The captured link between two GPUs (by CUDA ordinal); nullptr when not captured.
const GpuLink* find_link(const Context& context, int a, int b);
// "NV18 (18 NVLinks)", "PCIe P2P (SYS)", "no peer access (SYS)" ...
std::string describe_pair(const Context& context, int a, int b);
// PCIe of one GPU, per direction, times `directions`.
Peak pcie_peak(const GpuInfo& gpu, int directions);
// The direct path between two GPUs: NVLink (links between them x per-link rate) when linked,
// else PCIe peer-to-peer (the slower of the two GPUs' links); per direction x `directions`.
Peak peer_peak(const Context& context, int src, int dst, int directions);
// Through host memory: down one GPU's PCIe and up the other's, so the slower of the two.
Peak staged_peak(const Context& context, int src, int dst, int directions);
// Every GPU writing to every other: each GPU sends at most its own link rate (NVLink in all,
// else PCIe) and at most the sum of its pairs' direct peaks.
Peak all_to_all_peak(const Context& context, const std::vector<int>& gpus);

// The chain nvbandwidth's latency tests chase: node i (one per 128-byte line) points to node
// i + 1, wrapping, in element indices as kernels/pointer_chase.cuh reads them.
std::vector<std::uint64_t> make_stride_cycle(std::size_t working_set_bytes);

}  // namespace gpubench::transfer
