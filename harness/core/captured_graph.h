#pragma once
// Operations captured once from a stream into a CUDA graph, instantiated and uploaded, so that a
// replay costs one launch however many kernels and calls they hold.
#include <cuda_runtime_api.h>

#include <functional>

namespace gpubench {

class CapturedGraph {
 public:
  // `op` called `ops` times on `stream` while it captures; an `op` that throws leaves the stream
  // out of capture mode and the exception goes on.
  CapturedGraph(cudaStream_t stream, int ops, const std::function<void(cudaStream_t)>& op);
  ~CapturedGraph();
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  void launch(cudaStream_t stream) const;
  // Kernel, memset, memcpy and other nodes the capture made.
  std::size_t nodes() const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gpubench
