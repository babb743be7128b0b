#include "benches/transfer/lanes.h"

#include <atomic>
#include <exception>
#include <stdexcept>
#include <thread>

#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/cuda_check.h"
#include "kernels/copy.cuh"

namespace gpubench::transfer {
namespace {

// A blocker gives up after this long: the sample then fails with a message rather than hang.
constexpr std::uint64_t kBlockerTimeoutNs = 10'000'000'000ull;
// Below this per-rep time a blocked sample runs nvbandwidth's four warm-up reps before its
// start event, so the timed copies start on a busy engine; longer copies need none.
constexpr double kWarmupBelowS = 1e-3;
constexpr int kWarmupReps = 4;

}  // namespace

LaneTimer::LaneTimer(std::vector<Lane> lanes, Hold hold) : lanes_(std::move(lanes)), hold_(hold) {
  if (lanes_.empty()) throw std::logic_error("LaneTimer needs at least one lane");
  streams_.resize(lanes_.size());
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    ScopedDevice on(lanes_[i].device);
    // With lazy loading, a kernel's first launch loads its module; under a blocker that deadlocks.
    kernels::preload_copy_kernels();
    GPUBENCH_CUDA(cudaStreamCreateWithFlags(&streams_[i].stream, cudaStreamNonBlocking));
    GPUBENCH_CUDA(cudaEventCreate(&streams_[i].start));
    GPUBENCH_CUDA(cudaEventCreate(&streams_[i].end));
  }
  ScopedDevice on(lanes_[0].device);
  GPUBENCH_CUDA(cudaEventCreate(&total_end_));
  void* flags = nullptr;
  GPUBENCH_CUDA(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocPortable | cudaHostAllocMapped));
  flags_ = static_cast<volatile int*>(flags);
  flags_[0] = 1;
  flags_[1] = 0;
}

LaneTimer::~LaneTimer() {
  if (flags_) flags_[0] = 1;  // never leave a blocker spinning
  for (auto& s : streams_) {
    if (s.stream) cudaStreamSynchronize(s.stream);
    if (s.start) cudaEventDestroy(s.start);
    if (s.end) cudaEventDestroy(s.end);
    if (s.stream) cudaStreamDestroy(s.stream);
  }
  if (total_end_) cudaEventDestroy(total_end_);
  if (flags_) cudaFreeHost(const_cast<int*>(flags_));
}

double LaneTimer::time_one_rep() {
  run(1, 0, false);
  return run(1, 0, false).span_s;
}

LaneTimer::Times LaneTimer::sample(int reps) {
  return run(reps, hold_ == Hold::kBlocked ? warmup_reps_ : 0, hold_ == Hold::kBlocked);
}

LaneTimer::Times LaneTimer::run(int reps, int warmup_reps, bool blocked) {
  const std::size_t n = lanes_.size();
  if (blocked) {
    flags_[0] = 0;
    flags_[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  for (std::size_t i = 0; i < n; ++i) {
    ScopedDevice on(lanes_[i].device);
    if (blocked) kernels::launch_stream_blocker(&flags_[0], const_cast<int*>(&flags_[1]), kBlockerTimeoutNs,
                                                streams_[i].stream);
    if (warmup_reps > 0) lanes_[i].enqueue(streams_[i].stream, warmup_reps);
  }
  {
    ScopedDevice on(lanes_[0].device);
    GPUBENCH_CUDA(cudaEventRecord(streams_[0].start, streams_[0].stream));
  }
  for (std::size_t i = 1; i < n; ++i) {  // every lane starts once the first has
    ScopedDevice on(lanes_[i].device);
    GPUBENCH_CUDA(cudaStreamWaitEvent(streams_[i].stream, streams_[0].start, 0));
    GPUBENCH_CUDA(cudaEventRecord(streams_[i].start, streams_[i].stream));
  }
  auto queue = [&](std::size_t i) {
    ScopedDevice on(lanes_[i].device);
    lanes_[i].enqueue(streams_[i].stream, reps);
    GPUBENCH_CUDA(cudaEventRecord(streams_[i].end, streams_[i].stream));
  };
  if (!blocked && n > 1) {
    // A host-synchronous copy returns only when done; queued from one thread, the lanes
    // would run one after another rather than at once.
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
  } else {
    for (std::size_t i = 0; i < n; ++i) queue(i);
  }
  {
    ScopedDevice on(lanes_[0].device);
    for (std::size_t i = 1; i < n; ++i) GPUBENCH_CUDA(cudaStreamWaitEvent(streams_[0].stream, streams_[i].end, 0));
    GPUBENCH_CUDA(cudaEventRecord(total_end_, streams_[0].stream));
  }
  if (blocked) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    flags_[0] = 1;
  }
  GPUBENCH_CUDA(cudaEventSynchronize(total_end_));
  if (blocked && flags_[1] != 0)
    throw std::runtime_error("a stream blocker timed out after " + std::to_string(kBlockerTimeoutNs / 1'000'000'000) +
                             " s: queueing the sample did not finish behind it");
  Times times;
  for (std::size_t i = 0; i < n; ++i) {
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, streams_[i].start, streams_[i].end));
    times.lane_s.push_back(ms * 1e-3);
  }
  float span_ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&span_ms, streams_[0].start, total_end_));
  times.span_s = span_ms * 1e-3;
  return times;
}

void measure_lanes(State& s, LaneTimer& timer, int max_reps) {
  const double first_s = timer.time_one_rep();
  if (timer.hold() == Hold::kBlocked && first_s < kWarmupBelowS) timer.set_warmup_reps(kWarmupReps);
  // The unblocked rep includes enqueue cost; one sample at the first guess refines it.
  const int guess = reps_for(first_s, kSampleTargetS, max_reps);
  const int reps = reps_for(timer.sample(guess).span_s / guess, kSampleTargetS, max_reps);

  double counted = 0;
  for (const auto& lane : timer.lanes()) {
    counted += lane.counted_bytes_per_rep;
    if (!lane.metric.empty()) s.declare_metric(lane.metric, "GB/s", true);
  }
  s.count_bytes(counted);
  s.note("ops_per_sample", reps);
  s.note("timing", timer.hold() == Hold::kBlocked
                       ? "streams held by a blocker kernel while each sample is queued, then released together"
                       : "events around copies queued as they go (the host takes part in each copy)");
  s.measure_manual(
      [&] {
        const LaneTimer::Times t = timer.sample(reps);
        for (std::size_t i = 0; i < timer.lanes().size(); ++i) {
          const Lane& lane = timer.lanes()[i];
          if (lane.metric.empty()) continue;
          const double bytes = lane.metric_bytes_per_rep > 0 ? lane.metric_bytes_per_rep : lane.counted_bytes_per_rep;
          s.record(lane.metric, bytes * reps / t.lane_s[i] / 1e9);
        }
        return t.span_s;
      },
      reps);
}

}  // namespace gpubench::transfer
