#include "harness/core/scoped_device.h"

#include <cuda_runtime_api.h>

#include "harness/core/cuda_check.h"

namespace gpubench {

ScopedDevice::ScopedDevice(int device) {
  GPUBENCH_CUDA(cudaGetDevice(&previous_));
  if (device != previous_) GPUBENCH_CUDA(cudaSetDevice(device));
}

ScopedDevice::~ScopedDevice() { cudaSetDevice(previous_); }

}  // namespace gpubench
