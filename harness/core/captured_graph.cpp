#include "harness/core/captured_graph.h"

#include "harness/core/cuda_check.h"

namespace gpubench {

CapturedGraph::CapturedGraph(cudaStream_t stream, int ops, const std::function<void(cudaStream_t)>& op) {
  GPUBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < ops; ++i) op(stream);
  } catch (...) {  // the stream leaves capture mode, or every later use of it fails too
    if (cudaStreamEndCapture(stream, &graph_) == cudaSuccess && graph_) cudaGraphDestroy(graph_);
    graph_ = nullptr;
    cudaGetLastError();
    throw;
  }
  GPUBENCH_CUDA(cudaStreamEndCapture(stream, &graph_));
  GPUBENCH_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  GPUBENCH_CUDA(cudaGraphUpload(exec_, stream));
}

CapturedGraph::~CapturedGraph() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
}

void CapturedGraph::launch(cudaStream_t stream) const { GPUBENCH_CUDA(cudaGraphLaunch(exec_, stream)); }

std::size_t CapturedGraph::nodes() const {
  std::size_t count = 0;
  GPUBENCH_CUDA(cudaGraphGetNodes(graph_, nullptr, &count));
  return count;
}

}  // namespace gpubench
