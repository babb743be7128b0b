#include "harness/core/timing_events.h"

#include "harness/core/cuda_check.h"

namespace gpubench {

TimingEvents::TimingEvents() {
  GPUBENCH_CUDA(cudaEventCreate(&start_));
  GPUBENCH_CUDA(cudaEventCreate(&stop_));
}

TimingEvents::~TimingEvents() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void TimingEvents::record_start(cudaStream_t stream) { GPUBENCH_CUDA(cudaEventRecord(start_, stream)); }

void TimingEvents::record_stop(cudaStream_t stream) { GPUBENCH_CUDA(cudaEventRecord(stop_, stream)); }

double TimingEvents::elapsed_s() {
  GPUBENCH_CUDA(cudaEventSynchronize(stop_));
  float ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return 1e-3 * ms;
}

double TimingEvents::time(cudaStream_t stream, const std::function<void()>& enqueue) {
  record_start(stream);
  enqueue();
  record_stop(stream);
  return elapsed_s();
}

}  // namespace gpubench
