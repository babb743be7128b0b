// launch/stream: what one kernel launch on a stream costs, by kernel shape.
//   figure:enqueue       host time per launch call (<<<>>>), launches not waited for
//   figure:back_to_back  GPU time per kernel when launches run back to back
//   figure:round_trip    host time of launch + cudaStreamSynchronize
#include "benches/launch/launch_common.h"

namespace {

using namespace gpubench::launch;
using gpubench::State;
using gpubench::HeldRegion;
using gpubench::kernels::TinyKernel;

void measure_enqueue(State& s, const TinyKernel& kernel, LaunchLedger& ledger) {
  cudaStream_t stream = s.stream();
  s.note("counts", "host wall time per launch: " + std::to_string(kBackToBackLaunches) +
                       " back-to-back launches on one stream between two readings of the host's steady clock, "
                       "not waited for; the stream is synchronised before and after, outside the timed region. " +
                       std::to_string(kBackToBackLaunches) +
                       " stays well below the ~1000-entry launch queue, so no launch blocks on a full queue");
  s.note("clock", "host");
  s.report_time_as("host_enqueue_us", "us", 1e6);
  s.set_primary_metric("host_enqueue_us");
  // measure_manual: 256 launches per sample is the condition measured (below the launch queue's depth), and the
  // host clock stops before the synchronisation after them.
  s.measure_manual(
      [&] {
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
        const double t0 = host_now_s();
        for (int i = 0; i < kBackToBackLaunches; ++i) kernel.launch(stream);
        const double t1 = host_now_s();
        ledger.add(std::uint64_t{kBackToBackLaunches} * kernel.increment());
        GPUBENCH_CHECK_LAUNCH();
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
        return t1 - t0;
      },
      kBackToBackLaunches);
}

void measure_back_to_back(State& s, const TinyKernel& kernel, LaunchLedger& ledger) {
  cudaStream_t stream = s.stream();
  const auto held = held_worker_stream(s);
  s.note("counts", "GPU time per kernel: " + std::to_string(kBackToBackLaunches) +
                       " launches queued behind a hold kernel and released at once, timed with CUDA events "
                       "around them, so the GPU runs them back to back and the host's enqueue rate stays out");
  s.note("clock", "gpu_events");
  s.report_time_as("gpu_time_per_kernel_us", "us", 1e6);
  s.set_primary_metric("gpu_time_per_kernel_us");
  // measure_manual: 256 launches released at once from one held region is the condition measured (back to back on
  // the GPU); more would fill the launch queue behind the hold.
  s.measure_manual(
      [&] {
        const HeldRegion::Times t = held->run(nullptr, [&](std::size_t, cudaStream_t) {
          for (int i = 0; i < kBackToBackLaunches; ++i) kernel.launch(stream);
        });
        ledger.add(std::uint64_t{kBackToBackLaunches} * kernel.increment());
        return t.lane_s[0];
      },
      kBackToBackLaunches);
}

void measure_round_trip(State& s, const TinyKernel& kernel, LaunchLedger& ledger) {
  cudaStream_t stream = s.stream();
  s.note("counts", "host wall time per round trip: one launch then cudaStreamSynchronize, " +
                       std::to_string(kRoundTripsPerSample) +
                       " round trips per sample; default scheduling flags (launch/sync varies them)");
  s.report_time_as("round_trip_us", "us", 1e6);
  s.set_primary_metric("round_trip_us");
  s.measure_host(
      [&] {
        for (int i = 0; i < kRoundTripsPerSample; ++i) {
          kernel.launch(stream);
          GPUBENCH_CUDA(cudaStreamSynchronize(stream));
        }
        ledger.add(std::uint64_t{kRoundTripsPerSample} * kernel.increment());
        GPUBENCH_CHECK_LAUNCH();
      },
      kRoundTripsPerSample);
}

void run_stream_launch(State& s) {
  enter_process_streams(s);
  const auto kernel = tiny_kernel_from_axes(s);
  LaunchLedger ledger;
  first_launch(*kernel, s.stream(), ledger);
  const std::string& figure = s.get_str("figure");
  if (figure == "enqueue")
    measure_enqueue(s, *kernel, ledger);
  else if (figure == "back_to_back")
    measure_back_to_back(s, *kernel, ledger);
  else
    measure_round_trip(s, *kernel, ledger);
  ledger.verify(s);
}

const auto& stream_launch_family =
    gpubench::family("launch/stream")
        .describe("One kernel launch on a stream. enqueue: host time per <<<>>> launch call, 256 back to back, "
                  "not waited for. back_to_back: GPU time per kernel (events) for 256 launches released at once "
                  "from behind a hold kernel. round_trip: host time of launch + cudaStreamSynchronize. The kernel "
                  "is 128-thread blocks doing nothing (work:none) or spinning 600 SM cycles per block (work:spin, "
                  "~300 ns), with 0-4096 argument bytes, over 1 block or 1 or 4 waves (a wave: SMs x resident "
                  "blocks per SM). Axes vary one at a time from 0 bytes, 1 block. " +
                  std::string(kProcessStreamsDescription))
        .axis_int("process_streams", {1, 2}, {1})
        .axis_str("figure", {"enqueue", "back_to_back", "round_trip"}, {"enqueue"})
        .axis_int("arg_bytes", {0, 64, 256, 1024, 4096}, {0})
        .axis_str("grid", {"1_block", "1_wave", "4_waves"}, {"1_block"})
        .axis_str("work", {"none", "spin"}, {"none"})
        .per_device()
        // Host clocks around driver calls: no NVML polling beside them (telemetry before and after only).
        .quiet_host()
        // Argument size and grid are swept one at a time; work does not change the host's enqueue cost.
        .where([](const gpubench::Params& p) { return p.str("grid") == "1_block" || p.integer("arg_bytes") == 0; })
        .where([](const gpubench::Params& p) { return !(p.str("figure") == "enqueue" && p.str("work") == "spin"); })
        .where(one_stream_or_default_kernel)
        .run(run_stream_launch);

}  // namespace
