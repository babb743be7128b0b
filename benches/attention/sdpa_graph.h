#pragma once
// Scaled dot-product attention forward as a cuDNN 9 operation graph, in the pattern cuDNN runs as
// one fused ("flash") engine: S = Q·Kᵀ -> S · scale -> [causal: keep j <= i, else -inf] ->
// softmax (max, subtract, exp, sum, log-sum statistics, divide) -> O = P·V, every intermediate
// virtual and FP32 but P (in the input type), Q, K, V, O in B, H, S, D layout. Inference keeps
// the softmax statistics (max + log sum per row) virtual; training writes them (B, H, S, 1, FP32)
// for the backward pass (sdpa_backward_graph.h).
// SdpaForm::kDecomposed builds it from backend descriptors present in every cuDNN 9;
// SdpaForm::kUnified is cuDNN's one SDPA operation (9.13.1 and later, inference without a mask),
// the graph cuDNN's frontend gives torch's SDPA where nothing masks the scores, which cuDNN may run
// with kernels of its own.
#include <cudnn.h>

#include <string>

#include "benches/attention/attention_shape.h"
#include "benches/attention/graph_parts.h"
#include "harness/core/cudnn/engine_plans.h"

namespace gpubench::attention {

struct SdpaBuffers {
  const void *q = nullptr, *k = nullptr, *v = nullptr;
  void* o = nullptr;
  float* stats = nullptr;  // B x H x S, written in training
};

enum class SdpaMode { kInference, kTraining };
enum class SdpaForm { kDecomposed, kUnified };

// Why cuDNN `cudnn_version` cannot run `shape` as `form` in `mode` ("" where it can).
std::string sdpa_form_unsupported(SdpaForm form, SdpaMode mode, std::size_t cudnn_version,
                                  const AttentionShape& shape);

class SdpaForwardGraph {
 public:
  // Throws cudnn::CudnnError (NOT_SUPPORTED, BAD_PARAM...) when cuDNN cannot express it here.
  // `cudnn_version`: the loaded library's (CudnnHandle::version_number()).
  // `form` must be one sdpa_form_unsupported() allows.
  SdpaForwardGraph(cudnnHandle_t handle, std::size_t cudnn_version, const AttentionShape& shape,
                   SdpaMode mode = SdpaMode::kInference, SdpaForm form = SdpaForm::kDecomposed);
  const cudnn::BackendDescriptor& graph() const { return graph_; }
  // The variant pack for `buffers` and a workspace of at least the chosen plan's size.
  cudnn::BackendDescriptor bind(const SdpaBuffers& buffers, void* workspace) const;

 private:
  SdpaMode mode_;
  GraphParts parts_;
  cudnn::BackendDescriptor graph_;
};

}  // namespace gpubench::attention
