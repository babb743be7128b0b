#include "kernels/softmax.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;

__device__ float to_float(__half v) { return __half2float(v); }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ T from_float(float v);
template <>
__device__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// Running (max, sum of exp(x - max)) pairs, merged so that one read of the row gives both.
struct MaxSum {
  float max, sum;
};

__device__ MaxSum merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.max, b.max);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.sum * __expf(a.max - m) + b.sum * __expf(b.max - m)};
}

__device__ MaxSum block_merge(MaxSum value) {
  __shared__ MaxSum partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    MaxSum other{__shfl_down_sync(0xffffffffu, value.max, offset), __shfl_down_sync(0xffffffffu, value.sum, offset)};
    value = merge(value, other);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < kThreads / 32 ? partial[lane] : MaxSum{-INFINITY, 0.0f};
    for (int offset = 16; offset > 0; offset /= 2) {
      MaxSum other{__shfl_down_sync(0xffffffffu, value.max, offset), __shfl_down_sync(0xffffffffu, value.sum, offset)};
      value = merge(value, other);
    }
    if (lane == 0) partial[0] = value;
  }
  __syncthreads();
  return partial[0];
}

template <typename T>
__global__ void softmax_rows_kernel(T* scores, std::int64_t seq, float scale, bool causal) {
  const std::int64_t row = blockIdx.x;
  T* data = scores + row * seq;
  const std::int64_t kept = causal ? row % seq + 1 : seq;
  MaxSum local{-INFINITY, 0.0f};
  for (std::int64_t j = threadIdx.x; j < kept; j += kThreads) local = merge(local, {to_float(data[j]) * scale, 1.0f});
  const MaxSum total = block_merge(local);
  const float inverse = 1.0f / total.sum;
  for (std::int64_t j = threadIdx.x; j < seq; j += kThreads)
    data[j] = from_float<T>(j < kept ? __expf(to_float(data[j]) * scale - total.max) * inverse : 0.0f);
}

}  // namespace

void softmax_rows(void* scores, std::int64_t heads_total, std::int64_t seq, float scale, bool causal,
                  Float16Kind kind, cudaStream_t stream) {
  const std::int64_t rows = heads_total * seq;
  if (rows > 0x7fffffff) throw std::invalid_argument("softmax_rows: more than 2^31 - 1 rows");
  const dim3 grid(static_cast<unsigned>(rows));
  if (kind == Float16Kind::kHalf)
    softmax_rows_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__half*>(scores), seq, scale, causal);
  else
    softmax_rows_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(scores), seq, scale, causal);
  GPUBENCH_CUDA(cudaGetLastError());
}

}  // namespace gpubench::kernels
