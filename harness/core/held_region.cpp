#include "harness/core/held_region.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include "harness/core/cuda_check.h"
#include "harness/core/host_clock.h"
#include "harness/core/scoped_device.h"

namespace gpubench {
namespace {

double elapsed_s(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, from, to));
  return ms * 1e-3;
}

}  // namespace

HeldRegion::HeldRegion(std::vector<RegionLane> lanes, Hold hold, double blocker_timeout_s)
    : hold_(hold), blocker_(blocker_timeout_s) {
  if (lanes.empty()) throw std::logic_error("a held region needs at least one lane");
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
    GPUBENCH_CUDA(cudaEventCreate(&lane.events.start));
    GPUBENCH_CUDA(cudaEventCreate(&lane.events.end));
  }
  ScopedDevice on(lanes_[0].device);
  GPUBENCH_CUDA(cudaEventCreate(&total_end_));
}

HeldRegion::~HeldRegion() {
  blocker_.release();  // never leave a lane blocked
  for (auto& lane : lanes_) {
    ScopedDevice on(lane.device);
    cudaStreamSynchronize(lane.stream);
    if (lane.events.start) cudaEventDestroy(lane.events.start);
    if (lane.events.end) cudaEventDestroy(lane.events.end);
  }
  ScopedDevice on(lanes_[0].device);
  for (auto& pair : queued_) {
    cudaEventDestroy(pair.start);
    cudaEventDestroy(pair.end);
  }
  if (total_end_) cudaEventDestroy(total_end_);
}

void HeldRegion::queue_timed(const Enqueue& timed, Times& times) {
  const std::size_t n = lanes_.size();
  times.enqueue_s.assign(n, 0);
  auto queue = [&](std::size_t i) {
    ScopedDevice on(lanes_[i].device);
    const double t0 = host_now_s();
    timed(i, lanes_[i].stream);
    times.enqueue_s[i] = host_now_s() - t0;
    GPUBENCH_CUDA(cudaEventRecord(lanes_[i].events.end, lanes_[i].stream));
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

HeldRegion::Times HeldRegion::run(const Enqueue& untimed, const Enqueue& timed, bool blocked) {
  blocked = blocked && hold_ == Hold::kBlocked;
  const std::size_t n = lanes_.size();
  Times times;
  try {
    for (std::size_t i = 0; i < n; ++i) {
      ScopedDevice on(lanes_[i].device);
      if (blocked) blocker_.block(lanes_[i].stream);
      if (untimed) untimed(i, lanes_[i].stream);
    }
    {
      ScopedDevice on(lanes_[0].device);
      GPUBENCH_CUDA(cudaEventRecord(lanes_[0].events.start, lanes_[0].stream));
    }
    for (std::size_t i = 1; i < n; ++i) {  // every lane starts once the first has
      ScopedDevice on(lanes_[i].device);
      GPUBENCH_CUDA(cudaStreamWaitEvent(lanes_[i].stream, lanes_[0].events.start, 0));
      GPUBENCH_CUDA(cudaEventRecord(lanes_[i].events.start, lanes_[i].stream));
    }
    queue_timed(timed, times);
    ScopedDevice on(lanes_[0].device);
    for (std::size_t i = 1; i < n; ++i) GPUBENCH_CUDA(cudaStreamWaitEvent(lanes_[0].stream, lanes_[i].events.end, 0));
    GPUBENCH_CUDA(cudaEventRecord(total_end_, lanes_[0].stream));
  } catch (...) {
    if (blocked) blocker_.release();  // a failed call must not leave a lane held until the timeout
    throw;
  }
  if (blocked) blocker_.release();
  GPUBENCH_CHECK_LAUNCH();
  GPUBENCH_CUDA(cudaEventSynchronize(total_end_));
  if (blocked) throw_if_timed_out();
  // The span from the first lane's own events where every lane shares its GPU (events of one
  // device compare directly); otherwise through total_end, a few microseconds late from the
  // cross-device waits, as nvbandwidth's total.
  bool one_device = true;
  for (std::size_t i = 0; i < n; ++i) {
    times.lane_s.push_back(elapsed_s(lanes_[i].events.start, lanes_[i].events.end));
    one_device = one_device && lanes_[i].device == lanes_[0].device;
    if (one_device) times.span_s = std::max(times.span_s, elapsed_s(lanes_[0].events.start, lanes_[i].events.end));
  }
  if (!one_device) times.span_s = elapsed_s(lanes_[0].events.start, total_end_);
  return times;
}

std::vector<double> HeldRegion::run_queued(int count, const Enqueue& untimed, const Enqueue& timed) {
  if (lanes_.size() != 1 || hold_ != Hold::kBlocked)
    throw std::logic_error("run_queued() needs a region of one blocked lane");
  const Lane& lane = lanes_[0];
  ScopedDevice on(lane.device);
  while (queued_.size() < static_cast<std::size_t>(std::max(count, 1))) {
    EventPair pair;
    GPUBENCH_CUDA(cudaEventCreate(&pair.start));
    GPUBENCH_CUDA(cudaEventCreate(&pair.end));
    queued_.push_back(pair);
  }
  blocker_.block(lane.stream);
  try {
    for (int i = 0; i < std::max(count, 1); ++i) {
      if (untimed) untimed(0, lane.stream);
      GPUBENCH_CUDA(cudaEventRecord(queued_[i].start, lane.stream));
      timed(0, lane.stream);
      GPUBENCH_CUDA(cudaEventRecord(queued_[i].end, lane.stream));
    }
  } catch (...) {
    blocker_.release();
    throw;
  }
  blocker_.release();
  std::vector<double> seconds;
  for (int i = 0; i < std::max(count, 1); ++i) {
    GPUBENCH_CUDA(cudaEventSynchronize(queued_[i].end));
    seconds.push_back(elapsed_s(queued_[i].start, queued_[i].end));
  }
  throw_if_timed_out();
  return seconds;
}

void HeldRegion::throw_if_timed_out() {
  if (!blocker_.timed_out()) return;
  blocker_.forget_timeout();  // every blocker has finished: the region's next hold starts afresh
  throw HoldTimedOut("a stream blocker timed out after " + std::to_string(blocker_.timeout_s()) +
                     " s: queueing the sample did not finish behind it (work that waits on the host must not be held)");
}

}  // namespace gpubench
