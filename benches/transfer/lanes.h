#pragma once
// Timing copies that run on one or more streams at once (H2D beside D2H, both directions of a
// GPU pair, every pair of an all-to-all), by nvbandwidth's method: each stream is held behind a
// one-thread blocker kernel while the whole sample is queued (warm-up copies, start event, the
// timed copies, end event), then all are released together, so that enqueue cost never enters
// the timed region. A lane's time runs from its start event to its end event; the span runs
// from the first lane's start to the last lane's end.
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/state.h"
#include "harness/core/streams.h"

namespace gpubench::transfer {

// How long a sample should last: long against event resolution (~0.5 us) and a copy's start,
// short enough that the default sweep keeps to its time budget.
constexpr double kSampleTargetS = 2e-3;
// Copies queued behind a blocker per lane and sample: a stream's queue is finite, and a host
// that blocks while enqueueing behind a spinning kernel would wait for the blocker's timeout.
constexpr int kMaxQueuedCopies = 100;
// Copies per sample where nothing blocks (the host takes part in each copy).
constexpr int kMaxHostCopies = 10000;
// Passes over the buffer within one SM copy launch.
constexpr int kMaxKernelReps = 1 << 20;

struct Lane {
  int device = 0;  // the GPU whose stream issues this lane's work
  // Queues `reps` operations on `stream`: reps copies, or one kernel making reps passes.
  std::function<void(cudaStream_t stream, int reps)> enqueue;
  double counted_bytes_per_rep = 0;  // this lane's share of bandwidth_gbps
  std::string metric;                // when set, this lane's own rate is recorded under it
  double metric_bytes_per_rep = 0;   // bytes per rep for that metric; 0: the counted bytes
  bool one_launch = false;           // reps run inside one kernel launch (no queue to fill)
};

// Copies of `bytes` from src to dst issued on `device`, counting `bytes` per rep. Engine "ce":
// cudaMemcpyAsync, its direction taken from the pointers (unified addressing), so the same
// lane serves host<->device, device-local and peer copies. Engine "sm": the copy kernel, all
// reps in one launch, on `blocks` blocks (0: one per SM).
Lane copy_lane(const std::string& engine, int device, void* dst, const void* src, std::size_t bytes, int blocks = 0);

enum class Hold {
  // Behind blockers, released together: for work whose enqueue never waits for the device
  // (copies between pinned and device memory, peer copies with access enabled, kernels).
  kBlocked,
  // Queued as it goes, each lane from its own thread: for paths where the host takes part in
  // every copy (pageable memory; peer copies staged through host memory), which may wait for
  // the stream inside cudaMemcpyAsync and would deadlock behind a blocker.
  kUnblocked,
};

class LaneTimer {
 public:
  LaneTimer(std::vector<Lane> lanes, Hold hold);
  ~LaneTimer();
  LaneTimer(const LaneTimer&) = delete;
  LaneTimer& operator=(const LaneTimer&) = delete;

  // Seconds one rep of every lane takes, unblocked: also the pass that loads whatever the work
  // needs (kernels, the driver's copy paths) before any blocker runs.
  double time_one_rep();
  struct Times {
    std::vector<double> lane_s;  // per lane, start event to end event
    double span_s = 0;           // first start to last end
  };
  Times sample(int reps);

  const std::vector<Lane>& lanes() const { return lanes_; }
  Hold hold() const { return hold_; }
  void set_warmup_reps(int reps) { warmup_reps_ = reps; }

 private:
  Times run(int reps, int warmup_reps, bool blocked);

  struct LaneStream {
    std::unique_ptr<OwnedStream> owner;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, end = nullptr;
  };
  std::vector<Lane> lanes_;
  std::vector<LaneStream> streams_;
  cudaEvent_t total_end_ = nullptr;  // on the first lane's stream, after every lane's end
  Hold hold_;
  volatile int* flags_ = nullptr;  // mapped pinned: [0] release, [1] a blocker timed out
  int warmup_reps_ = 0;
};

// The measured region of a copy case: picks reps per sample for kSampleTargetS (at most
// kMaxKernelReps when every lane is one launch, else kMaxQueuedCopies blocked or
// kMaxHostCopies unblocked), counts the lanes' bytes, records each lane's metric per sample,
// and notes the method in the result.
void measure_lanes(State& s, LaneTimer& timer);

}  // namespace gpubench::transfer
