#include "harness/core/held_pipeline.h"

#include <algorithm>
#include <stdexcept>

namespace gpubench {

HeldPipeline::HeldPipeline(StreamBlocker& blocker, cudaStream_t stream, int depth)
    : blocker_(blocker), stream_(stream) {
  for (int i = 0; i < std::max(depth, 1); ++i) events_.push_back(std::make_unique<TimingEvents>());
}

double HeldPipeline::next(const std::function<void(cudaStream_t)>& setup, const std::function<void(cudaStream_t)>& op) {
  if (ready_.empty()) enqueue_and_wait(setup, op);
  const double seconds = ready_.front();
  ready_.pop_front();
  return seconds;
}

void HeldPipeline::enqueue_and_wait(const std::function<void(cudaStream_t)>& setup,
                                    const std::function<void(cudaStream_t)>& op) {
  blocker_.block(stream_);
  try {
    for (auto& events : events_) {
      setup(stream_);
      events->record_start(stream_);
      op(stream_);
      events->record_stop(stream_);
    }
  } catch (...) {
    blocker_.release();  // a failed call must not leave the stream held until the timeout
    throw;
  }
  blocker_.release();
  std::deque<double> taken;
  for (auto& events : events_) taken.push_back(events->elapsed_s());
  if (blocker_.timed_out())
    throw std::runtime_error("the stream blocker timed out while a sample was enqueued: the operation waits on "
                             "the host and must not be queued behind it");
  ready_ = std::move(taken);
}

}  // namespace gpubench
