#pragma once
// Non-zero pseudo-random data, reproducible from (seed, index) alone, so that a verification
// kernel can regenerate any input element without keeping a copy of it.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

// A 32-bit mix of seed and index (lowbias32 finaliser): cheap, and good enough to defeat
// compression and value-dependent shortcuts.
__host__ __device__ inline std::uint32_t hash32(std::uint64_t seed, std::uint64_t index) {
  std::uint32_t x = static_cast<std::uint32_t>(index ^ (index >> 32)) ^ static_cast<std::uint32_t>(seed * 0x9E3779B97F4A7C15ull >> 32);
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// A value in [0.5, 1.5): never zero, of similar magnitude everywhere, so sums stay well conditioned.
template <typename T>
__host__ __device__ inline T random_value(std::uint64_t seed, std::uint64_t index) {
  return static_cast<T>(0.5) + static_cast<T>(hash32(seed, index)) * static_cast<T>(2.3283064365386963e-10);
}

// Fills `count` elements of `data` with random_value<T>(seed, i).
template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);

// Bytes of `data` set to 0xFF: NaN for floating point, so an element a kernel failed to write
// cannot pass verification.
void poison(void* data, std::size_t bytes, cudaStream_t stream);

}  // namespace gpubench::kernels
