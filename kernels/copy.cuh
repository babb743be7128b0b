#pragma once
// Kernels of the transfer suite: the SM copy (16-byte loads and stores, as nvbandwidth's SM
// copies) and the test pattern its checks regenerate. Every pointer may be device memory, peer memory or pinned host
// memory mapped into the device's address space (unified addressing).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/random_fill.cuh"

namespace gpubench::kernels {

// Threads per block of the SM copy, nvbandwidth's figure.
constexpr int kCopyThreadsPerBlock = 512;
// Granularity of the SM copy: one uint4 per access.
constexpr std::size_t kCopyAccessBytes = 16;

// The 32-bit word at `index` of the pattern for `seed`: random and never zero, so that a
// destination poisoned with zeros cannot pass a check by accident.
__host__ __device__ inline std::uint32_t pattern_word(std::uint64_t seed, std::uint64_t index) {
  return hash32(seed, index) | 1u;
}

// Blocks the SM copy launches for `bytes`: one per SM (512 threads each, 12 loads in flight per
// thread), fewer when the buffer would leave blocks idle.
int sm_copy_blocks(std::size_t bytes, int sm_count);

// Sources an SM copy cycles through, one per repetition: `count` buffers `stride` bytes apart
// (a multiple of 16) from the source pointer. Reads of host or peer memory are cached in the
// reader's L2 like any other; buffers whose bytes together exceed twice the L2 keep every
// repetition on the link (harness/core/l2_flush.h, rotation_count).
struct SourceRotation {
  unsigned count = 1;
  std::size_t stride = 0;
};

// Copies `bytes` (a multiple of 16) from src to dst `reps` times within one launch, on `blocks`
// blocks (0: sm_copy_blocks of the current device). Repetitions are not merged: each one loads
// and stores the whole buffer again, repetition r from source r % rotation.count.
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, int reps, int blocks, cudaStream_t stream,
                    const SourceRotation& rotation = {});

// Copies `bytes` (a multiple of 16) within one GPU's memory once: one 16-byte element per
// thread over a grid covering the buffer, the faster shape when both buffers are local.
void launch_local_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

// Pattern and poison, written by the GPU (device, peer or mapped host memory; `bytes` a multiple of 4).
void fill_pattern(void* data, std::size_t bytes, std::uint64_t seed, cudaStream_t stream);
void fill_zero(void* data, std::size_t bytes, cudaStream_t stream);
// Adds to *mismatches (device memory) the words of `data` that differ from the pattern.
void count_mismatches(const void* data, std::size_t bytes, std::uint64_t seed, unsigned long long* mismatches,
                      cudaStream_t stream);

// The same on the CPU, for host memory the GPU cannot address (pageable), split over threads.
void fill_pattern_host(void* data, std::size_t bytes, std::uint64_t seed);
void fill_zero_host(void* data, std::size_t bytes);
std::uint64_t count_mismatches_host(const void* data, std::size_t bytes, std::uint64_t seed);

}  // namespace gpubench::kernels
