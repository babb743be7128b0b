#pragma once
// Helpers shared by the launch suite's families: the thread's CPU clock, the held worker stream, the launch
// ledger that verifies every counted launch ran, the kernel shape from the axes, and chains of
// kernel nodes as CUDA graphs.
#include <time.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benches/launch/launch_metrics.h"
#include "harness/core/gpubench.h"
#include "harness/core/streams.h"
#include "harness/core/held_region.h"
#include "harness/core/host_clock.h"
#include "kernels/tiny.cuh"

namespace gpubench::launch {

using gpubench::host_now_s;  // the harness's host clock (harness/core/host_clock.h)

// CPU time of the calling thread: tells spinning waits from blocking ones.
inline double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

class OwnedEvent {
 public:
  explicit OwnedEvent(unsigned flags) { GPUBENCH_CUDA(cudaEventCreateWithFlags(&event_, flags)); }
  ~OwnedEvent() { cudaEventDestroy(event_); }
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// A held stream gives up after this long: more than any sample's queueing takes, short enough
// that a host blocked behind it (launch queue full) fails the benchmark quickly.
constexpr double kHoldTimeoutS = 1.0;

// The worker stream as the one lane of a held timed region: launches queued behind the
// harness's blocking kernel and released at once run back to back on the GPU, and the host's
// enqueue time is timed separately. A hold that times out fails the sample.
inline std::unique_ptr<HeldRegion> held_worker_stream(State& s) {
  return std::make_unique<HeldRegion>(std::vector<RegionLane>{{s.device(), s.stream()}}, Hold::kBlocked,
                                       kHoldTimeoutS);
}

// Launch figures depend on the streams the process has made (harness/core/streams.h); noted on
// every launch result so that two runs can be told apart.
inline void note_process_streams(State& s) { s.note("process_streams", streams_created(s.device())); }

// Counts the launches a benchmark makes and checks them against the device's launch counter.
class LaunchLedger {
 public:
  LaunchLedger() { kernels::reset_launch_count(); }
  void add(std::uint64_t count) { expected_ += count; }
  void verify(State& s) const {
    note_process_streams(s);
    const std::uint64_t ran = kernels::launch_count();
    s.verify(ran == expected_, "device counted " + std::to_string(ran) + " kernel increments, expected " +
                                   std::to_string(expected_));
  }

 private:
  std::uint64_t expected_ = 0;
};

// The tiny kernel of the axes arg_bytes, grid and work; a family without one of them gets 0
// bytes, 1 block, no work. Notes the block count and what a wave is on this GPU.
inline std::unique_ptr<kernels::TinyKernel> tiny_kernel_from_axes(State& s) {
  const auto& p = s.params();
  const int arg_bytes = p.has("arg_bytes") ? static_cast<int>(s.get_int("arg_bytes")) : 0;
  const auto work = p.has("work") && s.get_str("work") == "spin" ? kernels::TinyWork::kSpin : kernels::TinyWork::kNone;
  auto kernel = std::make_unique<kernels::TinyKernel>(arg_bytes, work, 1);
  if (p.has("grid")) {
    const int per_sm = kernel->blocks_per_sm();
    const int sms = s.gpu(s.device()).sm_count;
    const auto blocks = grid_blocks(s.get_str("grid"), sms, per_sm);
    kernel = std::make_unique<kernels::TinyKernel>(arg_bytes, work, static_cast<int>(blocks));
    s.note("blocks_per_wave", std::int64_t{sms} * per_sm);
  }
  s.note("kernel", "tiny kernel: " + std::to_string(kernel->blocks()) + " blocks of " +
                       std::to_string(kernels::kTinyBlockThreads) + " threads, " + std::to_string(arg_bytes) +
                       " argument bytes, " +
                       (work == kernels::TinyWork::kSpin
                            ? "each block spins " + std::to_string(kernels::kTinySpinCycles) + " SM cycles"
                            : std::string("no work")) +
                       "; thread 0 of block 0 adds to a launch counter, checked against the launches made");
  return kernel;
}

// The process_streams axis (harness/streams.h says why it matters). 1: the worker stream is the
// only stream the process has made on the GPU, as in a program of one stream; the benchmark is
// skipped if an earlier one in the same worker made another, which is why the axis comes first in
// its families: every process_streams:1 instance then runs before the first process_streams:2 one.
// 2: a second stream has run a batch of launches, as in a program that uses several streams.
inline void enter_process_streams(State& s) {
  s.stream();  // the worker stream counts as the first
  const int wanted = static_cast<int>(s.get_int("process_streams"));
  const int made = streams_created(s.device());
  if (wanted == 1 && made > 1)
    s.skip("this process has already made " + std::to_string(made) +
           " streams on the GPU (an earlier benchmark in the same worker); process_streams:1 needs a process of "
           "one stream: run it alone with --filter");
  if (wanted == 2 && made < 2) {
    // A single launch on the second stream does not change the figures (measured); a batch does.
    const OwnedStream second;
    for (int i = 0; i < kBackToBackLaunches; ++i) kernels::launch_spin_for_ns(0, second.get());
    GPUBENCH_CHECK_LAUNCH();
    GPUBENCH_CUDA(cudaStreamSynchronize(second.get()));
  }
}

// The process_streams axis in a family's description.
inline constexpr const char* kProcessStreamsDescription =
    "process_streams: 1 measures in a process that has made one stream on the GPU, as a one-stream program; 2 after "
    "a second stream has run a batch of 256 launches, as in a program of several streams (on an H200 a graph node "
    "then costs ~0.18 us more)";

// process_streams:2 runs for the default kernel shape only (0 argument bytes, 1 block, no work):
// the second stream's cost shows there.
inline bool one_stream_or_default_kernel(const Params& p) {
  return p.integer("process_streams") == 1 ||
         (p.integer("arg_bytes") == 0 && p.str("work") == "none" && (!p.has("grid") || p.str("grid") == "1_block"));
}

// One launch of the kernel, unheld, before any timed one: the first launch of a kernel pays for
// its loading.
inline void first_launch(const kernels::TinyKernel& kernel, cudaStream_t stream, LaunchLedger& ledger) {
  kernel.launch(stream);
  GPUBENCH_CHECK_LAUNCH();
  ledger.add(kernel.increment());
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
}

// A chain of `nodes` launches of one kernel as a CUDA graph, each node depending on the one
// before (what capturing back-to-back launches on one stream gives).
class ChainGraph {
 public:
  enum class Build { kCapture, kExplicit };
  static Build parse_build(const std::string& name) {
    if (name == "capture") return Build::kCapture;
    if (name == "explicit") return Build::kExplicit;
    throw std::invalid_argument("unknown build '" + name + "' (capture, explicit)");
  }

  ChainGraph(kernels::TinyKernel& kernel, int nodes, Build build, cudaStream_t stream) {
    if (build == Build::kCapture) {
      GPUBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < nodes; ++i) kernel.launch(stream);
      GPUBENCH_CUDA(cudaStreamEndCapture(stream, &graph_));
      GPUBENCH_CHECK_LAUNCH();
      std::size_t count = 0;
      GPUBENCH_CUDA(cudaGraphGetNodes(graph_, nullptr, &count));
      nodes_.resize(count);
      GPUBENCH_CUDA(cudaGraphGetNodes(graph_, nodes_.data(), &count));
    } else {
      GPUBENCH_CUDA(cudaGraphCreate(&graph_, 0));
      const cudaKernelNodeParams params = kernel.node_params();
      for (int i = 0; i < nodes; ++i) {
        cudaGraphNode_t node = nullptr;
        GPUBENCH_CUDA(cudaGraphAddKernelNode(&node, graph_, nodes_.empty() ? nullptr : &nodes_.back(),
                                             nodes_.empty() ? 0 : 1, &params));
        nodes_.push_back(node);
      }
    }
  }
  ~ChainGraph() {
    if (graph_) cudaGraphDestroy(graph_);
  }
  ChainGraph(const ChainGraph&) = delete;
  ChainGraph& operator=(const ChainGraph&) = delete;

  cudaGraph_t get() const { return graph_; }
  // Explicit builds: in chain order. Captured: in the order cudaGraphGetNodes gives.
  const std::vector<cudaGraphNode_t>& nodes() const { return nodes_; }

 private:
  cudaGraph_t graph_ = nullptr;
  std::vector<cudaGraphNode_t> nodes_;
};

// An executable graph, destroyed with its owner.
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraph_t graph) { GPUBENCH_CUDA(cudaGraphInstantiate(&exec_, graph, 0)); }
  ~GraphExec() { reset(); }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  void reset(cudaGraphExec_t exec = nullptr) {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = exec;
  }
  cudaGraphExec_t get() const { return exec_; }
  void launch(cudaStream_t stream) const { GPUBENCH_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gpubench::launch
