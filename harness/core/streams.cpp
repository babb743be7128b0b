#include "harness/core/streams.h"

#include <map>
#include <mutex>

#include "harness/core/cuda_check.h"

namespace gpubench {
namespace {

struct DeviceStreams {
  cudaStream_t worker = nullptr;
  int created = 0;
};

// Never destroyed: the worker streams live as long as the CUDA contexts they belong to.
struct StreamRegistry {
  std::mutex mutex;
  std::map<int, DeviceStreams> by_device;
};

StreamRegistry& registry() {
  static auto* streams = new StreamRegistry;
  return *streams;
}

int current_device() {
  int device = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  return device;
}

// Makes a stream on the current device, which must be `device`; the caller holds the mutex.
cudaStream_t create_counted(int device) {
  cudaStream_t stream = nullptr;
  GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ++registry().by_device[device].created;
  return stream;
}

}  // namespace

cudaStream_t worker_stream(int device) {
  StreamRegistry& streams = registry();
  const std::lock_guard<std::mutex> lock(streams.mutex);
  DeviceStreams& mine = streams.by_device[device];
  if (mine.worker) return mine.worker;
  const int previous = current_device();
  if (previous != device) GPUBENCH_CUDA(cudaSetDevice(device));
  try {
    mine.worker = create_counted(device);
  } catch (...) {
    cudaSetDevice(previous);
    throw;
  }
  if (previous != device) GPUBENCH_CUDA(cudaSetDevice(previous));
  return mine.worker;
}

int streams_created(int device) {
  StreamRegistry& streams = registry();
  const std::lock_guard<std::mutex> lock(streams.mutex);
  const auto found = streams.by_device.find(device);
  return found == streams.by_device.end() ? 0 : found->second.created;
}

OwnedStream::OwnedStream() {
  const int device = current_device();
  const std::lock_guard<std::mutex> lock(registry().mutex);
  stream_ = create_counted(device);
}

OwnedStream::~OwnedStream() { cudaStreamDestroy(stream_); }

}  // namespace gpubench
