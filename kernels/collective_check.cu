#include "kernels/collective_check.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 65535u * 8u;

unsigned blocks_for(std::size_t count) {
  return static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, kMaxBlocks));
}

template <typename T>
__device__ float to_float(T value) {
  return static_cast<float>(value);
}
template <typename T>
__device__ T from_float(float value) {
  return static_cast<T>(value);
}

template <typename T>
__global__ void fill_kernel(T* data, std::size_t count, std::uint64_t seed, int rank, std::uint64_t first) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    data[i] = from_float<T>(collective_input(seed, rank, first + i));
}

__device__ float expected_value(const CollectiveExpectation& e, std::size_t i) {
  switch (e.check) {
    case CollectiveCheck::kSum:
    case CollectiveCheck::kMax:
    case CollectiveCheck::kScattered: {
      const std::uint64_t index = e.check == CollectiveCheck::kScattered ? e.rank * e.chunk + i : i;
      float value = 0;
      for (int r = 0; r < e.ranks; ++r) {
        const float input = collective_input(e.seed, r, index);
        value = e.check == CollectiveCheck::kMax ? fmaxf(value, input) : value + input;
      }
      return value;
    }
    case CollectiveCheck::kGathered:
      return collective_input(e.seed, static_cast<int>(i / e.chunk), i % e.chunk);
    case CollectiveCheck::kExchanged:
      return collective_input(e.seed, static_cast<int>(i / e.chunk), e.rank * e.chunk + i % e.chunk);
    case CollectiveCheck::kFromRoot:
      return collective_input(e.seed, 0, i);
    case CollectiveCheck::kFromLeft:
      return collective_input(e.seed, (e.rank + e.ranks - 1) % e.ranks, i);
  }
  return 0;
}

template <typename T>
__global__ void check_kernel(const T* data, std::size_t count, CollectiveExpectation expect, float tolerance,
                             unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float want = expected_value(expect, i);
    const float got = to_float(data[i]);
    if (!(fabsf(got - want) <= tolerance * want)) ++mine;
  }
  if (mine) atomicAdd(wrong, mine);
}

template <typename T>
void fill_typed(void* data, std::size_t count, std::uint64_t seed, int rank, std::uint64_t first,
                cudaStream_t stream) {
  fill_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(data), count, seed, rank, first);
  GPUBENCH_CHECK_LAUNCH();
}

template <typename T>
void check_typed(const void* data, std::size_t count, const CollectiveExpectation& expect, float tolerance,
                 unsigned long long* wrong, cudaStream_t stream) {
  check_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const T*>(data), count, expect, tolerance,
                                                                wrong);
  GPUBENCH_CHECK_LAUNCH();
}

// Relative: a sum over n ranks is exact while it fits the mantissa; past that each partial sum
// rounds once (n roundings of half an ulp at most).
float tolerance_for(CollectiveType type, int ranks) {
  const float ulp = type == CollectiveType::kFp32 ? 1.2e-7f : type == CollectiveType::kFp16 ? 9.8e-4f : 7.9e-3f;
  return 0.5f * ulp * static_cast<float>(std::max(ranks, 1));
}

}  // namespace

void fill_collective_input(void* data, CollectiveType type, std::size_t count, std::uint64_t seed, int rank,
                           std::uint64_t first, cudaStream_t stream) {
  if (count == 0) return;
  switch (type) {
    case CollectiveType::kFp32: return fill_typed<float>(data, count, seed, rank, first, stream);
    case CollectiveType::kBf16: return fill_typed<__nv_bfloat16>(data, count, seed, rank, first, stream);
    case CollectiveType::kFp16: return fill_typed<__half>(data, count, seed, rank, first, stream);
  }
}

long long count_collective_mismatches(const void* data, CollectiveType type, std::size_t count,
                                      const CollectiveExpectation& expect, cudaStream_t stream) {
  DeviceBuffer counter(sizeof(unsigned long long));
  auto* wrong = counter.as<unsigned long long>();
  GPUBENCH_CUDA(cudaMemsetAsync(wrong, 0, sizeof *wrong, stream));
  const float tolerance = tolerance_for(type, expect.ranks);
  switch (type) {
    case CollectiveType::kFp32: check_typed<float>(data, count, expect, tolerance, wrong, stream); break;
    case CollectiveType::kBf16: check_typed<__nv_bfloat16>(data, count, expect, tolerance, wrong, stream); break;
    case CollectiveType::kFp16: check_typed<__half>(data, count, expect, tolerance, wrong, stream); break;
  }
  unsigned long long host = 0;
  GPUBENCH_CUDA(cudaMemcpyAsync(&host, wrong, sizeof host, cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  return static_cast<long long>(host);
}

}  // namespace gpubench::kernels
