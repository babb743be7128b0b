#include "benches/attention/sdpa_graph.h"

#include <limits>

namespace gpubench::attention {
namespace {

using cudnn::BackendDescriptor;

// Unique ids of the tensors the variant pack binds; virtual tensors count up from kFirstVirtual.
constexpr std::int64_t kQ = 1, kK = 2, kV = 3, kO = 4, kScale = 5, kNegativeInfinity = 6;
constexpr std::int64_t kFirstVirtual = 100;

cudnnDataType_t io_type(Element element) {
  return element == Element::kBf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
}

struct TensorSpec {
  std::vector<std::int64_t> dims, strides;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  bool is_virtual = true, by_value = false;
};

// Packed strides of `dims`, last dimension fastest.
std::vector<std::int64_t> packed(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t d = dims.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * dims[d + 1];
  return strides;
}

BackendDescriptor tensor(std::int64_t id, const TensorSpec& spec) {
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

BackendDescriptor matmul(const BackendDescriptor& a, const BackendDescriptor& b, const BackendDescriptor& c) {
  BackendDescriptor description = fp32_description(CUDNN_BACKEND_MATMUL_DESCRIPTOR, CUDNN_ATTR_MATMUL_COMP_TYPE);
  description.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c);
  op.set_descriptor(CUDNN_ATTR_OPERATION_MATMUL_DESC, description);
  op.finalize();
  return op;
}

struct PointwiseInputs {
  const BackendDescriptor* x = nullptr;
  const BackendDescriptor* b = nullptr;  // second operand of a binary mode
  const BackendDescriptor* t = nullptr;  // BINARY_SELECT's condition
  std::int64_t axis = -1;                // GEN_INDEX's dimension
  // The mode's math type: FP32, but BOOLEAN for the causal comparison.
  cudnnDataType_t math = CUDNN_DATA_FLOAT;
};

BackendDescriptor pointwise(cudnnPointwiseMode_t mode, const PointwiseInputs& in, const BackendDescriptor& y) {
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
  op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
  op.finalize();
  return op;
}

BackendDescriptor reduction(cudnnReduceTensorOp_t reduce, const BackendDescriptor& x, const BackendDescriptor& y) {
  BackendDescriptor description = fp32_description(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, CUDNN_ATTR_REDUCTION_COMP_TYPE);
  description.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &reduce);
  description.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  op.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x);
  op.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y);
  op.set_descriptor(CUDNN_ATTR_OPERATION_REDUCTION_DESC, description);
  op.finalize();
  return op;
}

}  // namespace

const BackendDescriptor& SdpaForwardGraph::keep(BackendDescriptor descriptor) {
  parts_.push_back(std::make_unique<BackendDescriptor>(std::move(descriptor)));
  return *parts_.back();
}

SdpaForwardGraph::SdpaForwardGraph(cudnnHandle_t handle, std::size_t cudnn_version, const AttentionShape& shape)
    : shape_(shape) {
  const std::int64_t b = shape.batch, h = shape.heads, s = shape.seq, d = shape.head_dim;
  const cudnnDataType_t io = io_type(shape.element);
  scale_ = static_cast<float>(shape.softmax_scale());
  // cuDNN before 9.1 wants the lowest finite value as the masked score, later ones -inf.
  negative_infinity_ = cudnn_version < 90100 ? std::numeric_limits<float>::lowest()
                                             : -std::numeric_limits<float>::infinity();
  std::int64_t next_virtual = kFirstVirtual;
  auto scores = [&](cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    return &keep(tensor(next_virtual++, {{b, h, s, s}, packed({b, h, s, s}), type}));
  };
  auto per_row = [&] { return &keep(tensor(next_virtual++, {{b, h, s, 1}, packed({b, h, s, 1})})); };
  const std::vector<std::int64_t> bhsd{b, h, s, d};
  const auto* q = &keep(tensor(kQ, {bhsd, packed(bhsd), io, false}));
  // Kᵀ is K read with its last two dimensions swapped: dims B, H, D, S over K's B, H, S, D storage.
  const auto* k_transposed = &keep(tensor(kK, {{b, h, d, s}, {h * s * d, s * d, 1, d}, io, false}));
  const auto* v = &keep(tensor(kV, {bhsd, packed(bhsd), io, false}));
  const auto* o = &keep(tensor(kO, {bhsd, packed(bhsd), io, false}));
  const TensorSpec scalar{{1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, false, true};
  const auto* scale = &keep(tensor(kScale, scalar));

  std::vector<const BackendDescriptor*> ops;
  const auto* raw = scores();
  ops.push_back(&keep(matmul(*q, *k_transposed, *raw)));
  const auto* scaled = scores();
  ops.push_back(&keep(pointwise(CUDNN_POINTWISE_MUL, {raw, scale}, *scaled)));
  const BackendDescriptor* logits = scaled;
  if (shape.causal) {
    const auto* row = scores();
    const auto* column = scores();
    const auto* keep_mask = scores(CUDNN_DATA_BOOLEAN);
    const auto* negative_infinity = &keep(tensor(kNegativeInfinity, scalar));
    const auto* masked = scores();
    ops.push_back(&keep(pointwise(CUDNN_POINTWISE_GEN_INDEX, {scaled, nullptr, nullptr, 2}, *row)));
    ops.push_back(&keep(pointwise(CUDNN_POINTWISE_GEN_INDEX, {scaled, nullptr, nullptr, 3}, *column)));
    ops.push_back(&keep(pointwise(CUDNN_POINTWISE_CMP_GE, {row, column, nullptr, -1, CUDNN_DATA_BOOLEAN}, *keep_mask)));
    ops.push_back(&keep(pointwise(CUDNN_POINTWISE_BINARY_SELECT, {scaled, negative_infinity, keep_mask}, *masked)));
    logits = masked;
  }
  // The flash pattern computes the statistics a backward pass would read; inference keeps them virtual.
  const auto* row_max = per_row();
  const auto* shifted = scores();
  const auto* exponent = scores();
  const auto* row_sum = per_row();
  const auto* log_sum = per_row();
  const auto* stats = per_row();
  // P·V takes P in the input type: the engine feeds it to the tensor cores as such.
  const auto* probabilities = scores(io);
  ops.push_back(&keep(reduction(CUDNN_REDUCE_TENSOR_MAX, *logits, *row_max)));
  ops.push_back(&keep(pointwise(CUDNN_POINTWISE_SUB, {logits, row_max}, *shifted)));
  ops.push_back(&keep(pointwise(CUDNN_POINTWISE_EXP, {shifted}, *exponent)));
  ops.push_back(&keep(reduction(CUDNN_REDUCE_TENSOR_ADD, *exponent, *row_sum)));
  ops.push_back(&keep(pointwise(CUDNN_POINTWISE_LOG, {row_sum}, *log_sum)));
  ops.push_back(&keep(pointwise(CUDNN_POINTWISE_ADD, {row_max, log_sum}, *stats)));
  ops.push_back(&keep(pointwise(CUDNN_POINTWISE_DIV, {exponent, row_sum}, *probabilities)));
  ops.push_back(&keep(matmul(*probabilities, *v, *o)));
  graph_ = cudnn::operation_graph(handle, ops);
}

BackendDescriptor SdpaForwardGraph::bind(const SdpaBuffers& buffers, void* workspace) const {
  std::vector<std::int64_t> ids{kQ, kK, kV, kO, kScale};
  std::vector<void*> pointers{const_cast<void*>(buffers.q), const_cast<void*>(buffers.k),
                              const_cast<void*>(buffers.v), buffers.o, const_cast<float*>(&scale_)};
  if (shape_.causal) {
    ids.push_back(kNegativeInfinity);
    pointers.push_back(const_cast<float*>(&negative_infinity_));
  }
  return cudnn::variant_pack(ids, pointers, workspace);
}

}  // namespace gpubench::attention
