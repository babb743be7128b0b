#pragma once
// Error handling for CUDA calls inside benchmarks. A failed call throws CudaError; the runner
// records the benchmark as failed with the message and, because many CUDA errors are sticky
// and poison the context, the worker process ends after reporting it.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpubench {

struct CudaError : std::runtime_error {
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code(code) {}
  cudaError_t code;
};

// Thrown by State::skip() and by allocations that cannot fit: the benchmark is reported as
// skipped with the reason, not as failed.
struct SkipSignal {
  std::string reason;
};

void cuda_check(cudaError_t status, const char* expression, const char* file, int line);
// After a kernel launch: a bad launch configuration shows up here, not at the launch.
void cuda_check_launch(const char* file, int line);

// Device memory owned for the lifetime of a benchmark run. An allocation that does not fit is
// a skip ("needs N bytes, M free"), since the configuration is valid on a larger GPU.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace gpubench

#define GPUBENCH_CUDA(expression) ::gpubench::cuda_check((expression), #expression, __FILE__, __LINE__)
#define GPUBENCH_CHECK_LAUNCH() ::gpubench::cuda_check_launch(__FILE__, __LINE__)
