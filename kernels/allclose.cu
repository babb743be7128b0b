#include "kernels/allclose.cuh"

#include <algorithm>
#include <cstring>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

struct DeviceCounts {
  unsigned long long bad;
  unsigned long long first_bad;
  unsigned int max_rel_bits;  // a non-negative float's bits order like the float
};

__device__ double as_double(double v) { return v; }
__device__ double as_double(float v) { return v; }
__device__ double as_double(__half v) { return __half2float(v); }
__device__ double as_double(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__global__ void allclose_kernel(const T* got, const T* want, std::size_t n, double rtol, double atol,
                                DeviceCounts* counts) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double g = as_double(got[i]), w = as_double(want[i]);
    if (!element_close(g, w, rtol, atol)) {
      atomicAdd(&counts->bad, 1ull);
      atomicMin(&counts->first_bad, static_cast<unsigned long long>(i));
    }
    if (isfinite(g) && isfinite(w) && w != 0) {
      const float rel = static_cast<float>(fabs(g - w) / fabs(w));
      atomicMax(&counts->max_rel_bits, __float_as_uint(rel));
    }
  }
}

template <typename T>
CloseReport run(const T* got, const T* want, std::size_t n, const Tolerance& tolerance, cudaStream_t stream) {
  DeviceCounts* counts = nullptr;
  GPUBENCH_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&counts), sizeof(DeviceCounts), stream));
  const DeviceCounts start{0, ~0ull, 0};
  GPUBENCH_CUDA(cudaMemcpyAsync(counts, &start, sizeof start, cudaMemcpyHostToDevice, stream));
  const auto blocks = static_cast<int>(std::clamp<std::size_t>((n + kThreads - 1) / kThreads, 1, kMaxBlocks));
  allclose_kernel<<<blocks, kThreads, 0, stream>>>(got, want, n, tolerance.rtol, tolerance.atol, counts);
  GPUBENCH_CHECK_LAUNCH();
  DeviceCounts result{};
  GPUBENCH_CUDA(cudaMemcpyAsync(&result, counts, sizeof result, cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaFreeAsync(counts, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  CloseReport report;
  report.checked = n;
  report.bad = result.bad;
  report.first_bad = result.bad ? result.first_bad : 0;
  float max_rel = 0;
  std::memcpy(&max_rel, &result.max_rel_bits, sizeof max_rel);
  report.max_rel_error = max_rel;
  return report;
}

}  // namespace

CloseReport allclose_device(const double* got, const double* want, std::size_t n, const Tolerance& tolerance,
                            cudaStream_t stream) {
  return run(got, want, n, tolerance, stream);
}
CloseReport allclose_device(const float* got, const float* want, std::size_t n, const Tolerance& tolerance,
                            cudaStream_t stream) {
  return run(got, want, n, tolerance, stream);
}
CloseReport allclose_device(const __half* got, const __half* want, std::size_t n, const Tolerance& tolerance,
                            cudaStream_t stream) {
  return run(got, want, n, tolerance, stream);
}
CloseReport allclose_device(const __nv_bfloat16* got, const __nv_bfloat16* want, std::size_t n,
                            const Tolerance& tolerance, cudaStream_t stream) {
  return run(got, want, n, tolerance, stream);
}

}  // namespace gpubench::kernels
