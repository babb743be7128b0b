// launch/graph_update: host cost of making and changing executable graphs: cudaGraphInstantiate,
// cudaGraphExecUpdate and cudaGraphExecKernelNodeSetParams, by graph size.
#include "benches/launch/launch_common.h"

namespace {

using namespace gpubench::launch;
using gpubench::State;
using gpubench::kernels::TinyKernel;
using gpubench::kernels::TinyWork;

// The kernel's argument block: its last word is what each launch adds to the counter, so a
// replay after an update shows which parameters the executable graph holds.
constexpr int kUpdateArgBytes = 64;

// Replays `exec` once and checks that every node ran with the increment it should now hold.
void verify_replay(State& s, const GraphExec& exec, int nodes, unsigned increment, cudaStream_t stream) {
  gpubench::kernels::reset_launch_count();
  exec.launch(stream);
  const std::uint64_t expected = std::uint64_t(nodes) * increment;
  const std::uint64_t got = gpubench::kernels::launch_count();
  s.verify(got == expected, "replay after the last " + s.get_str("op") + " added " + std::to_string(got) +
                                " to the launch counter, expected " + std::to_string(expected));
}

void measure_instantiate(State& s, const ChainGraph& graph, GraphExec& exec) {
  const double nodes = static_cast<double>(graph.nodes().size());
  s.note("counts", "host wall time of one cudaGraphInstantiate of the whole graph (the previous executable graph "
                   "is destroyed outside the timed region); the upload that the first launch or cudaGraphUpload "
                   "does is not included");
  s.report_time_as("instantiate_us", "us", 1e6);
  s.set_primary_metric("instantiate_us");
  s.declare_metric("instantiate_per_node_us", "us", false);
  // measure_manual: one instantiation per sample, the previous executable graph destroyed outside the timed region:
  // the calls cannot run back to back.
  s.measure_manual(
      [&] {
        exec.reset();
        cudaGraphExec_t made = nullptr;
        const double t0 = host_now_s();
        const cudaError_t status = cudaGraphInstantiate(&made, graph.get(), 0);
        const double t1 = host_now_s();
        GPUBENCH_CUDA(status);
        exec.reset(made);
        s.record("instantiate_per_node_us", (t1 - t0) / nodes * 1e6);
        return t1 - t0;
      },
      1);
}

// cudaGraphExecUpdate from two graphs of the same topology whose kernels add 1 and 2, in turn.
// Returns the increment the executable graph holds afterwards.
unsigned measure_exec_update(State& s, TinyKernel& kernel, const ChainGraph& adds_one, GraphExec& exec,
                             cudaStream_t stream) {
  const int nodes = static_cast<int>(adds_one.nodes().size());
  kernel.set_increment(2);
  const ChainGraph adds_two(kernel, nodes, ChainGraph::Build::kExplicit, stream);
  const int updates = updates_per_sample(nodes);
  s.note("counts", "host wall time per cudaGraphExecUpdate of the executable graph from a graph of the same "
                   "topology whose kernel nodes hold other arguments (two such graphs, in turn), " +
                       std::to_string(updates) + " updates per sample");
  s.report_time_as("exec_update_us", "us", 1e6);
  s.set_primary_metric("exec_update_us");
  s.declare_metric("exec_update_per_node_us", "us", false);
  unsigned holds = 1;
  // measure_manual: the updates per sample follow the graph's size (launch_metrics.h), so that every node count is
  // timed over about the same work; a time-based batch would make that depend on the host.
  s.measure_manual(
      [&] {
        const double t0 = host_now_s();
        for (int i = 0; i < updates; ++i) {
          cudaGraphExecUpdateResultInfo info{};
          GPUBENCH_CUDA(cudaGraphExecUpdate(exec.get(), (holds == 1 ? adds_two : adds_one).get(), &info));
          holds = holds == 1 ? 2 : 1;
        }
        const double t1 = host_now_s();
        s.record("exec_update_per_node_us", (t1 - t0) / updates / nodes * 1e6);
        return t1 - t0;
      },
      updates);
  return holds;
}

// cudaGraphExecKernelNodeSetParams on every node, in passes; the increment alternates per pass.
// Returns the increment the executable graph holds afterwards.
unsigned measure_set_params(State& s, TinyKernel& kernel, const ChainGraph& graph, GraphExec& exec) {
  const auto& nodes = graph.nodes();
  const int passes = set_params_passes(static_cast<int>(nodes.size()));
  s.note("counts", "host wall time per cudaGraphExecKernelNodeSetParams call: every kernel node of the executable "
                   "graph given new arguments, one call per node, " +
                       std::to_string(passes) + " pass(es) over the graph per sample");
  s.report_time_as("set_params_us", "us", 1e6);
  s.set_primary_metric("set_params_us");
  // measure_manual: passes per sample follow the graph's size (launch_metrics.h), as for updates.
  s.measure_manual(
      [&] {
        // Refilling the 64-byte argument block between passes is timed too; it is a few ns.
        const double t0 = host_now_s();
        for (int pass = 0; pass < passes; ++pass) {
          kernel.set_increment(kernel.increment() == 1 ? 2 : 1);
          const cudaKernelNodeParams params = kernel.node_params();
          for (cudaGraphNode_t node : nodes) GPUBENCH_CUDA(cudaGraphExecKernelNodeSetParams(exec.get(), node, &params));
        }
        return host_now_s() - t0;
      },
      passes * static_cast<int>(nodes.size()));
  return kernel.increment();
}

void run_graph_update(State& s) {
  const int nodes = static_cast<int>(s.get_int("nodes"));
  const std::string& op = s.get_str("op");
  cudaStream_t stream = s.stream();
  note_process_streams(s);
  TinyKernel kernel(kUpdateArgBytes, TinyWork::kNone, 1, 1);
  const ChainGraph graph(kernel, nodes, ChainGraph::Build::kExplicit, stream);
  GraphExec exec(graph.get());
  s.note("kernel", "tiny kernel: 1 block of " + std::to_string(gpubench::kernels::kTinyBlockThreads) +
                       " threads, " + std::to_string(kUpdateArgBytes) + " argument bytes, graph built with "
                       "cudaGraphAddKernelNode as a chain");
  s.note("clock", "host");
  unsigned holds = 1;
  if (op == "instantiate")
    measure_instantiate(s, graph, exec);
  else if (op == "exec_update")
    holds = measure_exec_update(s, kernel, graph, exec, stream);
  else
    holds = measure_set_params(s, kernel, graph, exec);
  verify_replay(s, exec, nodes, holds, stream);
}

const auto& graph_update_family =
    gpubench::family("launch/graph_update")
        .describe("Host cost of executable-graph maintenance for a chain of N kernel nodes (64-byte arguments): "
                  "cudaGraphInstantiate per graph, cudaGraphExecUpdate per graph (from a same-topology graph with "
                  "other arguments), cudaGraphExecKernelNodeSetParams per node; per-node figures alongside. A "
                  "replay afterwards checks that the graph holds the arguments last set")
        .axis_str("op", {"instantiate", "exec_update", "node_set_params"}, {"exec_update"})
        .axis_int("nodes", {1, 10, 100, 1000}, {100})
        .per_device()
        // Host clocks around driver calls: no NVML polling beside them (telemetry before and after only).
        .quiet_host()
        .run(run_graph_update);

}  // namespace
