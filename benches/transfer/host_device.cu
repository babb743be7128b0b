// transfer/host_device: copies between host memory and one GPU, by copy engine or SM kernel,
// one direction or both at once; the figure nvbandwidth's host_to_device_memcpy_ce,
// device_to_host_memcpy_ce and their _sm forms report.
#include <optional>

#include "harness/core/host_memory.h"
#include "benches/transfer/lanes.h"
#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/gpubench.h"

namespace {

using namespace gpubench;
using namespace gpubench::transfer;

constexpr std::uint64_t kSeedToDevice = 0x4832440001ull;
constexpr std::uint64_t kSeedToHost = 0x4432480001ull;
// Cache slots: a bidirectional case holds a host source and a host destination at once.
constexpr int kHostSourceSlot = 0;
constexpr int kHostDestinationSlot = 1;

void run_host_device(State& s) {
  const int device = s.device();
  const std::string& dir = s.get_str("dir");
  const std::string& engine = s.get_str("engine");
  const HostKind kind = parse_host_kind(s.get_str("host"));
  const auto bytes = static_cast<std::size_t>(s.get_int("bytes"));
  const bool to_device = dir != "d2h", to_host = dir != "h2d";

  const HostPlacement placement = place_host_memory(s, s.get_str("numa"));
  ScopedCpuAffinity near_gpu(placement.cpu_node);
  // Host memory the GPU can address is written and checked by the GPU; pageable by the CPU.
  const int host_side = gpu_addressable(kind) ? device : kOnCpu;

  std::vector<Lane> lanes;
  std::optional<DeviceBuffer> device_dst, device_src;
  HostBuffer* host_src = nullptr;
  HostBuffer* host_dst = nullptr;
  if (to_device) {
    const kernels::SourceRotation rotation = remote_source_rotation(s, engine, device, bytes);
    host_src = &cached_host_buffer(kind, placement.memory_node, kHostSourceSlot, rotation_bytes(rotation, bytes));
    device_dst.emplace(bytes);
    fill_sources(host_src->get(), rotation, bytes, kSeedToDevice, host_side);
    poison_destination(device_dst->get(), bytes, device);
    lanes.push_back(copy_lane(engine, device, device_dst->get(), host_src->get(), bytes, 0, rotation));
    if (to_host) lanes.back().metric = "h2d_gbps";
  }
  if (to_host) {
    host_dst = &cached_host_buffer(kind, placement.memory_node, kHostDestinationSlot, bytes);
    device_src.emplace(bytes);
    fill_source(device_src->get(), bytes, kSeedToHost, device);
    // Also faults in pageable pages, which the first copy would otherwise pay for.
    poison_destination(host_dst->get(), bytes, host_side);
    lanes.push_back(copy_lane(engine, device, host_dst->get(), device_src->get(), bytes));
    if (to_device) lanes.back().metric = "d2h_gbps";
  }
  note_observed_node(s, host_src ? *host_src : *host_dst);
  const Peak peak = pcie_peak(s.gpu(device), directions_of(dir));
  s.set_peak(peak.gbps, peak.source);

  measure_lanes(s, lanes, kind == HostKind::kPageable ? Hold::kUnblocked : Hold::kBlocked);

  if (to_device) verify_copy(s, "device buffer after H2D", device_dst->get(), bytes, kSeedToDevice, device);
  if (to_host) verify_copy(s, "host buffer after D2H", host_dst->get(), bytes, kSeedToHost, host_side);
}

const auto& host_device_family =
    gpubench::family("transfer/host_device")
        .describe("Copies between host memory and one GPU: h2d, d2h, or bidir (both at once on two streams; "
                  "h2d_gbps and d2h_gbps are each direction's own rate, bandwidth_gbps all bytes over the span "
                  "of both). Host memory pinned, pageable, or pinned write-combined (wc), on the GPU's NUMA node "
                  "(numa:local) or another (numa:remote, pinned CE only). Engine ce: cudaMemcpyAsync; sm: a "
                  "copy kernel over mapped host memory (not pageable); its h2d reads rotate through host buffers that "
                  "together exceed twice the L2, so that no pass is served from L2 (notes.l2). Bytes counted once "
                  "per direction. "
                  "% of peak: PCIe generation x width, per direction. The default sweep measures 16 KiB, "
                  "256 KiB, 4 MiB and 64 MiB on the main path (pinned, ce, local) only")
        // Host memory first, so that a worker finishes with one kind of cached buffer before the next.
        .axis_str("host", {"pinned", "pageable", "wc"}, {"pinned"})
        .axis_str("dir", {"h2d", "d2h", "bidir"}, {"bidir"})
        .axis_str("engine", {"ce", "sm"}, {"ce"})
        .axis_str("numa", {"local", "remote"}, {"local"})
        .axis_pow2("bytes", 12, 30, 2, {std::int64_t{1} << 24})
        .per_device()
        .where(keep_host_device_case)
        .run(run_host_device);

}  // namespace
