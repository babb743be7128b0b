#include "benches/attention/sdpa_backward_graph.h"

namespace gpubench::attention {

SdpaBackwardGraph::SdpaBackwardGraph(cudnnHandle_t handle, std::size_t cudnn_version, const AttentionShape& shape)
    : zero_accumulator_(cudnn_version < 90600), parts_(shape, cudnn_version) {
  GraphParts& g = parts_;
  const cudnnDataType_t io = io_type(shape.element);
  const auto* q = g.io_tensor(kQ);
  const auto* k_transposed = g.transposed_io_tensor(kK);
  const auto* d_o = g.io_tensor(kOutputGradient);

  // D = rowsum(dO ∘ O), through a pointwise product into the buffer the engine reads it from.
  const auto* product = g.per_element();
  const auto* row_sum = g.per_row();
  const auto* row_dot = g.row_tensor(kSoftmaxSum);
  g.pointwise(CUDNN_POINTWISE_MUL, {d_o, g.io_tensor(kO)}, product);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, product, row_sum);
  g.pointwise(CUDNN_POINTWISE_MUL, {row_sum, g.scalar(kOne)}, row_dot);

  // P from the forward's statistics, then dV = Pᵀ·dO.
  const auto* logits = g.masked_logits(q, k_transposed);
  const auto* shifted = g.scores();
  const auto* probabilities = g.scores();
  const auto* probabilities_transposed = g.transposed_scores(io);
  g.pointwise(CUDNN_POINTWISE_SUB, {logits, g.row_tensor(kStats)}, shifted);
  g.pointwise(CUDNN_POINTWISE_EXP, {shifted}, probabilities);
  g.reshape(probabilities, probabilities_transposed);
  g.matmul(probabilities_transposed, d_o, g.io_tensor(kValueGradient));

  // dS = P ∘ (dO·Vᵀ − D) · scale.
  const auto* dp = g.scores();
  const auto* centred = g.scores();
  const auto* ds_unscaled = g.scores();
  const auto* ds = g.scores();
  g.matmul(d_o, g.transposed_io_tensor(kV), dp);
  g.pointwise(CUDNN_POINTWISE_SUB, {dp, row_dot}, centred);
  g.pointwise(CUDNN_POINTWISE_MUL, {centred, probabilities}, ds_unscaled);
  g.pointwise(CUDNN_POINTWISE_MUL, {ds_unscaled, g.scalar(kScale)}, ds);

  // dK = dSᵀ·Q; dQ = dS·K, K read back from its transposed view.
  const auto* ds_transposed = g.transposed_scores(io);
  g.reshape(ds, ds_transposed);
  g.matmul(ds_transposed, q, g.io_tensor(kKeyGradient));
  const auto* k = g.per_element(io);
  const auto* accumulator = g.fp32_tensor(kQueryGradientAccumulator);
  g.reshape(k_transposed, k);
  g.matmul(ds, k, accumulator);
  g.pointwise(CUDNN_POINTWISE_IDENTITY, {accumulator}, g.io_tensor(kQueryGradient));
  graph_ = g.graph(handle);
}

cudnn::BackendDescriptor SdpaBackwardGraph::bind(const SdpaGradientBuffers& b, void* workspace) const {
  std::vector<std::int64_t> ids{kQ, kK, kV, kO, kOutputGradient, kStats, kSoftmaxSum, kQueryGradientAccumulator,
                                kQueryGradient, kKeyGradient, kValueGradient, kOne};
  std::vector<void*> pointers{const_cast<void*>(b.q), const_cast<void*>(b.k), const_cast<void*>(b.v),
                              const_cast<void*>(b.o), const_cast<void*>(b.d_o), const_cast<float*>(b.stats),
                              b.row_dot, b.dq_accumulator, b.dq, b.dk, b.dv, const_cast<float*>(&one_)};
  parts_.bind_scalars(ids, pointers);
  return cudnn::variant_pack(ids, pointers, workspace);
}

}  // namespace gpubench::attention
