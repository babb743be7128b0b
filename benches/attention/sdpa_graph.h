#pragma once
// Scaled dot-product attention forward as a cuDNN 9 operation graph, in the pattern cuDNN runs as
// one fused ("flash") engine: S = Q·Kᵀ -> S · scale -> [causal: keep j <= i, else -inf] ->
// softmax (max, subtract, exp, sum, log-sum statistics, divide) -> O = P·V, every intermediate
// virtual and FP32 but P (in the input type), Q, K, V, O in B, H, S, D layout. This is the
// inference graph: the softmax statistics (max + log sum per row) stay virtual.
// Built from backend descriptors present in every cuDNN 9 (the nodes carry 9.14), not from the
// single SDPA operation newer libraries add.
#include <cudnn.h>

#include <memory>
#include <vector>

#include "benches/attention/attention_shape.h"
#include "harness/core/cudnn/engine_plans.h"

namespace gpubench::attention {

struct SdpaBuffers {
  const void *q = nullptr, *k = nullptr, *v = nullptr;
  void* o = nullptr;
};

class SdpaForwardGraph {
 public:
  // Throws cudnn::CudnnError (NOT_SUPPORTED, BAD_PARAM...) when cuDNN cannot express it here.
  // `cudnn_version`: the loaded library's (CudnnHandle::version_number()).
  SdpaForwardGraph(cudnnHandle_t handle, std::size_t cudnn_version, const AttentionShape& shape);
  const cudnn::BackendDescriptor& graph() const { return graph_; }
  // The variant pack for `buffers` and a workspace of at least the chosen plan's size.
  cudnn::BackendDescriptor bind(const SdpaBuffers& buffers, void* workspace) const;

 private:
  const cudnn::BackendDescriptor& keep(cudnn::BackendDescriptor descriptor);

  AttentionShape shape_;
  // The scale and -inf tensors are passed by value: the variant pack points at these.
  float scale_ = 1.0f, negative_infinity_ = 0.0f;
  std::vector<std::unique_ptr<cudnn::BackendDescriptor>> parts_;  // tensors and operations the graph refers to
  cudnn::BackendDescriptor graph_;
};

}  // namespace gpubench::attention
