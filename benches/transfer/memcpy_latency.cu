// transfer/memcpy_latency: how long an application waits for one small copy between host and
// GPU, from the cudaMemcpyAsync call to seeing it complete.
#include "harness/core/host_memory.h"
#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/gpubench.h"
#include "harness/core/host_clock.h"

namespace {

using namespace gpubench;
using namespace gpubench::transfer;

constexpr std::uint64_t kSeed = 0x4C41540001ull;
// Round trips per sample: enough that a sample lasts about this long against the host clock's
// resolution and the harness's per-sample overhead, sized from probes of this many trips.
constexpr double kSampleTargetS = 1e-3;
constexpr int kMaxRoundTrips = 1000;
constexpr int kProbeTrips = 20;

void run_memcpy_latency(State& s) {
  const int device = s.device();
  const bool to_device = s.get_str("dir") == "h2d";
  const HostKind kind = parse_host_kind(s.get_str("host"));
  const auto bytes = static_cast<std::size_t>(s.get_int("bytes"));
  if (bytes % sizeof(std::uint32_t) != 0) s.skip("bytes must be a multiple of 4");

  const HostPlacement placement = place_host_memory(s, "local");
  ScopedCpuAffinity near_gpu(placement.cpu_node);
  HostBuffer host(kind, bytes, placement.memory_node);
  DeviceBuffer gpu(bytes);
  // Pinned memory here is not write-combined, so the CPU reads and writes it as fast as pageable.
  fill_source(to_device ? host.get() : gpu.get(), bytes, kSeed, to_device ? kOnCpu : device);
  poison_destination(to_device ? gpu.get() : host.get(), bytes, to_device ? device : kOnCpu);
  void* dst = to_device ? gpu.get() : host.get();
  const void* src = to_device ? host.get() : gpu.get();

  const cudaStream_t stream = s.stream();
  auto round_trip = [&] {
    GPUBENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  };
  s.report_time_as("latency_us", "us", 1e6);
  s.set_primary_metric("latency_us");
  s.note("clock", "host");
  gpubench::BatchRule rule;
  rule.target_s = kSampleTargetS;
  rule.max_ops = kMaxRoundTrips;
  rule.probes = 2;  // the first loads the copy path
  rule.probe_ops = kProbeTrips;
  s.measure_batched(
      [&](int trips) {
        const double t0 = host_now_s();
        for (int i = 0; i < trips; ++i) round_trip();
        return host_now_s() - t0;
      },
      rule);
  verify_copy(s, to_device ? "device buffer after H2D" : "host buffer after D2H", dst, bytes, kSeed,
              to_device ? device : kOnCpu);
}

const auto& memcpy_latency_family =
    gpubench::family("transfer/memcpy_latency")
        .describe("Time from calling cudaMemcpyAsync to seeing the copy complete (cudaStreamSynchronize), on the host "
                  "clock, for small copies between host memory (pinned or pageable, on the GPU's NUMA node) and the "
                  "GPU: what an application waits for one small transfer. latency_us per copy, averaged over a "
                  "batch of round trips per sample")
        .axis_str("dir", {"h2d", "d2h"}, {"h2d"})
        .axis_str("host", {"pinned", "pageable"}, {"pinned"})
        .axis_int("bytes", memcpy_latency_sizes(), {std::int64_t{4}})
        .per_device()
        .run(run_memcpy_latency);

}  // namespace
