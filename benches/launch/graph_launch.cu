// launch/graph: what a kernel costs as a node of a replayed CUDA graph, next to the same kernel
// launched on a stream in the same sample, and the reduction from one to the other.
#include "benches/launch/launch_common.h"

namespace {

using namespace gpubench::launch;
using gpubench::State;
using gpubench::HeldRegion;

void run_graph_launch(State& s) {
  const int nodes = static_cast<int>(s.get_int("nodes"));
  const int stream_launches = stream_comparison_launches(nodes);
  enter_process_streams(s);
  // Everything runs on the worker stream: a stream made here for the comparison would itself
  // make the process one of two streams. Each sample: the stream launches (held), an untimed
  // replay (held), then the timed replay (held), so the timed replay follows a replay.
  cudaStream_t stream = s.stream();
  const auto kernel = tiny_kernel_from_axes(s);
  LaunchLedger ledger;
  first_launch(*kernel, stream, ledger);

  const ChainGraph graph(*kernel, nodes, ChainGraph::parse_build(s.get_str("build")), stream);
  const GraphExec exec(graph.get());
  exec.launch(stream);  // the first launch uploads the graph (as in the reference); never under a hold
  ledger.add(std::uint64_t(nodes) * kernel->increment());
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));

  s.note("counts",
         "per node of a chain of " + std::to_string(nodes) + " kernel nodes (" + s.get_str("build") +
             "). gpu_time_per_node_us: GPU time of one replay (events), the graph launched behind a hold kernel "
             "and released at once, / nodes. graph_host_launch_per_node_us: host time of the cudaGraphLaunch call "
             "/ nodes. Each sample replays the graph twice this way and times the second, so the timed replay "
             "follows a replay, as replays in a loop do. The stream_* figures time the same kernel launched " +
             std::to_string(stream_launches) +
             " times on the same stream in the same sample, before the two replays, the same way "
             "(held; GPU by events, host by clock); *_reduction_pct = 100 * (1 - graph / stream) per kernel");
  s.note("clock", "gpu_events; *_host_* metrics: host");
  s.report_time_as("gpu_time_per_node_us", "us", 1e6);
  s.set_primary_metric("gpu_time_per_node_us");
  s.declare_metric("graph_host_launch_per_node_us", "us", false);
  s.declare_metric("stream_gpu_time_per_kernel_us", "us", false);
  s.declare_metric("stream_host_enqueue_us", "us", false);
  s.declare_metric("gpu_reduction_pct", "%", true);
  s.declare_metric("host_reduction_pct", "%", true);

  const auto stream_region = held_worker_stream(s), graph_region = held_worker_stream(s);
  auto held_replay = [&] { return graph_region->run(nullptr, [&](std::size_t, cudaStream_t) { exec.launch(stream); }); };
  // measure_manual: each sample times the stream's launches and a graph replay of the same kernel in held regions,
  // side by side; the node count is the axis, not a batch.
  s.measure_manual(
      [&] {
        const HeldRegion::Times on_stream = stream_region->run(nullptr, [&](std::size_t, cudaStream_t) {
          for (int i = 0; i < stream_launches; ++i) kernel->launch(stream);
        });
        held_replay();  // not recorded: the timed replay below follows a replay
        const HeldRegion::Times as_graph = held_replay();
        ledger.add(std::uint64_t(stream_launches + 2 * nodes) * kernel->increment());

        const double stream_gpu = on_stream.lane_s[0] / stream_launches;
        const double stream_host = on_stream.enqueue_s[0] / stream_launches;
        const double graph_gpu = as_graph.lane_s[0] / nodes, graph_host = as_graph.enqueue_s[0] / nodes;
        s.record("graph_host_launch_per_node_us", graph_host * 1e6);
        s.record("stream_gpu_time_per_kernel_us", stream_gpu * 1e6);
        s.record("stream_host_enqueue_us", stream_host * 1e6);
        s.record("gpu_reduction_pct", reduction_pct(stream_gpu, graph_gpu));
        s.record("host_reduction_pct", reduction_pct(stream_host, graph_host));
        return as_graph.lane_s[0];
      },
      nodes);
  ledger.verify(s);
}

const auto& graph_launch_family =
    gpubench::family("launch/graph")
        .describe("Replay of a CUDA graph holding a chain of N launches of the tiny kernel, captured from a stream "
                  "or built with cudaGraphAddKernelNode: GPU time per node (events) and host time of "
                  "cudaGraphLaunch per node (the second of two replays per sample), next to the same kernel "
                  "launched min(N, 256) times on the same stream in the same sample (before the replays); "
                  "gpu_reduction_pct and host_reduction_pct are how much less a kernel costs as a graph node. Both sides run behind a hold "
                  "kernel, so the GPU figures are back to back. " +
                  std::string(kProcessStreamsDescription))
        .axis_int("process_streams", {1, 2}, {1})
        .axis_str("build", {"capture", "explicit"}, {"capture"})
        .axis_int("nodes", {1, 10, 100, 1000}, {1000})
        .axis_int("arg_bytes", {0, 4096}, {0})
        .axis_str("work", {"none", "spin"}, {"none"})
        .per_device()
        // Host clocks around driver calls: no NVML polling beside them (telemetry before and after only).
        .quiet_host()
        // Argument size and work vary one at a time.
        .where([](const gpubench::Params& p) { return p.integer("arg_bytes") == 0 || p.str("work") == "none"; })
        .where(one_stream_or_default_kernel)
        .run(run_graph_launch);

}  // namespace
