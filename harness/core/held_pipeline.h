#pragma once
// Samples queued behind a blocking kernel a few at a time, each between its own events: the host's
// cost of enqueuing them is not timed, and the GPU runs them back to back. A power-capped GPU
// that idles through the host's synchronisation after every sample (1-3 % of a 2 ms sample, more
// on a busy host) clocks higher than under the steady load its figure stands for, and by as much
// as the host's latency varies.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "harness/core/blocking_kernel.h"
#include "harness/core/timing_events.h"

namespace gpubench {

class HeldPipeline {
 public:
  // `depth` samples are enqueued behind each hold of `blocker` on `stream`.
  HeldPipeline(StreamBlocker& blocker, cudaStream_t stream, int depth);

  // The next sample's seconds. When none is left, `depth` more are enqueued behind the blocker,
  // each `setup` then `op` between its events, and waited for; throws what `op` throws (the
  // stream released) or where the blocker timed out while they were enqueued.
  double next(const std::function<void(cudaStream_t)>& setup, const std::function<void(cudaStream_t)>& op);
  std::size_t pending() const { return ready_.size(); }  // samples taken and not yet returned

 private:
  void enqueue_and_wait(const std::function<void(cudaStream_t)>& setup, const std::function<void(cudaStream_t)>& op);

  StreamBlocker& blocker_;
  cudaStream_t stream_;
  std::vector<std::unique_ptr<TimingEvents>> events_;
  std::deque<double> ready_;  // seconds of samples taken and not yet returned
};

}  // namespace gpubench
