#pragma once
// Every stream gpubench creates comes from here: benchmarks share one stream per device for the
// life of the process, and the number of streams made is known. Launch figures depend on what
// other streams have done earlier in the process (docs/suites.md, "launch"), so a fresh stream per
// benchmark would make a figure depend on which benchmarks ran before it in the same worker.
#include <cuda_runtime_api.h>

namespace gpubench {

// The stream benchmarks on `device` measure on: non-blocking, made on first use, kept until
// the process ends.
cudaStream_t worker_stream(int device);

// Streams gpubench has made on `device` in this process, the worker stream included and
// destroyed ones counted.
int streams_created(int device);

// A further non-blocking stream on the current device, destroyed with its owner.
class OwnedStream {
 public:
  OwnedStream();
  ~OwnedStream();
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace gpubench
