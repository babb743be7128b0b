#include "harness/core/cuda_check.h"

#include <utility>

namespace gpubench {

void cuda_check(cudaError_t status, const char* expression, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::string where = file;
  where = where.substr(where.find_last_of('/') + 1);
  throw CudaError(status, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) +
                              ") in " + expression + " at " + where + ":" + std::to_string(line));
}

void cuda_check_launch(const char* file, int line) {
  cuda_check(cudaGetLastError(), "kernel launch", file, line);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  const cudaError_t status = cudaMalloc(&ptr_, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it so the next benchmark starts clean
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    throw SkipSignal{"does not fit in device memory: needs " + std::to_string(bytes) + " more bytes, " +
                     std::to_string(free_bytes) + " free of " + std::to_string(total_bytes)};
  }
  GPUBENCH_CUDA(status);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

}  // namespace gpubench
