#include "harness/core/timed_region.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include "harness/core/cuda_check.h"
#include "harness/core/scoped_device.h"

namespace gpubench {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double elapsed_s(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, from, to));
  return ms * 1e-3;
}

}  // namespace

TimedRegion::TimedRegion(std::vector<RegionLane> lanes, Hold hold, double blocker_timeout_s)
    : hold_(hold), blocker_(blocker_timeout_s) {
  if (lanes.empty()) throw std::logic_error("a timed region needs at least one lane");
  lanes_.resize(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    Lane& lane = lanes_[i];
    lane.device = lanes[i].device;
    ScopedDevice on(lane.device);
    load_blockable_kernels();
    if (lanes[i].stream) {
      lane.stream = lanes[i].stream;
    } else {
      lane.owner = std::make_unique<OwnedStream>();
      lane.stream = lane.owner->get();
    }
    GPUBENCH_CUDA(cudaEventCreate(&lane.start));
    GPUBENCH_CUDA(cudaEventCreate(&lane.end));
  }
  ScopedDevice on(lanes_[0].device);
  GPUBENCH_CUDA(cudaEventCreate(&total_end_));
}

TimedRegion::~TimedRegion() {
  blocker_.release();  // never leave a lane blocked
  for (auto& lane : lanes_) {
    ScopedDevice on(lane.device);
    cudaStreamSynchronize(lane.stream);
    if (lane.start) cudaEventDestroy(lane.start);
    if (lane.end) cudaEventDestroy(lane.end);
  }
  if (total_end_) cudaEventDestroy(total_end_);
}

void TimedRegion::queue_timed(const Enqueue& timed, Times& times) {
  const std::size_t n = lanes_.size();
  times.enqueue_s.assign(n, 0);
  auto queue = [&](std::size_t i) {
    ScopedDevice on(lanes_[i].device);
    const double t0 = now_s();
    timed(i, lanes_[i].stream);
    times.enqueue_s[i] = now_s() - t0;
    GPUBENCH_CUDA(cudaEventRecord(lanes_[i].end, lanes_[i].stream));
  };
  if (hold_ == Hold::kBlocked || n == 1) {
    for (std::size_t i = 0; i < n; ++i) queue(i);
    return;
  }
  // A host-synchronous copy returns only when done; queued from one thread, the lanes would
  // run one after another rather than at once.
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      try {
        queue(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

TimedRegion::Times TimedRegion::run(const Enqueue& untimed, const Enqueue& timed, bool blocked) {
  blocked = blocked && hold_ == Hold::kBlocked;
  const std::size_t n = lanes_.size();
  for (std::size_t i = 0; i < n; ++i) {
    ScopedDevice on(lanes_[i].device);
    if (blocked) blocker_.block(lanes_[i].stream);
    if (untimed) untimed(i, lanes_[i].stream);
  }
  {
    ScopedDevice on(lanes_[0].device);
    GPUBENCH_CUDA(cudaEventRecord(lanes_[0].start, lanes_[0].stream));
  }
  for (std::size_t i = 1; i < n; ++i) {  // every lane starts once the first has
    ScopedDevice on(lanes_[i].device);
    GPUBENCH_CUDA(cudaStreamWaitEvent(lanes_[i].stream, lanes_[0].start, 0));
    GPUBENCH_CUDA(cudaEventRecord(lanes_[i].start, lanes_[i].stream));
  }
  Times times;
  queue_timed(timed, times);
  {
    ScopedDevice on(lanes_[0].device);
    for (std::size_t i = 1; i < n; ++i) GPUBENCH_CUDA(cudaStreamWaitEvent(lanes_[0].stream, lanes_[i].end, 0));
    GPUBENCH_CUDA(cudaEventRecord(total_end_, lanes_[0].stream));
  }
  if (blocked) blocker_.release();
  GPUBENCH_CHECK_LAUNCH();
  GPUBENCH_CUDA(cudaEventSynchronize(total_end_));
  if (blocked && blocker_.timed_out())
    throw std::runtime_error("a stream blocker timed out after " + std::to_string(blocker_.timeout_s()) +
                             " s: queueing the sample did not finish behind it");
  // The span from the first lane's own events where every lane shares its GPU (events of one
  // device compare directly); otherwise through total_end, a few microseconds late from the
  // cross-device waits, as nvbandwidth's total.
  bool one_device = true;
  for (std::size_t i = 0; i < n; ++i) {
    times.lane_s.push_back(elapsed_s(lanes_[i].start, lanes_[i].end));
    one_device = one_device && lanes_[i].device == lanes_[0].device;
    if (one_device) times.span_s = std::max(times.span_s, elapsed_s(lanes_[0].start, lanes_[i].end));
  }
  if (!one_device) times.span_s = elapsed_s(lanes_[0].start, total_end_);
  return times;
}

}  // namespace gpubench
