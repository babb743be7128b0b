#include "benches/transfer/lanes.h"

#include <algorithm>
#include <stdexcept>

#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/cuda_check.h"
#include "kernels/copy.cuh"

namespace gpubench::transfer {
namespace {

// A blocker gives up after this long: the sample then fails with a message rather than hang.
constexpr double kBlockerTimeoutS = 10;
// Below this per-rep time a blocked sample runs nvbandwidth's four warm-up reps before its
// start event, so the timed copies start on a busy engine; longer copies need none.
constexpr double kWarmupBelowS = 1e-3;
constexpr int kWarmupReps = 4;

std::vector<RegionLane> region_lanes(const std::vector<Lane>& lanes) {
  std::vector<RegionLane> out;
  for (const auto& lane : lanes) out.push_back({lane.device, nullptr});
  return out;
}

}  // namespace

Lane copy_lane(const std::string& engine, int device, void* dst, const void* src, std::size_t bytes, int blocks,
               const kernels::SourceRotation& rotation) {
  Lane lane;
  lane.device = device;
  lane.counted_bytes_per_rep = static_cast<double>(bytes);
  if (engine == "ce") {
    lane.enqueue = [=](cudaStream_t stream, int reps) {
      for (int r = 0; r < reps; ++r) GPUBENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    };
  } else if (engine == "sm") {
    if (blocks <= 0) blocks = kernels::sm_copy_blocks(bytes, sm_count(device));
    lane.one_launch = true;
    lane.enqueue = [=](cudaStream_t stream, int reps) {
      kernels::launch_sm_copy(dst, src, bytes, reps, blocks, stream, rotation);
    };
  } else {
    throw std::invalid_argument("unknown copy engine '" + engine + "' (ce, sm)");
  }
  return lane;
}

void measure_lanes(State& s, const std::vector<Lane>& lanes, Hold hold) {
  HeldRegion region(region_lanes(lanes), hold, kBlockerTimeoutS);
  auto reps_of = [&](int reps) {
    return [&lanes, reps](std::size_t i, cudaStream_t stream) { lanes[i].enqueue(stream, reps); };
  };
  bool one_launch = true;
  for (const auto& lane : lanes) one_launch = one_launch && lane.one_launch;
  BatchRule rule;
  rule.target_s = kSampleTargetS;
  rule.max_ops = one_launch ? kMaxKernelReps : hold == Hold::kBlocked ? kMaxQueuedCopies : kMaxHostCopies;
  // Unblocked, the first rep's time is what every rep costs, enqueue included, and the first
  // call (the harness's probe) loads whatever the copies need (kernels, the driver's copy paths)
  // before any blocker runs. Blocked, it overstates short copies by their enqueue cost: one
  // blocked sample at the first guess refines the batch.
  rule.refine = hold == Hold::kBlocked;

  double counted = 0;
  for (const auto& lane : lanes) {
    counted += lane.counted_bytes_per_rep;
    if (!lane.metric.empty()) s.declare_metric(lane.metric, "GB/s", true);
  }
  s.count_bytes(counted);
  s.note("timing", hold == Hold::kBlocked
                       ? "streams held by the harness's blocking kernel while each sample is queued, then released "
                         "together"
                       : "events around copies queued as they go (the host takes part in each copy)");
  bool first = true;
  HeldRegion::Enqueue warmup;  // decided by the first call
  s.measure_batched(
      [&](int reps) {
        if (first) {
          first = false;
          const double first_s = region.run(nullptr, reps_of(reps), /*blocked=*/false).span_s;
          if (hold == Hold::kBlocked && first_s / reps < kWarmupBelowS) warmup = reps_of(kWarmupReps);
          return first_s;
        }
        const HeldRegion::Times t = region.run(warmup, reps_of(reps));
        for (std::size_t i = 0; i < lanes.size(); ++i) {
          const Lane& lane = lanes[i];
          if (lane.metric.empty()) continue;
          const double bytes = lane.metric_bytes_per_rep > 0 ? lane.metric_bytes_per_rep : lane.counted_bytes_per_rep;
          s.record(lane.metric, bytes * reps / t.lane_s[i] / 1e9);
        }
        return t.span_s;
      },
      rule);
}

}  // namespace gpubench::transfer
