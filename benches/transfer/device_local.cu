// transfer/device_local: a copy within one GPU's memory, by copy engine or SM kernel.
#include "benches/memory/peak.h"
#include "benches/transfer/lanes.h"
#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/gpubench.h"

namespace {

using namespace gpubench;
using namespace gpubench::transfer;

constexpr std::uint64_t kSeed = 0x4432440001ull;

void run_device_local(State& s) {
  const int device = s.device();
  const auto bytes = static_cast<std::size_t>(s.get_int("bytes"));
  DeviceBuffer src(bytes), dst(bytes);
  fill_source(src.get(), bytes, kSeed, device);
  poison_destination(dst.get(), bytes, device);

  Lane lane = copy_lane(s.get_str("engine"), device, dst.get(), src.get(), bytes);
  lane.counted_bytes_per_rep = device_local_counted_bytes(bytes);
  lane.metric = "copied_gbps";  // each byte once, as nvbandwidth's device_local_copy counts
  lane.metric_bytes_per_rep = static_cast<double>(bytes);
  // Read plus write traffic is HBM traffic: the peak is HBM's, once both buffers exceed the L2.
  memory::set_hbm_peak(s, device_local_counted_bytes(bytes));

  LaneTimer timer({lane}, Hold::kBlocked);
  measure_lanes(s, timer);
  verify_copy(s, "destination after the copy", dst.get(), bytes, kSeed, device);
}

const auto& device_local_family =
    gpubench::family("transfer/device_local")
        .describe("Copy between two buffers in one GPU's memory: engine ce (cudaMemcpyAsync device to device) or "
                  "sm (copy kernel, 16-byte accesses). bandwidth_gbps counts bytes read plus bytes written (2 x bytes "
                  "per copy, as the STREAM copy counts); copied_gbps counts each byte once (as nvbandwidth's "
                  "device_local_copy and cudaMemcpy figures do). Buffers under the L2 size measure L2, not HBM")
        .axis("engine", {"ce", "sm"})
        .axis_pow2("bytes", 12, 30, 2)
        .quick({std::int64_t{1} << 16, std::int64_t{1} << 26})
        .per_device()
        .run(run_device_local);

}  // namespace
