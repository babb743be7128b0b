// transfer/device_local: a copy within one GPU's memory, by copy engine or SM kernel.
#include "benches/transfer/lanes.h"
#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/gpubench.h"
#include "harness/core/peaks.h"
#include "kernels/copy.cuh"

namespace {

using namespace gpubench;
using namespace gpubench::transfer;

constexpr std::uint64_t kSeed = 0x4432440001ull;

// Both buffers are local: the grid-covering copy kernel, not the persistent one that PCIe and
// NVLink need (on an H200 at 1 GiB the persistent one reached 3.98 TB/s read+write, the CE 4.26).
Lane local_sm_copy_lane(int device, void* dst, const void* src, std::size_t bytes) {
  Lane lane;
  lane.device = device;
  lane.counted_bytes_per_rep = static_cast<double>(bytes);
  lane.enqueue = [=](cudaStream_t stream, int reps) {
    for (int r = 0; r < reps; ++r) kernels::launch_local_copy(dst, src, bytes, stream);
  };
  return lane;
}

void run_device_local(State& s) {
  const int device = s.device();
  const auto bytes = static_cast<std::size_t>(s.get_int("bytes"));
  DeviceBuffer src(bytes), dst(bytes);
  fill_source(src.get(), bytes, kSeed, device);
  poison_destination(dst.get(), bytes, device);

  Lane lane = s.get_str("engine") == "sm" ? local_sm_copy_lane(device, dst.get(), src.get(), bytes)
                                           : copy_lane("ce", device, dst.get(), src.get(), bytes);
  lane.counted_bytes_per_rep = device_local_counted_bytes(bytes);
  lane.metric = "copied_gbps";  // each byte once, as nvbandwidth's device_local_copy counts
  lane.metric_bytes_per_rep = static_cast<double>(bytes);
  // Read plus write traffic is HBM traffic: the peak is HBM's, once both buffers exceed the L2.
  set_hbm_peak(s, device_local_counted_bytes(bytes));

  measure_lanes(s, {lane}, Hold::kBlocked);
  verify_copy(s, "destination after the copy", dst.get(), bytes, kSeed, device);
}

const auto& device_local_family =
    gpubench::family("transfer/device_local")
        .describe("Copy between two buffers in one GPU's memory: engine ce (cudaMemcpyAsync device to device) or "
                  "sm (copy kernel, one 16-byte element per thread over a grid covering the buffer). bandwidth_gbps counts bytes read plus bytes written (2 x bytes "
                  "per copy, as the STREAM copy counts); copied_gbps counts each byte once (as nvbandwidth's "
                  "device_local_copy and cudaMemcpy figures do). Buffers under the L2 size measure L2, not HBM")
        .axis_str("engine", {"ce", "sm"}, {"sm"})
        .axis_pow2("bytes", 12, 30, 2, {std::int64_t{1} << 26})
        .per_device()
        .run(run_device_local);

}  // namespace
