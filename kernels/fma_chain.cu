#include "kernels/fma_chain.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

__global__ void fma_chain_kernel_impl(float* out, int chain) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float x = fma_start(thread);
#pragma unroll 16
  for (int i = 0; i < chain; ++i) x = fmaf(x, kFmaA, kFmaB);
  out[thread] = x;
}

}  // namespace

const void* fma_chain_kernel() { return reinterpret_cast<const void*>(fma_chain_kernel_impl); }

void launch_fma_chain(float* out, int grid, int block, std::size_t smem_bytes, int chain, cudaStream_t stream) {
  fma_chain_kernel_impl<<<grid, block, smem_bytes, stream>>>(out, chain);
}

std::size_t count_fma_chain_mismatches(const float* out, std::size_t threads, int chain, std::size_t samples) {
  std::vector<float> host(threads);
  GPUBENCH_CUDA(cudaMemcpy(host.data(), out, threads * sizeof(float), cudaMemcpyDeviceToHost));
  const std::size_t step = std::max<std::size_t>(1, threads / samples);
  std::size_t wrong = 0;
  for (std::size_t t = 0; t < threads; t += step) {
    float x = fma_start(t);
    for (int i = 0; i < chain; ++i) x = std::fmaf(x, kFmaA, kFmaB);
    wrong += host[t] != x;
  }
  return wrong;
}

}  // namespace gpubench::kernels
