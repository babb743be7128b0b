#include "harness/core/blocking_kernel.h"

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

#include "harness/core/cuda_check.h"

namespace gpubench {
namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// One thread; generation counting lets one pinned word serve every block and release.
__global__ void blocking_kernel(const volatile unsigned* released, unsigned generation, std::uint64_t timeout_ns,
                                volatile unsigned* expired) {
  const std::uint64_t start = global_timer_ns();
  while (*released < generation) {
    if (global_timer_ns() - start > timeout_ns) {
      *expired = 1;
      return;
    }
  }
}

struct BlockableKernels {
  std::mutex mutex;
  std::vector<const void*> kernels{reinterpret_cast<const void*>(&blocking_kernel)};
  std::set<int> loaded_on;
};

BlockableKernels& blockable() {
  static auto* registry = new BlockableKernels;  // used from static initialisers; never destroyed
  return *registry;
}

}  // namespace

void register_blockable_kernels(std::initializer_list<const void*> kernels) {
  BlockableKernels& r = blockable();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.kernels.insert(r.kernels.end(), kernels.begin(), kernels.end());
}

void load_blockable_kernels() {
  int device = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  BlockableKernels& r = blockable();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.loaded_on.count(device)) return;
  cudaFuncAttributes unused;
  for (const void* kernel : r.kernels) GPUBENCH_CUDA(cudaFuncGetAttributes(&unused, kernel));
  r.loaded_on.insert(device);
}

StreamBlocker::StreamBlocker(double timeout_s) : timeout_ns_(static_cast<std::uint64_t>(timeout_s * 1e9)) {
  void* host = nullptr;
  GPUBENCH_CUDA(cudaHostAlloc(&host, 2 * sizeof(unsigned), cudaHostAllocPortable | cudaHostAllocMapped));
  released_ = static_cast<volatile unsigned*>(host);
  expired_ = released_ + 1;
  *released_ = 0;
  *expired_ = 0;
}

StreamBlocker::~StreamBlocker() {
  *released_ = ~0u;  // never leave a blocker spinning behind us
  std::atomic_thread_fence(std::memory_order_seq_cst);
  cudaDeviceSynchronize();
  cudaFreeHost(const_cast<unsigned*>(released_));
}

void StreamBlocker::block(cudaStream_t stream) {
  load_blockable_kernels();
  // Portable mapped memory has the same device address on every GPU (unified addressing).
  blocking_kernel<<<1, 1, 0, stream>>>(released_, pending_, timeout_ns_, expired_);
  GPUBENCH_CHECK_LAUNCH();
}

void StreamBlocker::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *released_ = pending_++;
}

bool StreamBlocker::timed_out() const { return *expired_ != 0; }

void StreamBlocker::forget_timeout() { *expired_ = 0; }

}  // namespace gpubench
