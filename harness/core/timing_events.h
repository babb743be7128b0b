#pragma once
// A start and a stop CUDA event with timing enabled: GPU time of the work enqueued between them.
#include <cuda_runtime_api.h>

#include <functional>

namespace gpubench {

class TimingEvents {
 public:
  TimingEvents();
  ~TimingEvents();
  TimingEvents(const TimingEvents&) = delete;
  TimingEvents& operator=(const TimingEvents&) = delete;

  void record_start(cudaStream_t stream);
  void record_stop(cudaStream_t stream);
  // Waits for the stop event; seconds between the two.
  double elapsed_s();
  // Records start, runs `enqueue`, records stop and returns elapsed_s().
  double time(cudaStream_t stream, const std::function<void()>& enqueue);

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace gpubench
