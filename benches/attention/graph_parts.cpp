#include "benches/attention/graph_parts.h"

#include <limits>

namespace gpubench::attention {
namespace {

using cudnn::BackendDescriptor;

BackendDescriptor make_tensor(std::int64_t id, const TensorSpec& spec) {
  BackendDescriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &spec.type);
  t.set_int64s(CUDNN_ATTR_TENSOR_DIMENSIONS, spec.dims);
  t.set_int64s(CUDNN_ATTR_TENSOR_STRIDES, spec.strides);
  t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id);
  const std::int64_t alignment = 16;
  t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  if (spec.is_virtual) {
    const bool yes = true;
    t.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &yes);
  }
  if (spec.by_value) {
    const bool yes = true;
    t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &yes);
  }
  t.finalize();
  return t;
}

// A matmul or reduction description computing in FP32, not yet finalized.
BackendDescriptor fp32_description(cudnnBackendDescriptorType_t type, cudnnBackendAttributeName_t compute_attribute) {
  BackendDescriptor description(type);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  description.set(compute_attribute, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  return description;
}

}  // namespace

cudnnDataType_t io_type(Element element) {
  return element == Element::kBf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
}

std::vector<std::int64_t> packed(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t d = dims.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * dims[d + 1];
  return strides;
}

GraphParts::GraphParts(const AttentionShape& shape, std::size_t cudnn_version)
    : shape_(shape),
      scale_(static_cast<float>(shape.softmax_scale())),
      // cuDNN before 9.1 wants the lowest finite value as the masked score, later ones -inf.
      negative_infinity_(cudnn_version < 90100 ? std::numeric_limits<float>::lowest()
                                               : -std::numeric_limits<float>::infinity()) {}

GraphParts::Tensor GraphParts::keep(BackendDescriptor descriptor) {
  parts_.push_back(std::make_unique<BackendDescriptor>(std::move(descriptor)));
  return parts_.back().get();
}

void GraphParts::add(BackendDescriptor operation) { operations_.push_back(keep(std::move(operation))); }

GraphParts::Tensor GraphParts::tensor(std::int64_t id, const TensorSpec& spec) { return keep(make_tensor(id, spec)); }

GraphParts::Tensor GraphParts::io_tensor(std::int64_t id) {
  const std::vector<std::int64_t> dims{shape_.batch, shape_.heads, shape_.seq, shape_.head_dim};
  return tensor(id, {dims, packed(dims), io_type(shape_.element), false});
}

GraphParts::Tensor GraphParts::transposed_io_tensor(std::int64_t id) {
  const std::int64_t h = shape_.heads, s = shape_.seq, d = shape_.head_dim;
  return tensor(id, {{shape_.batch, h, d, s}, {h * s * d, s * d, 1, d}, io_type(shape_.element), false});
}

GraphParts::Tensor GraphParts::fp32_tensor(std::int64_t id) {
  const std::vector<std::int64_t> dims{shape_.batch, shape_.heads, shape_.seq, shape_.head_dim};
  return tensor(id, {dims, packed(dims), CUDNN_DATA_FLOAT, false});
}

GraphParts::Tensor GraphParts::row_tensor(std::int64_t id) {
  const std::vector<std::int64_t> dims{shape_.batch, shape_.heads, shape_.seq, 1};
  return tensor(id, {dims, packed(dims), CUDNN_DATA_FLOAT, false});
}

GraphParts::Tensor GraphParts::scalar(std::int64_t id) {
  auto& made = scalars_[id];
  if (!made) made = tensor(id, {{1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, false, true});
  return made;
}

GraphParts::Tensor GraphParts::scores(cudnnDataType_t type) {
  const std::vector<std::int64_t> dims{shape_.batch, shape_.heads, shape_.seq, shape_.seq};
  return tensor(next_virtual_++, {dims, packed(dims), type});
}

GraphParts::Tensor GraphParts::transposed_scores(cudnnDataType_t type) {
  const std::int64_t h = shape_.heads, s = shape_.seq;
  return tensor(next_virtual_++, {{shape_.batch, h, s, s}, {h * s * s, s * s, 1, s}, type});
}

GraphParts::Tensor GraphParts::per_row() {
  const std::vector<std::int64_t> dims{shape_.batch, shape_.heads, shape_.seq, 1};
  return tensor(next_virtual_++, {dims, packed(dims)});
}

GraphParts::Tensor GraphParts::per_element(cudnnDataType_t type) {
  const std::vector<std::int64_t> dims{shape_.batch, shape_.heads, shape_.seq, shape_.head_dim};
  return tensor(next_virtual_++, {dims, packed(dims), type});
}

void GraphParts::sdpa_operation(Tensor q, Tensor k, Tensor v, Tensor o, Tensor scale) {
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
  op.set_descriptor(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, *q);
  op.set_descriptor(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, *k);
  op.set_descriptor(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, *v);
  op.set_descriptor(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, *o);
  op.set_descriptor(CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, *scale);
  op.finalize();
  add(std::move(op));
}

void GraphParts::matmul(Tensor a, Tensor b, Tensor c) {
  BackendDescriptor description = fp32_description(CUDNN_BACKEND_MATMUL_DESCRIPTOR, CUDNN_ATTR_MATMUL_COMP_TYPE);
  description.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_ADESC, *a);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_BDESC, *b);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_CDESC, *c);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_DESC, description);
  op.finalize();
  keep(std::move(description));
  add(std::move(op));
}

void GraphParts::pointwise(cudnnPointwiseMode_t mode, const PointwiseInputs& in, Tensor y) {
  BackendDescriptor description(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  description.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
  description.set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &in.math);
  if (in.axis >= 0) description.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &in.axis);
  description.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, description);
  op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, *in.x);
  if (in.b) op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *in.b);
  if (in.t) op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *in.t);
  op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, *y);
  op.finalize();
  keep(std::move(description));
  add(std::move(op));
}

void GraphParts::reduction(cudnnReduceTensorOp_t reduce, Tensor x, Tensor y) {
  BackendDescriptor description =
      fp32_description(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, CUDNN_ATTR_REDUCTION_COMP_TYPE);
  description.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &reduce);
  description.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  op.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, *x);
  op.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, *y);
  op.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_DESC, description);
  op.finalize();
  keep(std::move(description));
  add(std::move(op));
}

void GraphParts::reshape(Tensor x, Tensor y) {
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  op.set_descriptor(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, *x);
  op.set_descriptor(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, *y);
  op.finalize();
  add(std::move(op));
}

GraphParts::Tensor GraphParts::masked_logits(Tensor q, Tensor k_transposed) {
  const auto* raw = scores();
  matmul(q, k_transposed, raw);
  const auto* scaled = scores();
  pointwise(CUDNN_POINTWISE_MUL, {raw, scalar(kScale)}, scaled);
  if (!shape_.causal) return scaled;
  // Integer indices, as cuDNN's frontend writes a causal mask (the graph torch's SDPA gives cuDNN
  // 9.19, logged on an H100 on 2026-12-07), so that both are the same graph to cuDNN's heuristics.
  const auto* row = scores(CUDNN_DATA_INT32);
  const auto* column = scores(CUDNN_DATA_INT32);
  const auto* keep_mask = scores(CUDNN_DATA_BOOLEAN);
  const auto* masked = scores();
  pointwise(CUDNN_POINTWISE_GEN_INDEX, {scaled, nullptr, nullptr, 2}, row);
  pointwise(CUDNN_POINTWISE_GEN_INDEX, {scaled, nullptr, nullptr, 3}, column);
  pointwise(CUDNN_POINTWISE_CMP_GE, {row, column, nullptr, -1, CUDNN_DATA_BOOLEAN}, keep_mask);
  pointwise(CUDNN_POINTWISE_BINARY_SELECT, {scaled, scalar(kNegativeInfinity), keep_mask}, masked);
  return masked;
}

cudnn::BackendDescriptor GraphParts::graph(cudnnHandle_t handle) const {
  return cudnn::operation_graph(handle, operations_);
}

void GraphParts::bind_scalars(std::vector<std::int64_t>& ids, std::vector<void*>& pointers) const {
  ids.push_back(kScale);
  pointers.push_back(const_cast<float*>(&scale_));
  if (!shape_.causal) return;
  ids.push_back(kNegativeInfinity);
  pointers.push_back(const_cast<float*>(&negative_infinity_));
}

}  // namespace gpubench::attention
