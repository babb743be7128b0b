#pragma once
// Inputs and verification for the collective suite. Rank r's send element i is
// collective_input(seed, r, i): a small integer (1 to 4), so that sums over many ranks are
// exact in fp32, in fp16 up to 512 ranks and in bf16 up to 64; beyond that the tolerance
// covers bf16's rounding of the partial sums. Verification regenerates what every other rank
// sent, so no host copy of any buffer is needed.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/random_fill.cuh"

namespace gpubench::kernels {

enum class CollectiveCheck {
  kSum,        // out[i] = sum over ranks of input(rank, i)
  kMax,        // out[i] = max over ranks of input(rank, i)
  kGathered,   // out[b * chunk + j] = input(b, j): every rank's chunk, in rank order
  kScattered,  // out[j] = sum over ranks of input(rank, me * chunk + j)
  kExchanged,  // out[b * chunk + j] = input(b, me * chunk + j): alltoall
  kFromRoot,   // out[i] = input(0, i): broadcast
  kFromLeft,   // out[i] = input((me + ranks - 1) % ranks, i): the ring's sendrecv
};

__host__ __device__ inline float collective_input(std::uint64_t seed, int rank, std::uint64_t index) {
  return 1.0f + static_cast<float>(hash32(seed + 0x51ED2701ull * static_cast<std::uint64_t>(rank + 1), index) & 3u);
}

enum class CollectiveType { kFp32, kBf16, kFp16 };

// Writes `count` inputs of `rank` to `data`, starting at input index `first`.
void fill_collective_input(void* data, CollectiveType type, std::size_t count, std::uint64_t seed, int rank,
                           std::uint64_t first, cudaStream_t stream);

struct CollectiveExpectation {
  CollectiveCheck check = CollectiveCheck::kSum;
  int rank = 0, ranks = 1;
  std::size_t chunk = 0;  // elements per rank's block (gathered, scattered, exchanged)
  std::uint64_t seed = 0;
};

// Counts the elements of `data` (`count` of them) that differ from the expectation by more than
// the type's tolerance (NaN never passes). Waits for the stream.
long long count_collective_mismatches(const void* data, CollectiveType type, std::size_t count,
                                      const CollectiveExpectation& expect, cudaStream_t stream);

}  // namespace gpubench::kernels
