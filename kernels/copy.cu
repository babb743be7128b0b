#include "kernels/copy.cuh"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

#include "harness/core/blocking_kernel.h"
#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

// Loads each thread keeps in flight in the copy's main loop (nvbandwidth's figure): enough
// outstanding 16-byte requests to cover PCIe and NVLink round trips with one block per SM.
constexpr int kLoadsInFlight = 12;
constexpr int kCheckThreads = 256;
constexpr int kLocalCopyThreadsPerBlock = 256;
constexpr int kCheckMaxBlocks = 1024;

// Element i of the buffer is copied by thread i % threads, so that each warp's accesses are
// contiguous; the main loop issues kLoadsInFlight loads before the matching stores.
// Two blocks per SM: the two kernels of a bidirectional copy (one block per SM each) must fit
// side by side, or the second direction waits for the first's blocks to retire and the pair
// runs half serialised (at 72 registers a thread, one 512-thread block filled an H200 SM's file).
__global__ void __launch_bounds__(kCopyThreadsPerBlock, 2) sm_copy_kernel(uint4* dst, const uint4* sources, std::size_t count, int reps, std::size_t source_step,
                               unsigned source_count) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int r = 0; r < reps; ++r) {
    const uint4* src = sources + (static_cast<unsigned>(r) % source_count) * source_step;
    std::size_t i = first;
    for (; i + (kLoadsInFlight - 1) * threads < count; i += kLoadsInFlight * threads) {
      uint4 v[kLoadsInFlight];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) v[u] = src[i + u * threads];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) dst[i + u * threads] = v[u];
    }
    for (; i < count; i += threads) dst[i] = src[i];
    // A compiler barrier: without it, a buffer of one element per thread would let the
    // compiler keep the loaded value across repetitions and store it once.
    asm volatile("" ::: "memory");
  }
}

// One 16-byte element per thread, over a grid that covers the buffer: in device memory, where
// latency is short, many short-lived blocks keep more requests in flight than one persistent
// block per SM (the memory suite's STREAM copy has the same shape).
__global__ void __launch_bounds__(kLocalCopyThreadsPerBlock)
    local_copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kLocalCopyThreadsPerBlock + threadIdx.x;
  if (i < count) dst[i] = src[i];
}

__global__ void fill_pattern_kernel(std::uint32_t* data, std::size_t words, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride)
    data[i] = pattern_word(seed, i);
}

__global__ void fill_zero_kernel(std::uint32_t* data, std::size_t words) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride)
    data[i] = 0;
}

__global__ void count_mismatches_kernel(const std::uint32_t* data, std::size_t words, std::uint64_t seed,
                                        unsigned long long* mismatches) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride)
    local += data[i] != pattern_word(seed, i);
  for (int offset = 16; offset > 0; offset /= 2) local += __shfl_down_sync(0xffffffffu, local, offset);
  if ((threadIdx.x & 31) == 0 && local != 0) atomicAdd(mismatches, local);
}

int check_blocks(std::size_t words) {
  const std::size_t needed = (words + kCheckThreads - 1) / kCheckThreads;
  return static_cast<int>(std::clamp<std::size_t>(needed, 1, kCheckMaxBlocks));
}

// Parts a host-side pass over `words` is split into: a GiB of pageable memory takes a second
// on one core, which the default sweep cannot afford several times over.
std::size_t host_parts(std::size_t words) {
  constexpr std::size_t kWordsPerPartMin = std::size_t{1} << 20;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<std::size_t>(words / kWordsPerPartMin, 1, std::min<std::size_t>(cores, 16));
}

// Runs body(part, first_word, end_word) for each of `parts` slices of `words`, in parallel.
template <typename Body>
void parallel_words(std::size_t words, std::size_t parts, Body body) {
  std::vector<std::thread> threads;
  const std::size_t per_part = (words + parts - 1) / parts;
  for (std::size_t p = 1; p < parts; ++p)
    threads.emplace_back(body, p, std::min(words, p * per_part), std::min(words, (p + 1) * per_part));
  body(std::size_t{0}, std::size_t{0}, std::min(words, per_part));
  for (auto& t : threads) t.join();
}

// Copies and checks run behind the harness's stream blocker (transfer's timed regions).
[[maybe_unused]] const bool registered = (register_blockable_kernels({reinterpret_cast<const void*>(&sm_copy_kernel),
                                                     reinterpret_cast<const void*>(&local_copy_kernel),
                                                     reinterpret_cast<const void*>(&fill_pattern_kernel),
                                                     reinterpret_cast<const void*>(&fill_zero_kernel),
                                                     reinterpret_cast<const void*>(&count_mismatches_kernel)}),
                         true);

}  // namespace

int sm_copy_blocks(std::size_t bytes, int sm_count) {
  const std::size_t elements = bytes / kCopyAccessBytes;
  const std::size_t needed = (elements + kCopyThreadsPerBlock - 1) / kCopyThreadsPerBlock;
  return static_cast<int>(std::clamp<std::size_t>(needed, 1, static_cast<std::size_t>(std::max(sm_count, 1))));
}

void launch_sm_copy(void* dst, const void* src, std::size_t bytes, int reps, int blocks, cudaStream_t stream,
                    const SourceRotation& rotation) {
  if (blocks <= 0) {
    int device = 0, sm_count = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    blocks = sm_copy_blocks(bytes, sm_count);
  }
  if (rotation.count == 0 || rotation.stride % kCopyAccessBytes != 0)
    throw std::invalid_argument("SM copy: a source rotation needs at least one buffer, 16-byte aligned");
  sm_copy_kernel<<<blocks, kCopyThreadsPerBlock, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src),
                                                               bytes / kCopyAccessBytes, reps,
                                                               rotation.stride / kCopyAccessBytes, rotation.count);
  GPUBENCH_CHECK_LAUNCH();
}

void launch_local_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  const std::size_t count = bytes / kCopyAccessBytes;
  const auto blocks = static_cast<unsigned>((count + kLocalCopyThreadsPerBlock - 1) / kLocalCopyThreadsPerBlock);
  local_copy_kernel<<<blocks, kLocalCopyThreadsPerBlock, 0, stream>>>(static_cast<uint4*>(dst),
                                                                      static_cast<const uint4*>(src), count);
  GPUBENCH_CHECK_LAUNCH();
}

void fill_pattern(void* data, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  const std::size_t words = bytes / sizeof(std::uint32_t);
  fill_pattern_kernel<<<check_blocks(words), kCheckThreads, 0, stream>>>(static_cast<std::uint32_t*>(data), words, seed);
  GPUBENCH_CHECK_LAUNCH();
}

void fill_zero(void* data, std::size_t bytes, cudaStream_t stream) {
  const std::size_t words = bytes / sizeof(std::uint32_t);
  fill_zero_kernel<<<check_blocks(words), kCheckThreads, 0, stream>>>(static_cast<std::uint32_t*>(data), words);
  GPUBENCH_CHECK_LAUNCH();
}

void count_mismatches(const void* data, std::size_t bytes, std::uint64_t seed, unsigned long long* mismatches,
                      cudaStream_t stream) {
  const std::size_t words = bytes / sizeof(std::uint32_t);
  count_mismatches_kernel<<<check_blocks(words), kCheckThreads, 0, stream>>>(
      static_cast<const std::uint32_t*>(data), words, seed, mismatches);
  GPUBENCH_CHECK_LAUNCH();
}

void fill_pattern_host(void* data, std::size_t bytes, std::uint64_t seed) {
  auto* words = static_cast<std::uint32_t*>(data);
  const std::size_t count = bytes / sizeof(std::uint32_t);
  parallel_words(count, host_parts(count), [=](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) words[i] = pattern_word(seed, i);
  });
}

void fill_zero_host(void* data, std::size_t bytes) {
  auto* words = static_cast<std::uint32_t*>(data);
  const std::size_t count = bytes / sizeof(std::uint32_t);
  parallel_words(count, host_parts(count), [=](std::size_t, std::size_t begin, std::size_t end) {
    std::fill(words + begin, words + end, 0u);
  });
}

std::uint64_t count_mismatches_host(const void* data, std::size_t bytes, std::uint64_t seed) {
  const auto* words = static_cast<const std::uint32_t*>(data);
  const std::size_t count = bytes / sizeof(std::uint32_t);
  const std::size_t parts = host_parts(count);
  std::vector<std::uint64_t> counts(parts, 0);
  parallel_words(count, parts, [&](std::size_t part, std::size_t begin, std::size_t end) {
    std::uint64_t local = 0;
    for (std::size_t i = begin; i < end; ++i) local += words[i] != pattern_word(seed, i);
    counts[part] = local;
  });
  std::uint64_t total = 0;
  for (auto c : counts) total += c;
  return total;
}

}  // namespace gpubench::kernels
