// scenarios/many_processes: do many small processes share a GPU well? K processes (gpubench
// itself, `--child launch_client`) each launching small kernels back to back on one GPU, their
// aggregate kernel rate, without MPS and with it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "benches/scenarios/mps_daemon.h"
#include "harness/core/child_process.h"
#include "harness/core/gpubench.h"
#include "kernels/tiny.cuh"

namespace {

using namespace gpubench;

constexpr int kKernelsPerRound = 2000;  // per process and sample
constexpr int kClientBlocks = 4;        // the tiny kernel with its spin: a few microseconds of a few SMs
constexpr double kStartTimeoutS = 60, kRoundTimeoutS = 30;

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // one clock for every process of the machine
  return std::int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

// The client: on device `args[0]`, says "ready", then for each "go" on stdin launches
// kKernelsPerRound kernels, waits for them and says "done <start ns> <end ns>"; at "quit" (or
// the end of stdin) says "count <device counter> <launched>" and exits 0 when they agree.
int launch_client(const std::vector<std::string>& args) {
  try {
    GPUBENCH_CUDA(cudaSetDevice(args.empty() ? 0 : std::stoi(args[0])));
    cudaStream_t stream = nullptr;
    GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const kernels::TinyKernel kernel(0, kernels::TinyWork::kSpin, kClientBlocks);
    kernels::reset_launch_count();
    std::uint64_t launched = 0;
    const auto round = [&] {
      for (int i = 0; i < kKernelsPerRound; ++i) kernel.launch(stream);
      GPUBENCH_CUDA(cudaGetLastError());
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      launched += kKernelsPerRound;
    };
    round();  // warm-up
    std::printf("ready\n");
    std::fflush(stdout);
    for (std::string line; std::getline(std::cin, line) && line == "go";) {
      const std::int64_t start = monotonic_ns();
      round();
      std::printf("done %lld %lld\n", static_cast<long long>(start), static_cast<long long>(monotonic_ns()));
      std::fflush(stdout);
    }
    const std::uint64_t counted = kernels::launch_count();
    std::printf("count %llu %llu\n", static_cast<unsigned long long>(counted), static_cast<unsigned long long>(launched));
    std::fflush(stdout);
    return counted == launched ? 0 : 1;
  } catch (const std::exception& error) {
    std::printf("error %s\n", error.what());
    std::fflush(stdout);
    return 1;
  }
}

const bool client_registered = register_child_entry("launch_client", launch_client);

// An empty directory for the clients' MPS pipe, so that they cannot find a daemon; removed after.
class EmptyPipeDirectory {
 public:
  EmptyPipeDirectory() {
    if (!mkdtemp(path_)) throw std::runtime_error("cannot make an empty MPS pipe directory");
  }
  ~EmptyPipeDirectory() { rmdir(path_); }
  EmptyPipeDirectory(const EmptyPipeDirectory&) = delete;
  EmptyPipeDirectory& operator=(const EmptyPipeDirectory&) = delete;
  std::string path() const { return path_; }

 private:
  char path_[32] = "/tmp/gpubench-no-mps-XXXXXX";
};

class Clients {
 public:
  Clients(int count, const std::string& device, const std::map<std::string, std::string>& environment) {
    for (int i = 0; i < count; ++i) processes_.push_back(ChildProcess::of_self("launch_client", {device}, environment));
    for (std::size_t i = 0; i < processes_.size(); ++i) {
      const auto line = processes_[i].read_line(kStartTimeoutS);
      if (line != "ready") throw std::runtime_error("client " + std::to_string(i) + " did not start: " + said(line));
    }
  }

  // One sample: every client's round at once; seconds from the first start to the last end.
  double round() {
    for (ChildProcess& p : processes_) p.write_line("go");
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    for (std::size_t i = 0; i < processes_.size(); ++i) {
      const auto line = processes_[i].read_line(kRoundTimeoutS);
      long long start = 0, end = 0;
      if (!line || std::sscanf(line->c_str(), "done %lld %lld", &start, &end) != 2)
        throw std::runtime_error("client " + std::to_string(i) + " did not finish its round: " + said(line));
      first = std::min<std::int64_t>(first, start);
      last = std::max<std::int64_t>(last, end);
    }
    return (last - first) * 1e-9;
  }

  // Ends every client; what went wrong with their counts, or empty.
  std::string finish() {
    std::string problem;
    for (std::size_t i = 0; i < processes_.size(); ++i) {
      processes_[i].write_line("quit");
      const auto line = processes_[i].read_line(kRoundTimeoutS);
      const int status = processes_[i].wait(kRoundTimeoutS);
      if (status != 0) problem += "client " + std::to_string(i) + ": " + said(line) + "; ";
    }
    return problem;
  }

 private:
  static std::string said(const std::optional<std::string>& line) { return line ? "'" + *line + "'" : "nothing"; }
  std::vector<ChildProcess> processes_;
};

void run_many_processes(State& s) {
  const int count = static_cast<int>(s.get_int("processes"));
  const std::string mps = s.get_str("mps");
  const GpuInfo& gpu = s.gpu(s.device());
  // The clients see this GPU alone, as device 0: the same GPU with MPS or without, in node mode too.
  std::map<std::string, std::string> environment;
  std::string device = std::to_string(s.device());
  if (!gpu.uuid.empty()) environment["CUDA_VISIBLE_DEVICES"] = gpu.uuid, device = "0";
  if (gpu.mig_mode.value_or(false)) s.note("mig", "MIG mode is on: the clients share the GPU instance gpubench runs on");
  std::optional<scenarios::PrivateMpsDaemon> daemon;
  std::optional<EmptyPipeDirectory> empty;
  const std::string node_pipe = scenarios::default_mps_pipe_directory();
  if (mps == "off") {
    empty.emplace();
    for (const auto& [name, value] : scenarios::without_mps_environment(empty->path())) environment[name] = value;
  } else if (!scenarios::mps_daemon_listens(node_pipe) && mps == "node") {
    s.skip("no MPS control daemon runs on this node (no socket " + node_pipe +
           "/control); mps:private, chosen in --config, starts one for this family alone");
  } else if (mps == "private") {
    if (scenarios::mps_daemon_listens(node_pipe))
      s.skip("the node runs an MPS control daemon (" + node_pipe + "): mps:node measures with it; no second one");
    try {
      daemon.emplace();
    } catch (const std::exception& error) {
      s.skip(error.what());
    }
    for (const auto& [name, value] : daemon->client_environment()) environment[name] = value;
  }
  s.note("mps", mps == "off" ? "none: the clients' MPS pipe directory is empty"
                : mps == "node" ? "the node's control daemon, " + node_pipe
                                : "a private control daemon, " + daemon->pipe_directory());
  Clients clients(count, device, environment);
  s.declare_metric("kernels_per_s", "kernels/s", true);
  s.set_primary_metric("kernels_per_s");
  // measure_manual: a sample is one round of every client, kKernelsPerRound kernels each.
  s.measure_manual(
      [&] {
        const double span = clients.round();
        s.record("kernels_per_s", count * kKernelsPerRound / span);
        return span;
      },
      count * kKernelsPerRound);
  if (mps != "off") {
    // Asked while the clients still run: a client that found no daemon would run without MPS.
    const auto servers = scenarios::mps_server_list(daemon ? daemon->pipe_directory() : node_pipe);
    s.note("mps_servers", servers);
    s.verify(!servers.empty(), "the daemon runs no MPS server while the clients run, so they did not use MPS" +
                                   (daemon ? " (daemon log: " + daemon->log_tail() + ")" : std::string()));
  }
  const std::string problem = clients.finish();
  s.verify(problem.empty(), problem);
  if (daemon) {
    const bool stopped = daemon->stop();
    s.note("mps_daemon", stopped ? "stopped after the family, its process ended" : "did not stop");
    s.verify(stopped, "the private MPS daemon did not stop (its directory " + daemon->pipe_directory() + " is left)");
  }
}

const auto& many_processes_family =
    family("scenarios/many_processes")
        .describe("K processes (gpubench --child launch_client) on one GPU, each launching 2000 small kernels (4 "
                  "blocks of 128 threads, about 300 ns of spin each) back to back per sample, all started together "
                  "(one monotonic clock for every process); kernels_per_s: all their kernels over the span from "
                  "the first start to the last end; each process's device counter verifies its launches. mps off: "
                  "the clients' MPS pipe directory is empty, so they time-slice the GPU; node: the node's running "
                  "control daemon (skipped where none runs); private (chosen in --config only): a control daemon "
                  "started for this family alone with its own pipe and log directories and stopped after it. A "
                  "node's own daemon is never stopped or reconfigured; MIG mode is shown in the context")
        .axis_int("processes", {1, 2, 4, 8}, {2})
        .axis_str("mps", {"off", "node"}, {"off"}, {"private"})
        .per_device()
        .run(run_many_processes);

}  // namespace
