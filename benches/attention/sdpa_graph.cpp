#include "benches/attention/sdpa_graph.h"

namespace gpubench::attention {

std::string sdpa_form_unsupported(SdpaForm form, SdpaMode mode, std::size_t cudnn_version,
                                  const AttentionShape& shape) {
  if (form == SdpaForm::kDecomposed) return "";
  if (cudnn_version < 91301)
    return "cuDNN's SDPA operation needs cuDNN 9.13.1 or later; this one is " + std::to_string(cudnn_version);
  // A mask on it is a subgraph or block mask of cuDNN 9.21 and later, which this graph does not build.
  if (shape.causal) return "the SDPA operation is built here without a mask: causal attention takes impl:cudnn";
  if (mode == SdpaMode::kTraining) return "the SDPA operation is built here for inference only";
  return "";
}

SdpaForwardGraph::SdpaForwardGraph(cudnnHandle_t handle, std::size_t cudnn_version, const AttentionShape& shape,
                                   SdpaMode mode, SdpaForm form)
    : mode_(mode), parts_(shape, cudnn_version) {
  GraphParts& g = parts_;
  if (form == SdpaForm::kUnified) {
    g.sdpa_operation(g.io_tensor(kQ), g.io_tensor(kK), g.io_tensor(kV), g.io_tensor(kO), g.scalar(kScale));
    graph_ = g.graph(handle);
    return;
  }
  const auto* logits = g.masked_logits(g.io_tensor(kQ), g.transposed_io_tensor(kK));
  // The flash pattern computes the statistics a backward pass reads: max + log Σ exp per row.
  const auto* row_max = g.per_row();
  const auto* shifted = g.scores();
  const auto* exponent = g.scores();
  const auto* row_sum = g.per_row();
  const auto* log_sum = g.per_row();
  const auto* stats = mode == SdpaMode::kTraining ? g.row_tensor(kStats) : g.per_row();
  // P·V takes P in the input type: the engine feeds it to the tensor cores as such.
  const auto* probabilities = g.scores(io_type(shape.element));
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, logits, row_max);
  g.pointwise(CUDNN_POINTWISE_SUB, {logits, row_max}, shifted);
  g.pointwise(CUDNN_POINTWISE_EXP, {shifted}, exponent);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, exponent, row_sum);
  g.pointwise(CUDNN_POINTWISE_LOG, {row_sum}, log_sum);
  g.pointwise(CUDNN_POINTWISE_ADD, {row_max, log_sum}, stats);
  g.pointwise(CUDNN_POINTWISE_DIV, {exponent, row_sum}, probabilities);
  g.matmul(probabilities, g.io_tensor(kV), g.io_tensor(kO));
  graph_ = g.graph(handle);
}

cudnn::BackendDescriptor SdpaForwardGraph::bind(const SdpaBuffers& buffers, void* workspace) const {
  std::vector<std::int64_t> ids{kQ, kK, kV, kO};
  std::vector<void*> pointers{const_cast<void*>(buffers.q), const_cast<void*>(buffers.k),
                              const_cast<void*>(buffers.v), buffers.o};
  if (mode_ == SdpaMode::kTraining) {
    ids.push_back(kStats);
    pointers.push_back(buffers.stats);
  }
  parts_.bind_scalars(ids, pointers);
  return cudnn::variant_pack(ids, pointers, workspace);
}

}  // namespace gpubench::attention
