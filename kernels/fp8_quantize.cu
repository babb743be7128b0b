#include "kernels/fp8_quantize.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

template <typename T>
__global__ void quantize_e4m3_kernel(const T* source, std::size_t count, float descale, __nv_fp8_e4m3* e4m3,
                                     T* dequantized) {
  const float inverse = 1.0f / descale;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const __nv_fp8_e4m3 stored(static_cast<float>(source[i]) * inverse);  // round to nearest, saturating
    e4m3[i] = stored;
    dequantized[i] = static_cast<T>(static_cast<float>(stored) * descale);
  }
}

template <typename T>
void launch(const void* source, std::size_t count, float descale, void* e4m3, void* dequantized, cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, 65535));
  quantize_e4m3_kernel<T><<<std::max(blocks, 1u), kThreads, 0, stream>>>(
      static_cast<const T*>(source), count, descale, static_cast<__nv_fp8_e4m3*>(e4m3), static_cast<T*>(dequantized));
  GPUBENCH_CUDA(cudaGetLastError());
}

}  // namespace

void quantize_e4m3(const void* source, Float16Kind kind, std::size_t count, float descale, void* e4m3,
                   void* dequantized, cudaStream_t stream) {
  if (kind == Float16Kind::kHalf) launch<__half>(source, count, descale, e4m3, dequantized, stream);
  else launch<__nv_bfloat16>(source, count, descale, e4m3, dequantized, stream);
}

}  // namespace gpubench::kernels
