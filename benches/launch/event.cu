// launch/event: host cost of cudaEventRecord, and GPU latency of a cross-stream dependency
// (cudaEventRecord on one stream, cudaStreamWaitEvent on another).
#include "benches/launch/launch_common.h"

namespace {

using namespace gpubench::launch;
using gpubench::OwnedStream;
using gpubench::State;
using gpubench::kernels::TinyKernel;

void run_record(State& s, unsigned flags) {
  cudaStream_t stream = s.stream();
  const OwnedEvent event(flags);
  s.note("counts", "host wall time per cudaEventRecord of one event on an idle stream, " +
                       std::to_string(kBackToBackLaunches) +
                       " back to back per sample, not waited for (the stream is synchronised outside the timed "
                       "region)");
  s.note("clock", "host");
  s.report_time_as("record_us", "us", 1e6);
  s.set_primary_metric("record_us");
  // measure_manual: 256 records per sample is the condition measured (each call below the launch queue's depth),
  // and the host clock stops before the synchronisation after them; not a batch to size.
  s.measure_manual(
      [&] {
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
        const double t0 = host_now_s();
        for (int i = 0; i < kBackToBackLaunches; ++i) GPUBENCH_CUDA(cudaEventRecord(event.get(), stream));
        const double t1 = host_now_s();
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
        return t1 - t0;
      },
      kBackToBackLaunches);
  s.verify(cudaEventQuery(event.get()) == cudaSuccess, "the last recorded event did not complete");
}

// A chain of hops that alternate between streams a and b (each hop: wait for the other stream's
// event, run the kernel, record this stream's event), or the same kernels and records on stream
// a alone. Starts and ends on stream a.
void enqueue_chain(const TinyKernel& kernel, cudaStream_t a, cudaStream_t b, cudaEvent_t on_a, cudaEvent_t on_b,
                   bool cross) {
  if (!cross) {
    for (int hop = 0; hop < kHopsPerSample; ++hop) {
      kernel.launch(a);
      GPUBENCH_CUDA(cudaEventRecord(on_a, a));
    }
    return;
  }
  GPUBENCH_CUDA(cudaEventRecord(on_a, a));
  for (int hop = 0; hop < kHopsPerSample; ++hop) {
    const bool to_b = hop % 2 == 0;
    cudaStream_t here = to_b ? b : a;
    GPUBENCH_CUDA(cudaStreamWaitEvent(here, to_b ? on_a : on_b, 0));
    kernel.launch(here);
    GPUBENCH_CUDA(cudaEventRecord(to_b ? on_b : on_a, here));
  }
  static_assert(kHopsPerSample % 2 == 0, "the chain must end on stream a, where the stop event is");
}

void run_cross_stream_wait(State& s) {
  cudaStream_t a = s.stream();
  const OwnedStream b;
  const TinyKernel kernel(0, gpubench::kernels::TinyWork::kNone, 1);
  const OwnedEvent on_a(cudaEventDisableTiming), on_b(cudaEventDisableTiming);
  LaunchLedger ledger;
  first_launch(kernel, a, ledger);
  const auto cross_region = held_worker_stream(s), same_region = held_worker_stream(s);
  s.note("counts", "GPU time per hop of a chain of " + std::to_string(kHopsPerSample) +
                       " hops alternating between two streams (cudaStreamWaitEvent on the other stream's event, "
                       "tiny kernel, cudaEventRecord; events without timing), queued behind a hold kernel and "
                       "timed with events; same_stream_hop_us: the same kernels and records on one stream, in the "
                       "same sample; wait_latency_us = cross - same, the cost of the dependency crossing streams");
  s.note("clock", "gpu_events");
  s.report_time_as("cross_stream_hop_us", "us", 1e6);
  s.declare_metric("same_stream_hop_us", "us", false);
  s.declare_difference_metric("wait_latency_us", "us", false);
  s.set_primary_metric("wait_latency_us");
  // measure_manual: a sample is a fixed chain of hops on two streams in one held region, timed twice (cross and
  // same stream); the hop count is the condition measured.
  s.measure_manual(
      [&] {
        const double cross_s = cross_region->run(nullptr, [&](std::size_t, cudaStream_t) {
          enqueue_chain(kernel, a, b.get(), on_a.get(), on_b.get(), true);
        }).lane_s[0];
        const double same_s = same_region->run(nullptr, [&](std::size_t, cudaStream_t) {
          enqueue_chain(kernel, a, b.get(), on_a.get(), on_b.get(), false);
        }).lane_s[0];
        ledger.add(2 * kHopsPerSample);
        s.record("same_stream_hop_us", same_s / kHopsPerSample * 1e6);
        s.record("wait_latency_us", (cross_s - same_s) / kHopsPerSample * 1e6);
        return cross_s;
      },
      kHopsPerSample);
  ledger.verify(s);
}

const auto& event_family =
    gpubench::family("launch/event")
        .describe("record: host time per cudaEventRecord (events without timing); record_timing: the same with "
                  "timing enabled; cross_stream_wait: GPU latency a cudaStreamWaitEvent dependency adds per hop "
                  "between two streams, from a ping-pong chain of tiny kernels minus the same chain on one stream")
        .axis_str("op", {"record", "record_timing", "cross_stream_wait"}, {"record_timing"})
        .per_device()
        // Host clocks around driver calls: no NVML polling beside them (telemetry before and after only).
        .quiet_host()
        .run([](State& s) {
          const std::string& op = s.get_str("op");
          if (op == "record")
            run_record(s, cudaEventDisableTiming);
          else if (op == "record_timing")
            run_record(s, cudaEventDefault);
          else
            run_cross_stream_wait(s);
        });

}  // namespace
