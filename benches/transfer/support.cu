#include "benches/transfer/support.h"

#include "benches/transfer/transfer.h"
#include "harness/core/cuda_check.h"
#include "harness/core/l2_flush.h"
#include "kernels/copy.cuh"

namespace gpubench::transfer {

PeerAccessScope::PeerAccessScope(int a, int b, bool enable) : enable_(enable) {
  for (auto [device, peer] : {std::pair{a, b}, std::pair{b, a}}) {
    ScopedDevice on(device);
    const cudaError_t status = enable ? cudaDeviceEnablePeerAccess(peer, 0) : cudaDeviceDisablePeerAccess(peer);
    if (status == cudaSuccess) {
      changed_.emplace_back(device, peer);
    } else if (status == cudaErrorPeerAccessAlreadyEnabled || status == cudaErrorPeerAccessNotEnabled) {
      cudaGetLastError();  // already as wanted; not sticky, cleared so that later checks pass
    } else {
      GPUBENCH_CUDA(status);
    }
  }
}

PeerAccessScope::~PeerAccessScope() {
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  for (auto [device, peer] : changed_) {
    if (cudaSetDevice(device) != cudaSuccess) continue;
    cudaDeviceSynchronize();  // no copy may be in flight when access changes
    if (enable_) cudaDeviceDisablePeerAccess(peer);
    else cudaDeviceEnablePeerAccess(peer, 0);
    cudaGetLastError();
  }
  cudaSetDevice(current);
}

void require_peer_access(State& s, int reader, int owner) {
  int can_access = 0;
  GPUBENCH_CUDA(cudaDeviceCanAccessPeer(&can_access, reader, owner));
  if (!can_access)
    s.skip("no peer access: gpu" + std::to_string(reader) + " cannot map gpu" + std::to_string(owner) +
           "'s memory (cudaDeviceCanAccessPeer is false; link: " + describe_pair(s.context(), reader, owner) + ")");
}

int sm_count(int device) {
  int count = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

DeviceBuffer allocate_on(int device, std::size_t bytes) {
  ScopedDevice on(device);
  return DeviceBuffer(bytes);
}

void fill_source(void* data, std::size_t bytes, std::uint64_t seed, int where) {
  if (where == kOnCpu) return kernels::fill_pattern_host(data, bytes, seed);
  ScopedDevice on(where);
  kernels::fill_pattern(data, bytes, seed, nullptr);
  GPUBENCH_CUDA(cudaStreamSynchronize(nullptr));
}

void poison_destination(void* data, std::size_t bytes, int where) {
  if (where == kOnCpu) return kernels::fill_zero_host(data, bytes);
  ScopedDevice on(where);
  kernels::fill_zero(data, bytes, nullptr);
  GPUBENCH_CUDA(cudaStreamSynchronize(nullptr));
}

void verify_copy(State& s, const std::string& what, const void* data, std::size_t bytes, std::uint64_t seed,
                 int where) {
  std::uint64_t mismatches = 0;
  if (where == kOnCpu) {
    mismatches = kernels::count_mismatches_host(data, bytes, seed);
  } else {
    ScopedDevice on(where);
    DeviceBuffer counter(sizeof(unsigned long long));
    GPUBENCH_CUDA(cudaMemsetAsync(counter.get(), 0, counter.bytes(), nullptr));
    kernels::count_mismatches(data, bytes, seed, counter.as<unsigned long long>(), nullptr);
    GPUBENCH_CUDA(cudaMemcpy(&mismatches, counter.get(), sizeof mismatches, cudaMemcpyDeviceToHost));
  }
  s.verify(mismatches == 0, what + ": " + std::to_string(mismatches) + " of " +
                                std::to_string(bytes / sizeof(std::uint32_t)) + " words differ from the source");
}

kernels::SourceRotation remote_source_rotation(State& s, const std::string& engine, int reader, std::size_t bytes) {
  const std::size_t l2 = s.gpu(reader).l2_bytes;
  kernels::SourceRotation r;
  if (engine == "sm") r.count = static_cast<unsigned>(rotation_count(bytes, l2));
  r.stride = r.count == 1 ? bytes : rotation_stride(bytes);
  if (engine == "sm")
    s.note("l2", r.count == 1 ? "each pass reads more than twice the reader's L2"
                              : std::to_string(r.count) + " source buffers in rotation, one per pass, together more "
                                                          "than twice the reader's L2: no pass is served from L2");
  return r;
}

void fill_sources(void* data, const kernels::SourceRotation& r, std::size_t bytes, std::uint64_t seed, int where) {
  for (unsigned i = 0; i < r.count; ++i) fill_source(static_cast<char*>(data) + i * r.stride, bytes, seed, where);
}

}  // namespace gpubench::transfer
