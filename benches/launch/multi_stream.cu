// launch/multi_stream: the launch rate sustained when several streams launch tiny kernels at once,
// from one host thread or from a thread per stream.
#include <atomic>
#include <thread>

#include "benches/launch/launch_common.h"

namespace {

using namespace gpubench::launch;
using gpubench::OwnedStream;
using gpubench::State;
using gpubench::kernels::TinyKernel;

using Streams = std::vector<std::unique_ptr<OwnedStream>>;

// One thread, round robin over the streams; then waits for all of them.
double sample_one_thread(const TinyKernel& kernel, const Streams& streams, int per_stream) {
  const double t0 = host_now_s();
  for (int i = 0; i < per_stream; ++i)
    for (const auto& stream : streams) kernel.launch(stream->get());
  for (const auto& stream : streams) GPUBENCH_CUDA(cudaStreamSynchronize(stream->get()));
  const double t1 = host_now_s();
  GPUBENCH_CHECK_LAUNCH();
  return t1 - t0;
}

// A thread per stream, started outside the timed region and released together; the sample ends
// when the last thread's stream has finished.
double sample_thread_per_stream(const TinyKernel& kernel, const Streams& streams, int per_stream, int device) {
  const std::size_t n = streams.size();
  std::atomic<bool> go{false};
  std::atomic<std::size_t> ready{0};
  std::vector<double> finished(n, 0);
  std::vector<cudaError_t> errors(n, cudaSuccess);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < n; ++k) {
    threads.emplace_back([&, k] {
      errors[k] = cudaSetDevice(device);  // the current device is per thread
      ++ready;
      while (!go.load(std::memory_order_acquire)) {
      }
      if (errors[k] != cudaSuccess) return;
      for (int i = 0; i < per_stream; ++i) kernel.launch(streams[k]->get());
      errors[k] = cudaGetLastError();
      const cudaError_t synced = cudaStreamSynchronize(streams[k]->get());
      if (errors[k] == cudaSuccess) errors[k] = synced;
      finished[k] = host_now_s();
    });
  }
  while (ready.load() < n) {
  }
  const double t0 = host_now_s();
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  for (cudaError_t e : errors) GPUBENCH_CUDA(e);
  double last = t0;
  for (double t : finished) last = std::max(last, t);
  return last - t0;
}

void run_multi_stream(State& s) {
  const int stream_count = static_cast<int>(s.get_int("streams"));
  const bool thread_per_stream = s.get_str("issuer") == "thread_per_stream";
  const int per_stream = kBackToBackLaunches;
  const std::int64_t total = std::int64_t{per_stream} * stream_count;
  const TinyKernel kernel(0, gpubench::kernels::TinyWork::kNone, 1);
  LaunchLedger ledger;
  Streams streams;
  for (int k = 0; k < stream_count; ++k) {
    streams.push_back(std::make_unique<OwnedStream>());
    kernel.launch(streams.back()->get());  // loads the kernel and starts each stream's channel
  }
  GPUBENCH_CHECK_LAUNCH();
  GPUBENCH_CUDA(cudaDeviceSynchronize());
  ledger.add(stream_count);

  s.note("counts", "kernels completed per second of host wall time: " + std::to_string(per_stream) +
                       " launches of an empty 1-block kernel on each of " + std::to_string(stream_count) +
                       " non-blocking streams, " +
                       (thread_per_stream ? "each stream fed by its own host thread (threads started outside the "
                                            "timed region, released together)"
                                          : std::string("fed round robin by one host thread")) +
                       ", from the first launch until every stream is synchronised. time_us is wall time per "
                       "launch. Streams beyond CUDA_DEVICE_MAX_CONNECTIONS (default 8) share hardware queues");
  s.note("clock", "host");
  s.declare_metric("launches_per_s", "1/s", true);
  s.set_primary_metric("launches_per_s");
  // measure_manual: 256 launches per stream from one thread or one per stream is the condition measured, the host
  // clock around all of them.
  s.measure_manual(
      [&] {
        const double seconds = thread_per_stream
                                   ? sample_thread_per_stream(kernel, streams, per_stream, s.device())
                                   : sample_one_thread(kernel, streams, per_stream);
        ledger.add(total);
        s.record("launches_per_s", launches_per_s(total, seconds));
        return seconds;
      },
      static_cast<int>(total));
  ledger.verify(s);
}

const auto& multi_stream_family =
    gpubench::family("launch/multi_stream")
        .describe("Sustained launch rate of an empty 1-block kernel over N streams at once (256 launches each), "
                  "fed by one host thread round robin or by one host thread per stream: kernels per second of "
                  "host wall time until all streams are synchronised")
        .axis_str("issuer", {"one_thread", "thread_per_stream"}, {"one_thread"})
        .axis_int("streams", {1, 2, 4, 8, 16}, {8})
        .per_device()
        // Host clocks around driver calls: no NVML polling beside them (telemetry before and after only).
        .quiet_host()
        // With one stream both issuers are the same measurement.
        .where([](const gpubench::Params& p) {
          return p.str("issuer") == "one_thread" || p.integer("streams") > 1;
        })
        .run(run_multi_stream);

}  // namespace
