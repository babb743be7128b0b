#include "harness/core/cudnn/cudnn_api.h"

#include <cuda_runtime_api.h>

#include "harness/core/cuda_check.h"

namespace gpubench::cudnn {

std::string cudnn_last_error() {
  char message[1024] = {};
  CudnnApi::get().cudnnGetLastErrorString(message, sizeof message);
  return message;
}

void check_cudnn(cudnnStatus_t status, const char* call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const std::string detail = cudnn_last_error();
  throw CudnnError(status, std::string(call) + ": " + CudnnApi::get().cudnnGetErrorString(status) +
                               (detail.empty() ? "" : " (" + detail + ")"));
}

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) {
  GPUBENCH_CUDNN(CudnnApi::get().cudnnBackendCreateDescriptor(type, &descriptor_));
}

BackendDescriptor::~BackendDescriptor() {
  if (descriptor_) CudnnApi::get().cudnnBackendDestroyDescriptor(descriptor_);
}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& other) noexcept {
  if (this != &other) {
    if (descriptor_) CudnnApi::get().cudnnBackendDestroyDescriptor(descriptor_);
    descriptor_ = other.descriptor_;
    other.descriptor_ = nullptr;
  }
  return *this;
}

void BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
                            const void* values) {
  GPUBENCH_CUDNN(CudnnApi::get().cudnnBackendSetAttribute(descriptor_, name, type, count, values));
}

void BackendDescriptor::set_int64s(cudnnBackendAttributeName_t name, const std::vector<std::int64_t>& values) {
  set(name, CUDNN_TYPE_INT64, static_cast<std::int64_t>(values.size()), values.data());
}

void BackendDescriptor::set_descriptor(cudnnBackendAttributeName_t name, const BackendDescriptor& value) {
  cudnnBackendDescriptor_t raw = value.get();
  set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
}

void BackendDescriptor::set_descriptors(cudnnBackendAttributeName_t name,
                                        const std::vector<const BackendDescriptor*>& values) {
  std::vector<cudnnBackendDescriptor_t> raw;
  for (const BackendDescriptor* value : values) raw.push_back(value->get());
  set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(raw.size()), raw.data());
}

cudnnStatus_t BackendDescriptor::try_finalize() { return CudnnApi::get().cudnnBackendFinalize(descriptor_); }

void BackendDescriptor::finalize() { GPUBENCH_CUDNN(try_finalize()); }

std::int64_t BackendDescriptor::get_int64(cudnnBackendAttributeName_t name) const {
  std::int64_t value = 0, count = 0;
  GPUBENCH_CUDNN(CudnnApi::get().cudnnBackendGetAttribute(descriptor_, name, CUDNN_TYPE_INT64, 1, &count, &value));
  return value;
}

CudnnHandle::CudnnHandle(int device) {
  GPUBENCH_CUDA(cudaSetDevice(device));
  GPUBENCH_CUDNN(CudnnApi::get().cudnnCreate(&handle_));
}

CudnnHandle::~CudnnHandle() {
  if (handle_) CudnnApi::get().cudnnDestroy(handle_);
}

std::size_t CudnnHandle::version_number() const { return CudnnApi::get().cudnnGetVersion(); }

std::string CudnnHandle::version() const {
  const std::size_t v = version_number();
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

CudnnWorkspace::CudnnWorkspace(int device) { GPUBENCH_CUDA(cudaSetDevice(device)); }

CudnnWorkspace::~CudnnWorkspace() {
  if (data_) cudaFree(data_);
}

void* CudnnWorkspace::reserve(std::int64_t bytes) {
  if (bytes <= bytes_) return data_;
  if (data_) {
    GPUBENCH_CUDA(cudaDeviceSynchronize());  // work enqueued earlier may still use it
    GPUBENCH_CUDA(cudaFree(data_));
    data_ = nullptr;
    bytes_ = 0;
  }
  GPUBENCH_CUDA(cudaMalloc(&data_, static_cast<std::size_t>(bytes)));
  bytes_ = bytes;
  return data_;
}

}  // namespace gpubench::cudnn
