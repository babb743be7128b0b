#pragma once
// The one primitive for work held behind the blocking kernel (harness/core/blocking_kernel.h):
// each lane's stream is held while a sample is queued (untimed work, start event, the timed
// work, end event), then every lane is released at once, so enqueue cost never enters the timed
// region and the lanes start together (nvbandwidth's method). A lane's time runs from its start
// event to its end event; the span from the first lane's start to the last lane's end.
// State's held samples (queue_samples_behind_blocker), transfer's concurrent copies and the
// launch suite's held chains use it.
//
// Held samples may also be queued several at a time behind one hold (run_queued): a power-capped
// GPU that idles through the host's synchronisation after every sample (1-3 % of a 2 ms sample,
// more on a busy host) clocks higher than under the steady load its figure stands for, and by as
// much as the host's latency varies.
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "harness/core/blocking_kernel.h"
#include "harness/core/streams.h"

namespace gpubench {

enum class Hold {
  // Behind the blocking kernel, released together: for work whose enqueue never waits for the
  // device (kernels, copies between pinned and device memory, peer copies with access enabled).
  kBlocked,
  // Queued as it goes, each lane from its own thread: for paths where the host takes part in
  // every operation (pageable memory; peer copies staged through host memory), which may wait
  // for the stream while enqueueing and would deadlock behind a blocker.
  kUnblocked,
};

struct RegionLane {
  int device = 0;                  // the GPU whose stream runs this lane
  cudaStream_t stream = nullptr;   // null: a stream of the region's own
};

// A blocker gave up before the host finished queueing behind it: the queueing waited for the GPU
// (a launch queue that filled up, a call that synchronises). The GPU then ran the queued work
// as it came, so the samples of that hold are not held samples.
class HoldTimedOut : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HeldRegion {
 public:
  HeldRegion(std::vector<RegionLane> lanes, Hold hold, double blocker_timeout_s = 10.0);
  ~HeldRegion();
  HeldRegion(const HeldRegion&) = delete;
  HeldRegion& operator=(const HeldRegion&) = delete;

  // Queues work of lane `lane` on `stream` (its device current).
  using Enqueue = std::function<void(std::size_t lane, cudaStream_t stream)>;
  struct Times {
    std::vector<double> lane_s;     // per lane, start event to end event
    std::vector<double> enqueue_s;  // per lane, host time of the timed enqueue call alone
    double span_s = 0;              // first start to last end
  };
  // One sample: `untimed` (may be empty) runs before the start events, `timed` between them.
  // `blocked` false runs it without the blocker whatever the hold (a first, loading pass).
  // Throws what the work throws (every lane released), or HoldTimedOut.
  Times run(const Enqueue& untimed, const Enqueue& timed, bool blocked = true);
  // `count` samples of a one-lane blocked region queued behind one hold, each `untimed` then
  // `timed` between its own events; the seconds of each, in order. Throws as run() does.
  std::vector<double> run_queued(int count, const Enqueue& untimed, const Enqueue& timed);

  std::size_t lanes() const { return lanes_.size(); }
  Hold hold() const { return hold_; }

 private:
  struct EventPair {
    cudaEvent_t start = nullptr, end = nullptr;
  };
  void queue_timed(const Enqueue& timed, Times& times);
  void throw_if_timed_out();

  struct Lane {
    int device = 0;
    std::unique_ptr<OwnedStream> owner;
    cudaStream_t stream = nullptr;
    EventPair events;
  };
  std::vector<Lane> lanes_;
  std::vector<EventPair> queued_;  // run_queued's, on the first lane's device
  cudaEvent_t total_end_ = nullptr;  // on the first lane's stream, after every lane's end
  Hold hold_;
  StreamBlocker blocker_;
};

}  // namespace gpubench
