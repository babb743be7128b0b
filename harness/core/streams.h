#pragma once
// Every stream gpubench creates comes from here: benchmarks share one stream per device for the
// life of the process, and the number of streams made is known. Launch figures depend on what
// other streams have done earlier in the process: on an H200 (driver 580, 2026-11-29) a kernel
// node of a replayed graph costs the GPU 0.60 us until a second stream has run a batch of
// launches and 0.78 us from then on, for every stream of the process; back-to-back stream
// launches cost ~0.15 us more. 256 one-thread launches on the second stream triggered it in every
// program tried, one launch never did, 256 empty 128-thread launches did in one program and not
// in another: the driver's rule is not known. A fresh stream per benchmark made
// each figure depend on which benchmarks had run before it in the same worker.
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
