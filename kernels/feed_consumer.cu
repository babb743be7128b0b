#include "kernels/feed_consumer.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/core/cuda_check.h"
#include "kernels/random_fill.cuh"

namespace gpubench::kernels {
namespace {

__host__ __device__ inline float consume_element(float4 v, int chain) {
  float a = 0, b = 0, c = 0, d = 0;
  for (int i = 0; i < chain; ++i) {
    a = fmaf(a, v.x, kFeedC);
    b = fmaf(b, v.y, kFeedC);
    c = fmaf(c, v.z, kFeedC);
    d = fmaf(d, v.w, kFeedC);
  }
  return (a + b) + (c + d);
}

__global__ void feed_consumer_kernel(const float4* __restrict__ batch, std::size_t elements, int chain,
                                     float* __restrict__ out) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  float sum = 0;
  for (std::size_t i = thread; i < elements; i += stride) sum += consume_element(batch[i], chain);
  out[thread] = sum;
}

}  // namespace

FeedConsumer::FeedConsumer(int device) {
  int sms = 0, blocks = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, feed_consumer_kernel, kBlock, 0));
  grid_ = sms * blocks;
}

void FeedConsumer::launch(const float* batch, std::size_t elements, int chain, float* out, cudaStream_t stream) const {
  feed_consumer_kernel<<<grid_, kBlock, 0, stream>>>(reinterpret_cast<const float4*>(batch), elements, chain, out);
}

void fill_feed_batch_host(float* data, std::size_t floats, std::uint64_t seed) {
  for (std::size_t i = 0; i < floats; ++i) data[i] = 0.5f + static_cast<float>(hash32(seed, i) >> 8) * 0x1p-25f;
}

std::size_t count_feed_mismatches(const float* out, std::size_t threads, const float* batch, std::size_t elements,
                                  int chain, std::size_t samples) {
  std::vector<float> got(threads);
  GPUBENCH_CUDA(cudaMemcpy(got.data(), out, threads * sizeof(float), cudaMemcpyDeviceToHost));
  const auto* elements_of = reinterpret_cast<const float4*>(batch);
  const std::size_t step = std::max<std::size_t>(1, threads / samples);
  std::size_t wrong = 0;
  for (std::size_t t = 0; t < threads; t += step) {
    float sum = 0;
    for (std::size_t i = t; i < elements; i += threads) sum += consume_element(elements_of[i], chain);
    wrong += got[t] != sum;
  }
  return wrong;
}

}  // namespace gpubench::kernels
