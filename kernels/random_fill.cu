#include "kernels/random_fill.cuh"

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

template <typename T>
__global__ void fill_random_kernel(T* data, std::size_t count, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride)
    data[i] = random_value<T>(seed, i);
}

}  // namespace

template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  fill_random_kernel<<<4096, 256, 0, stream>>>(data, count, seed);
  GPUBENCH_CHECK_LAUNCH();
}

void poison(void* data, std::size_t bytes, cudaStream_t stream) {
  GPUBENCH_CUDA(cudaMemsetAsync(data, 0xFF, bytes, stream));
}

template void fill_random<float>(float*, std::size_t, std::uint64_t, cudaStream_t);
template void fill_random<double>(double*, std::size_t, std::uint64_t, cudaStream_t);

}  // namespace gpubench::kernels
