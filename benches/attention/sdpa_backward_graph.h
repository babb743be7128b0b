#pragma once
// Scaled dot-product attention backward as a cuDNN 9 operation graph, in the pattern cuDNN's
// fused flash backward engine matches (the one the cuDNN frontend builds): from Q, K, V, O, dO
// and the forward's softmax statistics (SdpaMode::kTraining),
//   D = rowsum(dO ∘ O)                       written to an FP32 row buffer of ours,
//   P = exp(scale · Q·Kᵀ [causal] − stats),  dV = Pᵀ·dO,
//   dS = P ∘ (dO·Vᵀ − D) · scale,           dK = dSᵀ·Q,  dQ = dS·K through an FP32 accumulator,
// every S x S intermediate virtual (Pᵀ and dSᵀ in the input type, as the matmuls take them).
#include <cudnn.h>

#include "benches/attention/attention_shape.h"
#include "benches/attention/graph_parts.h"
#include "harness/core/cudnn/engine_plans.h"

namespace gpubench::attention {

struct SdpaGradientBuffers {
  const void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *d_o = nullptr;
  const float* stats = nullptr;         // B x H x S, from the training forward
  float* row_dot = nullptr;             // B x H x S: D
  float* dq_accumulator = nullptr;      // B x H x S x D
  void *dq = nullptr, *dk = nullptr, *dv = nullptr;
};

class SdpaBackwardGraph {
 public:
  // Throws cudnn::CudnnError (NOT_SUPPORTED, BAD_PARAM...) when cuDNN cannot express it here.
  SdpaBackwardGraph(cudnnHandle_t handle, std::size_t cudnn_version, const AttentionShape& shape);
  const cudnn::BackendDescriptor& graph() const { return graph_; }
  cudnn::BackendDescriptor bind(const SdpaGradientBuffers& buffers, void* workspace) const;
  // cuDNN before 9.6 accumulates dQ into the accumulator as it finds it: it is zeroed before
  // every run.
  bool zero_accumulator() const { return zero_accumulator_; }

 private:
  bool zero_accumulator_;
  float one_ = 1.0f;  // by value: the variant pack points at it
  GraphParts parts_;
  cudnn::BackendDescriptor graph_;
};

}  // namespace gpubench::attention
