#pragma once
// cuDNN, loaded at run time (harness/system/library.h): the C graph (backend) API only, whose
// functions exist in every cuDNN 9 (the node's system cuDNN may be older than the header we
// build against). Descriptors are owned by BackendDescriptor; the handle and the workspace are
// per-worker resources shared by every suite that runs cuDNN graphs (conv, attention).
#include <cudnn.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/system/library.h"

namespace gpubench::cudnn {

#define GPUBENCH_CUDNN_FUNCTIONS(X)                                                                       \
  X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream) X(cudnnGetVersion) X(cudnnGetErrorString)              \
  X(cudnnGetLastErrorString) X(cudnnBackendCreateDescriptor) X(cudnnBackendDestroyDescriptor)            \
  X(cudnnBackendFinalize) X(cudnnBackendSetAttribute) X(cudnnBackendGetAttribute) X(cudnnBackendExecute)
GPUBENCH_LIBRARY_TABLE(CudnnApi, "cudnn", GPUBENCH_CUDNN_FUNCTIONS)

// A cuDNN call that did not succeed: the status, the call and cuDNN's own last message.
struct CudnnError : std::runtime_error {
  CudnnError(cudnnStatus_t status, const std::string& message) : std::runtime_error(message), status(status) {}
  cudnnStatus_t status;
};

// cuDNN's message for its most recent failure on this thread ("" when it has none).
std::string cudnn_last_error();
void check_cudnn(cudnnStatus_t status, const char* call);
#define GPUBENCH_CUDNN(call) ::gpubench::cudnn::check_cudnn((call), #call)

class BackendDescriptor {
 public:
  BackendDescriptor() = default;
  explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
  ~BackendDescriptor();
  BackendDescriptor(BackendDescriptor&& other) noexcept : descriptor_(other.descriptor_) { other.descriptor_ = nullptr; }
  BackendDescriptor& operator=(BackendDescriptor&& other) noexcept;
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;

  cudnnBackendDescriptor_t get() const { return descriptor_; }
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
  void set_int64s(cudnnBackendAttributeName_t name, const std::vector<std::int64_t>& values);
  void set_descriptor(cudnnBackendAttributeName_t name, const BackendDescriptor& value);
  void set_descriptors(cudnnBackendAttributeName_t name, const std::vector<const BackendDescriptor*>& values);
  // Finalize, returning the status rather than throwing: NOT_SUPPORTED is an answer, not an error.
  cudnnStatus_t try_finalize();
  void finalize();
  std::int64_t get_int64(cudnnBackendAttributeName_t name) const;

 private:
  cudnnBackendDescriptor_t descriptor_ = nullptr;
};

// The worker's cuDNN handle on one device (State::resource<CudnnHandle>()).
class CudnnHandle {
 public:
  explicit CudnnHandle(int device);
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return handle_; }
  // "9.14.0", from the loaded library (not the header).
  std::string version() const;
  // major*10000 + minor*100 + patch of the loaded library, for guarding newer features.
  std::size_t version_number() const;

 private:
  cudnnHandle_t handle_ = nullptr;
};

// The worker's workspace on one device, grown to the largest size asked for.
class CudnnWorkspace {
 public:
  explicit CudnnWorkspace(int device);
  ~CudnnWorkspace();
  CudnnWorkspace(const CudnnWorkspace&) = delete;
  CudnnWorkspace& operator=(const CudnnWorkspace&) = delete;
  void* reserve(std::int64_t bytes);

 private:
  void* data_ = nullptr;
  std::int64_t bytes_ = 0;
};

}  // namespace gpubench::cudnn
