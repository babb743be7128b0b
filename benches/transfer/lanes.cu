#include "benches/transfer/lanes.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <thread>

#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/cuda_check.h"
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
    streams_[i].owner = std::make_unique<OwnedStream>();
    streams_[i].stream = streams_[i].owner->get();
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
  }
  if (total_end_) cudaEventDestroy(total_end_);
  if (flags_) cudaFreeHost(const_cast<int*>(flags_));
}

double LaneTimer::time_one_rep() { return run(1, 0, false).span_s; }

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
  if (hold_ == Hold::kUnblocked && n > 1) {
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
  auto elapsed_s = [](cudaEvent_t from, cudaEvent_t to) {
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, from, to));
    return ms * 1e-3;
  };
  Times times;
  // The span from the first lane's own events where every lane shares its GPU (events of one
  // device compare directly); otherwise through total_end, a few microseconds late from the
  // cross-device waits, as nvbandwidth's total.
  bool one_device = true;
  for (std::size_t i = 0; i < n; ++i) {
    times.lane_s.push_back(elapsed_s(streams_[i].start, streams_[i].end));
    one_device = one_device && lanes_[i].device == lanes_[0].device;
    if (one_device) times.span_s = std::max(times.span_s, elapsed_s(streams_[0].start, streams_[i].end));
  }
  if (!one_device) times.span_s = elapsed_s(streams_[0].start, total_end_);
  return times;
}

Lane copy_lane(const std::string& engine, int device, void* dst, const void* src, std::size_t bytes, int blocks) {
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
      kernels::launch_sm_copy(dst, src, bytes, reps, blocks, stream);
    };
  } else {
    throw std::invalid_argument("unknown copy engine '" + engine + "' (ce, sm)");
  }
  return lane;
}

void measure_lanes(State& s, LaneTimer& timer) {
  bool one_launch = true;
  for (const auto& lane : timer.lanes()) one_launch = one_launch && lane.one_launch;
  const int max_reps = one_launch ? kMaxKernelReps
                       : timer.hold() == Hold::kBlocked ? kMaxQueuedCopies
                                                        : kMaxHostCopies;
  // Unblocked, the first rep's time is what every rep costs, enqueue included. Blocked, it
  // overstates short copies by their enqueue cost: one blocked sample at the first guess
  // refines it (and is the first run of the blocker, now that everything is loaded).
  const double first_s = timer.time_one_rep();
  int reps = reps_for(first_s, kSampleTargetS, max_reps);
  if (timer.hold() == Hold::kBlocked) {
    if (first_s < kWarmupBelowS) timer.set_warmup_reps(kWarmupReps);
    reps = reps_for(timer.sample(reps).span_s / reps, kSampleTargetS, max_reps);
  }

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
