#pragma once
// Device helpers the FP32 attention references share: 16-bit loads as float and a block-wide
// reduction.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gpubench::kernels {

__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

// The maximum (`is_max`) or the sum of `value` over a block of `Threads` threads, returned to
// every thread; every thread of the block must call it.
template <int Threads>
__device__ inline float block_reduce(float value, bool is_max) {
  __shared__ float partial[Threads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_down_sync(0xffffffffu, value, offset);
    value = is_max ? fmaxf(value, other) : value + other;
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = value;
  __syncthreads();
  float total = partial[0];
  for (int w = 1; w < Threads / 32; ++w) total = is_max ? fmaxf(total, partial[w]) : total + partial[w];
  __syncthreads();  // partial is reused by the next reduction
  return total;
}

}  // namespace gpubench::kernels
