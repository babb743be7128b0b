// launch/sync: what each way of waiting for the GPU costs, under each scheduling flag.
//
// How the flag is varied: the worker's CUDA context already exists when a benchmark starts
// (the harness made it current), and cudaSetDeviceFlags on an initialised device overwrites
// its flags (CUDA >= 11; documented in cuda_runtime_api.h). Each benchmark therefore sets the
// flag it measures, reads it back with cudaGetDeviceFlags (skipping if it did not take), and
// puts the previous flags back at the end, so the other benchmarks of the process (all of them
// under --no-isolate) keep the default. cpu_busy_pct (CPU time of the waiting thread / wall
// time) shows whether the wait spun or slept.
#include "benches/launch/launch_common.h"

namespace {

using namespace gpubench::launch;
using gpubench::State;

// The scheduling flag of one benchmark, on the current device, for the lifetime of the scope.
class SchedFlagsScope {
 public:
  SchedFlagsScope(State& s, unsigned sched) {
    GPUBENCH_CUDA(cudaGetDeviceFlags(&previous_));
    GPUBENCH_CUDA(cudaSetDeviceFlags((previous_ & ~cudaDeviceScheduleMask) | sched));
    unsigned now = 0;
    GPUBENCH_CUDA(cudaGetDeviceFlags(&now));
    if ((now & cudaDeviceScheduleMask) != sched) {
      cudaSetDeviceFlags(previous_);
      s.skip("cudaSetDeviceFlags did not change the scheduling flag of the active context (asked " +
             std::to_string(sched) + ", read back " + std::to_string(now & cudaDeviceScheduleMask) + ")");
    }
    s.note("device_flags_read_back", now);
  }
  ~SchedFlagsScope() { cudaSetDeviceFlags(previous_); }
  SchedFlagsScope(const SchedFlagsScope&) = delete;
  SchedFlagsScope& operator=(const SchedFlagsScope&) = delete;

 private:
  unsigned previous_ = 0;
};

enum class Wait { kStreamSync, kEventSync, kDeviceSync, kEventQueryPoll };

Wait parse_wait(const std::string& name) {
  if (name == "stream_sync") return Wait::kStreamSync;
  if (name == "event_sync") return Wait::kEventSync;
  if (name == "device_sync") return Wait::kDeviceSync;
  if (name == "event_query_poll") return Wait::kEventQueryPoll;
  throw std::invalid_argument("unknown wait '" + name + "'");
}

bool waits_on_event(Wait wait) { return wait == Wait::kEventSync || wait == Wait::kEventQueryPoll; }

void wait_for_gpu(Wait wait, cudaStream_t stream, cudaEvent_t event) {
  switch (wait) {
    case Wait::kStreamSync: GPUBENCH_CUDA(cudaStreamSynchronize(stream)); return;
    case Wait::kEventSync: GPUBENCH_CUDA(cudaEventSynchronize(event)); return;
    case Wait::kDeviceSync: GPUBENCH_CUDA(cudaDeviceSynchronize()); return;
    case Wait::kEventQueryPoll: {
      cudaError_t status;
      while ((status = cudaEventQuery(event)) == cudaErrorNotReady) {
      }
      GPUBENCH_CUDA(status);
      return;
    }
  }
}

void run_sync(State& s) {
  const SchedFlagsScope sched(s, sched_flag(s.get_str("sched")));
  const Wait wait = parse_wait(s.get_str("wait"));
  const std::string& pending = s.get_str("pending");
  cudaStream_t stream = s.stream();
  const gpubench::kernels::TinyKernel empty_kernel(0, gpubench::kernels::TinyWork::kNone, 1);
  const OwnedEvent event(cudaEventDisableTiming);
  LaunchLedger ledger;

  // Every kernel loaded and the event complete before the measurement.
  empty_kernel.launch(stream);
  gpubench::kernels::launch_spin_for_ns(1000, stream);
  GPUBENCH_CHECK_LAUNCH();
  ledger.add(2);
  GPUBENCH_CUDA(cudaEventRecord(event.get(), stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));

  const bool nothing = pending == "nothing", empty = pending == "empty_kernel", record = waits_on_event(wait);
  auto enqueue_pending = [&] {
    if (empty)
      empty_kernel.launch(stream);
    else
      gpubench::kernels::launch_spin_for_ns(kLongKernelNs, stream);
    if (record) GPUBENCH_CUDA(cudaEventRecord(event.get(), stream));
  };
  const int waits = nothing ? kBackToBackLaunches : kRoundTripsPerSample;
  const std::string metric = nothing ? "wait_call_us" : "round_trip_us";
  s.note("counts", nothing ? "host wall time per wait call with nothing pending (the event already complete), " +
                                 std::to_string(waits) + " calls per sample"
                           : "host wall time per round trip: launch of the pending kernel" +
                                 std::string(waits_on_event(wait) ? ", cudaEventRecord" : "") +
                                 " and the wait, " + std::to_string(waits) + " per sample");
  s.report_time_as(metric, "us", 1e6);
  s.set_primary_metric(metric);
  s.declare_metric("cpu_busy_pct", "%", false);
  s.note("clock", "host");
  // measure_manual: a fixed number of waits per sample, with the thread's CPU clock read around the wall clock
  // (cpu_busy_pct); the wait is the quantity, not a batch to size.
  s.measure_manual(
      [&] {
        // The thread's CPU clock is read outside the wall-clock readings: it is a system call.
        const double cpu0 = thread_cpu_s();
        const double t0 = host_now_s();
        for (int i = 0; i < waits; ++i) {
          if (!nothing) enqueue_pending();
          wait_for_gpu(wait, stream, event.get());
        }
        const double t1 = host_now_s();
        s.record("cpu_busy_pct", cpu_busy_pct(thread_cpu_s() - cpu0, t1 - t0));
        if (!nothing) ledger.add(waits);
        GPUBENCH_CHECK_LAUNCH();
        return t1 - t0;
      },
      waits);
  ledger.verify(s);
}

const auto& sync_family =
    gpubench::family("launch/sync")
        .describe("Waiting for the GPU: cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize or a "
                  "cudaEventQuery polling loop, with the context's scheduling flag set to spin, yield or "
                  "blocking-sync (cudaSetDeviceFlags on the running context, read back). pending:nothing times the "
                  "wait call alone; empty_kernel and kernel_50us time launch (+ event record) + wait, a round "
                  "trip. Host wall time; cpu_busy_pct is the waiting thread's CPU time over wall time")
        .axis_str("sched", {"spin", "yield", "blocking"}, {"spin"})
        .axis_str("wait", {"stream_sync", "event_sync", "device_sync", "event_query_poll"}, {"stream_sync"})
        .axis_str("pending", {"nothing", "empty_kernel", "kernel_50us"}, {"empty_kernel"})
        .per_device()
        // Host clocks around driver calls: no NVML polling beside them (telemetry before and after only).
        .quiet_host()
        .run(run_sync);

}  // namespace
