// scenarios/host_feed: is the input pipeline starving the GPU? Batches copied from host memory
// while a kernel of set arithmetic intensity consumes them, 1 to 4 buffers in flight on their
// own streams, against the same copies alone and the same compute alone.
#include <memory>
#include <vector>

#include "benches/scenarios/feed_arithmetic.h"
#include "harness/core/gpubench.h"
#include "harness/core/host_memory.h"
#include "harness/core/streams.h"
#include "kernels/feed_consumer.cuh"

namespace {

using namespace gpubench;
using scenarios::FeedTimes;

constexpr std::size_t kBatchBytes = std::size_t{16} << 20;  // well past the size where a copy reaches link speed
constexpr int kBatches = 8;                                  // per sample, spread over the buffers
constexpr std::size_t kBatchElements = kBatchBytes / 16;
constexpr std::uint64_t kSeed = 0xfeed;

// What a sample does: the same batches copied and consumed, or one of the two alone.
enum class Part { kFed, kCopyOnly, kComputeOnly };

class FeedPipeline {
 public:
  FeedPipeline(State& s, HostBuffer& host, int buffers, int chain) : host_(host), consumer_(s.device()), chain_(chain) {
    kernels::fill_feed_batch_host(static_cast<float*>(host_.get()), kBatches * kBatchBytes / sizeof(float), kSeed);
    for (int b = 0; b < buffers; ++b) {
      if (b > 0) owned_.push_back(std::make_unique<OwnedStream>());
      streams_.push_back(b == 0 ? s.stream() : owned_.back()->get());
      device_.emplace_back(kBatchBytes);
      out_.emplace_back(consumer_.threads() * sizeof(float));
      done_.push_back(nullptr);
      GPUBENCH_CUDA(cudaEventCreateWithFlags(&done_.back(), cudaEventDisableTiming));
    }
    GPUBENCH_CUDA(cudaEventCreate(&start_));
    GPUBENCH_CUDA(cudaEventCreate(&end_));
  }
  ~FeedPipeline() {
    for (cudaEvent_t e : done_) cudaEventDestroy(e);
    cudaEventDestroy(start_);
    cudaEventDestroy(end_);
  }

  // Seconds from the first copy queued to the last batch consumed, on every stream.
  double run(Part part) {
    GPUBENCH_CUDA(cudaEventRecord(start_, streams_[0]));
    for (std::size_t b = 1; b < streams_.size(); ++b) GPUBENCH_CUDA(cudaStreamWaitEvent(streams_[b], start_));
    for (int i = 0; i < kBatches; ++i) {
      const std::size_t b = i % streams_.size();
      const char* source = static_cast<const char*>(host_.get()) + i * kBatchBytes;
      if (part != Part::kComputeOnly)
        GPUBENCH_CUDA(cudaMemcpyAsync(device_[b].get(), source, kBatchBytes, cudaMemcpyHostToDevice, streams_[b]));
      if (part != Part::kCopyOnly)
        consumer_.launch(device_[b].as<float>(), kBatchElements, chain_, out_[b].as<float>(), streams_[b]);
    }
    GPUBENCH_CHECK_LAUNCH();
    for (std::size_t b = 1; b < streams_.size(); ++b) {
      GPUBENCH_CUDA(cudaEventRecord(done_[b], streams_[b]));
      GPUBENCH_CUDA(cudaStreamWaitEvent(streams_[0], done_[b]));
    }
    GPUBENCH_CUDA(cudaEventRecord(end_, streams_[0]));
    GPUBENCH_CUDA(cudaEventSynchronize(end_));
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, start_, end_));
    return ms * 1e-3;
  }

  // Each buffer's last sum against the CPU's over the batch it last held.
  std::string check() const {
    std::size_t wrong = 0;
    for (std::size_t b = 0; b < streams_.size(); ++b) {
      const int last = static_cast<int>(((kBatches - 1 - b) / streams_.size()) * streams_.size() + b);
      const auto* batch = reinterpret_cast<const float*>(static_cast<const char*>(host_.get()) + last * kBatchBytes);
      wrong += kernels::count_feed_mismatches(out_[b].as<float>(), consumer_.threads(), batch, kBatchElements, chain_, 8);
    }
    return wrong == 0 ? "" : std::to_string(wrong) + " sampled threads' sums differ from the CPU's";
  }

 private:
  HostBuffer& host_;
  kernels::FeedConsumer consumer_;
  int chain_;
  std::vector<std::unique_ptr<OwnedStream>> owned_;
  std::vector<cudaStream_t> streams_;
  std::vector<DeviceBuffer> device_, out_;
  std::vector<cudaEvent_t> done_;
  cudaEvent_t start_ = nullptr, end_ = nullptr;
};

void run_host_feed(State& s) {
  const HostKind host = parse_host_kind(s.get_str("host"));
  const int buffers = static_cast<int>(s.get_int("buffers"));
  const int chain = static_cast<int>(2 * s.get_int("flop_per_byte"));
  const HostPlacement placement = place_host_memory(s, "local");
  ScopedCpuAffinity near_gpu(placement.cpu_node);
  FeedPipeline pipeline(s, cached_host_buffer(host, placement.memory_node, 0, kBatches * kBatchBytes), buffers, chain);
  const double flops = kBatches * kBatchElements * kernels::feed_flop_per_element(chain);
  s.count_flops(flops);
  s.declare_metric("compute_alone_tflops", "TFLOP/s", true);
  s.declare_metric("link_gbps", "GB/s", true);
  s.declare_metric("fed_ratio", "", true);
  s.declare_metric("overlap_pct", "%", true);
  s.declare_metric("crossover_flop_per_byte", "FLOP/B", false);
  // measure_manual: a sample is the whole pipeline of kBatches batches, fed, beside the same
  // batches copied alone and computed alone, so that the three share the stopping rule.
  s.measure_manual([&] {
    FeedTimes t;
    t.fed_s = pipeline.run(Part::kFed);
    t.copy_s = pipeline.run(Part::kCopyOnly);
    t.compute_s = pipeline.run(Part::kComputeOnly);
    const double link = kBatches * kBatchBytes / t.copy_s, compute = flops / t.compute_s;
    s.record("compute_alone_tflops", compute * 1e-12);
    s.record("link_gbps", link * 1e-9);
    s.record("fed_ratio", scenarios::fed_ratio(t));
    s.record("overlap_pct", scenarios::overlap_pct(t));
    s.record("crossover_flop_per_byte", scenarios::crossover_flop_per_byte(compute, link));
    return t.fed_s;
  });
  pipeline.run(Part::kFed);
  const std::string problem = pipeline.check();
  s.verify(problem.empty(), problem);
}

const auto& host_feed_family =
    family("scenarios/host_feed")
        .describe("A GPU fed from host memory: 8 batches of 16 MiB copied host to device (cudaMemcpyAsync from "
                  "pinned or pageable memory, near the GPU's CPUs), each consumed by an FP32 kernel doing "
                  "flop_per_byte FLOP per byte copied; batch i uses buffer i % buffers on that buffer's stream, so "
                  "with 2 or more the copy of one batch overlaps the compute of another. Each sample also times the "
                  "same batches copied alone (link_gbps: the transfer suite's host_device h2d figure at this size "
                  "and host memory) and computed alone (compute_alone_tflops). tflops: the fed pipeline's rate; "
                  "fed_ratio = compute alone / fed time; overlap_pct = (copy + compute - fed) / the shorter of the "
                  "two; crossover_flop_per_byte = compute_alone_tflops x 1000 / link_gbps, the intensity below "
                  "which the host link and not the GPU sets the pace (then tflops is at most link_gbps x "
                  "flop_per_byte / 1000)")
        .axis_str("host", {"pinned", "pageable"}, {"pinned"})
        .axis_int("buffers", {1, 2, 4}, {2})
        .axis_int("flop_per_byte", {64, 256, 1024, 4096}, {1024})
        .per_device()
        .run(run_host_feed);

}  // namespace
