#include "harness/core/l2_flush.h"

#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "harness/core/scoped_device.h"

namespace gpubench {

L2Flush::L2Flush(int device) {
  ScopedDevice on(device);
  int l2 = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  if (l2 <= 0) throw std::runtime_error("the L2 size of GPU " + std::to_string(device) + " is unknown");
  bytes_ = 2 * static_cast<std::size_t>(l2);
  GPUBENCH_CUDA(cudaMalloc(&buffer_, bytes_));
}

L2Flush::~L2Flush() { cudaFree(buffer_); }

void L2Flush::flush(cudaStream_t stream) { GPUBENCH_CUDA(cudaMemsetAsync(buffer_, ++value_, bytes_, stream)); }

std::size_t rotation_count(std::size_t bytes_each, std::size_t l2_bytes) {
  if (bytes_each == 0) throw std::invalid_argument("rotation_count: empty buffers");
  return 2 * l2_bytes / bytes_each + 1;  // the smallest count whose bytes exceed twice the L2
}

std::size_t rotation_stride(std::size_t bytes_each) {
  constexpr std::size_t kAlign = 256;
  return (bytes_each + kAlign - 1) / kAlign * kAlign;
}

RotatingBuffers::RotatingBuffers(std::size_t bytes_each, std::size_t l2_bytes, Allocate allocate, Release release)
    : count_(rotation_count(bytes_each, l2_bytes)), stride_(rotation_stride(bytes_each)), release_(std::move(release)) {
  base_ = allocate(count_ * stride_);
  if (!base_) throw std::runtime_error("RotatingBuffers: allocation failed");
}

RotatingBuffers::~RotatingBuffers() {
  if (base_ && release_) release_(base_);
}

}  // namespace gpubench
