// transfer/host_latency and transfer/peer_latency: how long one GPU load takes from pinned host
// memory, or from a peer GPU's memory, by pointer chase: nvbandwidth's host_device_latency_sm
// and device_to_device_latency_sm. Two families, since only the peer one needs two GPUs.
#include <cstring>
#include <string>
#include <utility>

#include "harness/core/host_memory.h"
#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/gpubench.h"
#include "kernels/pointer_chase.cuh"

namespace {

using namespace gpubench;
using namespace gpubench::transfer;

// Dependent loads per sample: milliseconds at host or peer latency (about a microsecond), so
// the launch is a small fraction of a sample.
constexpr std::uint64_t kLoadsPerSample = 8192;
constexpr std::uint64_t kRandomSeed = 42;
constexpr std::int64_t kWorkingSetBytes = std::int64_t{2} << 20;  // nvbandwidth's latency buffer

std::vector<std::uint64_t> make_chain(State& s) {
  const auto bytes = static_cast<std::size_t>(s.get_int("working_set_bytes"));
  if (bytes < 2 * kernels::kChaseNodeBytes)
    s.skip("working set of " + std::to_string(bytes) + " bytes holds fewer than two 128-byte nodes");
  return s.get_str("pattern") == "stride" ? make_stride_cycle(bytes) : kernels::make_chase_cycle(bytes, kRandomSeed);
}

// The measured region of both families: ns per dependent load through `chain_on_gpu`, an
// address the current device reads. Samples walk on around the cycle from where the last one
// stopped; the check is a fresh walk from the start, against the same walk on the host.
void chase(State& s, const std::uint64_t* chain_on_gpu, const std::vector<std::uint64_t>& chain) {
  DeviceBuffer position(sizeof(std::uint64_t));
  auto* index = position.as<std::uint64_t>();
  const cudaStream_t stream = s.stream();
  GPUBENCH_CUDA(cudaMemsetAsync(index, 0, sizeof(std::uint64_t), stream));
  s.report_time_as("latency_ns", "ns", 1e9 / kLoadsPerSample);
  s.note("loads_per_sample", kLoadsPerSample);
  s.measure([&](cudaStream_t st) { kernels::launch_pointer_chase(chain_on_gpu, kLoadsPerSample, index, st); });
  GPUBENCH_CUDA(cudaMemsetAsync(index, 0, sizeof(std::uint64_t), stream));
  kernels::launch_pointer_chase(chain_on_gpu, kLoadsPerSample, index, stream);
  std::uint64_t got = ~0ull;
  GPUBENCH_CUDA(cudaMemcpyAsync(&got, index, sizeof got, cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  const std::uint64_t expected = kernels::chase_on_host(chain, kLoadsPerSample);
  s.verify(got == expected,
           "chase ended at element " + std::to_string(got) + ", expected " + std::to_string(expected));
}

void run_host_latency(State& s) {
  const auto chain = make_chain(s);
  const std::size_t bytes = chain.size() * sizeof(std::uint64_t);
  const HostPlacement placement = place_host_memory(s, s.get_str("numa"));
  ScopedCpuAffinity near_gpu(placement.cpu_node);
  HostBuffer buffer(HostKind::kPinned, bytes, placement.memory_node);
  std::memcpy(buffer.get(), chain.data(), bytes);
  note_observed_node(s, buffer);
  chase(s, static_cast<const std::uint64_t*>(buffer.get()), chain);
}

void run_peer_latency(State& s) {
  const int reader = s.device(), owner = s.get_gpu("peer");
  require_peer_access(s, reader, owner);
  require_peer_access(s, owner, reader);  // the scope enables access both ways, as nvbandwidth does
  PeerAccessScope access(reader, owner, true);
  s.note("link", describe_pair(s.context(), reader, owner));
  const auto chain = make_chain(s);
  const std::size_t bytes = chain.size() * sizeof(std::uint64_t);
  DeviceBuffer buffer = allocate_on(owner, bytes);
  GPUBENCH_CUDA(cudaMemcpy(buffer.get(), chain.data(), bytes, cudaMemcpyHostToDevice));
  chase(s, buffer.as<const std::uint64_t>(), chain);
}

// A pointer-chase family with the axes make_chain reads, first in both families' names.
Family& chase_family(const std::string& name, std::string description) {
  return gpubench::family(name)
      .describe(std::move(description))
      .axis_str("pattern", {"stride", "random"}, {"stride"})
      .axis_int("working_set_bytes", {kWorkingSetBytes});
}

const auto& host_latency_family =
    chase_family("transfer/host_latency",
                 "One GPU thread chasing pointers through pinned host memory mapped into the GPU: ns per dependent "
                 "load (nvbandwidth's host_device_latency_sm). pattern stride: each 128-byte line points to the "
                 "next, wrapping, as nvbandwidth; random: a random cycle over the same lines. Host buffer on the "
                 "GPU's NUMA node (numa:local) or another (numa:remote)")
        .axis_str("numa", {"local", "remote"}, {"local"})
        .per_device()
        .run(run_host_latency);

const auto& peer_latency_family =
    chase_family("transfer/peer_latency",
                 "One thread of a GPU (gpu) chasing pointers through another GPU's memory (peer), peer access "
                 "enabled: ns per dependent load over NVLink or PCIe peer-to-peer (nvbandwidth's "
                 "device_to_device_latency_sm); skipped, with the reason, where the pair has no peer access. "
                 "pattern as in transfer/host_latency")
        .axis_gpus("peer")
        .per_device()
        .where(keep_peer_latency_case)
        .needs_gpus(2)
        .run(run_peer_latency);

}  // namespace
