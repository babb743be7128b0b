#include "benches/conv/conv_graph.h"

#include <array>

namespace gpubench::conv {
namespace {

// The tensors' unique ids in the graph and the variant pack.
constexpr std::int64_t kXId = 1, kWId = 2, kYId = 3;

cudnnDataType_t data_type(Precision precision) {
  switch (precision) {
    case Precision::kFp16: return CUDNN_DATA_HALF;
    case Precision::kBf16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

// Dimensions in cuDNN's logical order (N, C, [D,] H, W), strides for the layout.
BackendDescriptor tensor(std::int64_t id, std::int64_t outer, std::int64_t channels, const std::int64_t* extent,
                         int spatial_dims, bool channels_last, cudnnDataType_t type) {
  std::vector<std::int64_t> dims{outer, channels}, strides(2 + spatial_dims);
  for (int d = 3 - spatial_dims; d < 3; ++d) dims.push_back(extent[d]);
  const std::size_t rank = dims.size();
  if (channels_last) {
    std::int64_t stride = 1;
    strides[1] = stride;
    stride *= channels;
    for (std::size_t d = rank - 1; d >= 2; --d) {
      strides[d] = stride;
      stride *= dims[d];
    }
    strides[0] = stride;
  } else {
    std::int64_t stride = 1;
    for (std::size_t d = rank; d-- > 0;) {
      strides[d] = stride;
      stride *= dims[d];
    }
  }
  BackendDescriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  t.set_int64s(CUDNN_ATTR_TENSOR_DIMENSIONS, dims);
  t.set_int64s(CUDNN_ATTR_TENSOR_STRIDES, strides);
  t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id);
  const std::int64_t alignment = 16;
  t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  t.finalize();
  return t;
}

std::vector<std::int64_t> spatial(const std::array<std::int64_t, 3>& values, int spatial_dims) {
  return std::vector<std::int64_t>(values.end() - spatial_dims, values.end());
}

struct OperationAttributes {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

OperationAttributes operation_attributes(ConvPass pass) {
  switch (pass) {
    case ConvPass::kBackwardData:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    case ConvPass::kBackwardFilter:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
    case ConvPass::kForward: break;
  }
  return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
}

}  // namespace

kernels::ConvGeometry geometry(const ConvSpec& spec) {
  const ConvLayer& l = spec.layer;
  kernels::ConvGeometry g;
  g.n = spec.n;
  g.c = l.c;
  g.k = l.k;
  g.groups = l.groups;
  const auto out = l.output();
  for (int d = 0; d < 3; ++d) {
    g.in[d] = l.input[d];
    g.filter[d] = l.filter[d];
    g.out[d] = out[d];
    g.stride[d] = l.stride[d];
    g.pad[d] = l.pad[d];
    g.dilation[d] = l.dilation[d];
  }
  g.channels_last = spec.layout == Layout::kNhwc;
  return g;
}

kernels::ConvElement element(Precision precision) {
  switch (precision) {
    case Precision::kFp16: return kernels::ConvElement::kHalf;
    case Precision::kBf16: return kernels::ConvElement::kBfloat16;
    default: return kernels::ConvElement::kFloat;
  }
}

kernels::ConvDirection direction(ConvPass pass) {
  switch (pass) {
    case ConvPass::kBackwardData: return kernels::ConvDirection::kBackwardData;
    case ConvPass::kBackwardFilter: return kernels::ConvDirection::kBackwardFilter;
    case ConvPass::kForward: break;
  }
  return kernels::ConvDirection::kForward;
}

std::int64_t element_bytes(Precision precision) {
  return precision == Precision::kFp16 || precision == Precision::kBf16 ? 2 : 4;
}

ConvGraph::ConvGraph(cudnnHandle_t handle, const ConvSpec& spec) : handle_(handle), spec_(spec) {
  const kernels::ConvGeometry g = geometry(spec);
  const int dims = spec.layer.spatial_dims;
  const cudnnDataType_t type = data_type(spec.precision);
  x_ = tensor(kXId, g.n, g.c, g.in, dims, g.channels_last, type);
  w_ = tensor(kWId, g.k, g.c / g.groups, g.filter, dims, g.channels_last, type);
  y_ = tensor(kYId, g.n, g.k, g.out, dims, g.channels_last, type);

  convolution_ = BackendDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;  // FP32 accumulation for every precision
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const std::int64_t spatial_dims = dims;
  convolution_.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  convolution_.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  convolution_.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial_dims);
  convolution_.set_int64s(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, spatial(spec.layer.pad, dims));
  convolution_.set_int64s(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, spatial(spec.layer.pad, dims));
  convolution_.set_int64s(CUDNN_ATTR_CONVOLUTION_DILATIONS, spatial(spec.layer.dilation, dims));
  convolution_.set_int64s(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, spatial(spec.layer.stride, dims));
  convolution_.finalize();

  const OperationAttributes attributes = operation_attributes(spec.pass);
  operation_ = BackendDescriptor(attributes.type);
  const float alpha = 1.0f, beta = 0.0f;
  operation_.set_descriptor(attributes.x, x_);
  operation_.set_descriptor(attributes.w, w_);
  operation_.set_descriptor(attributes.y, y_);
  operation_.set_descriptor(attributes.conv, convolution_);
  operation_.set(attributes.alpha, CUDNN_TYPE_FLOAT, 1, &alpha);
  operation_.set(attributes.beta, CUDNN_TYPE_FLOAT, 1, &beta);
  operation_.finalize();

  graph_ = cudnn::operation_graph(handle_, {&operation_});
}

ConvPlans ConvGraph::plans(std::int64_t workspace_limit, std::size_t max_plans) const {
  const Precision precision = spec_.precision;
  const cudnn::PlanLimits limits{workspace_limit, max_plans,
                                 [precision](const std::vector<cudnnBackendNumericalNote_t>& notes) {
                                   return engine_allowed(precision, notes);
                                 },
                                 true};
  return cudnn::engine_plans(handle_, graph_, limits, "this convolution");
}

BackendDescriptor make_variant_pack(void* x, void* w, void* y, void* workspace) {
  return cudnn::variant_pack({kXId, kWId, kYId}, {x, w, y}, workspace);
}

}  // namespace gpubench::conv
