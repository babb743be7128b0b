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

// Fills `choice` from a heuristic's engine configuration.
void describe(cudnnBackendDescriptor_t config, EngineChoice& choice) {
  const CudnnApi& api = CudnnApi::get();
  BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t engine_raw = engine.get();
  std::int64_t count = 0;
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                              &count, &engine_raw));
  choice.engine = engine.get_int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
  // Arrays sized by this header's counts: an older library fills fewer, never more.
  std::array<cudnnBackendNumericalNote_t, CUDNN_NUMERICAL_NOTE_TYPE_COUNT> notes{};
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                              static_cast<std::int64_t>(notes.size()), &count, notes.data()));
  choice.numerical_notes.assign(notes.begin(), notes.begin() + count);
  std::array<cudnnBackendBehaviorNote_t, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT> behaviors{};
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                              static_cast<std::int64_t>(behaviors.size()), &count, behaviors.data()));
  choice.behavior_notes.assign(behaviors.begin(), behaviors.begin() + count);
  std::vector<BackendDescriptor> knobs;
  std::vector<cudnnBackendDescriptor_t> knob_raw;
  for (int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
    knobs.emplace_back(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    knob_raw.push_back(knobs.back().get());
  }
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              static_cast<std::int64_t>(knob_raw.size()), &count, knob_raw.data()));
  for (std::int64_t i = 0; i < count; ++i) {
    cudnnBackendKnobType_t type{};
    std::int64_t got = 0;
    GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(knob_raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1,
                                                &got, &type));
    choice.knobs.emplace_back(static_cast<int>(type), knobs[i].get_int64(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE));
  }
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

  graph_ = BackendDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnBackendDescriptor_t op = operation_.get();
  graph_.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
  // Deprecated in 9.19's header but required by the 9.14 library the nodes carry.
  graph_.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
  graph_.finalize();
}

void ConvGraph::add_candidates(cudnnBackendHeurMode_t mode, std::int64_t workspace_limit, std::size_t max_plans,
                               ConvPlans& out) const {
  const CudnnApi& api = CudnnApi::get();
  BackendDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristics.set_descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph_);
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  if (heuristics.try_finalize() != CUDNN_STATUS_SUCCESS) {
    if (out.why_none.empty()) out.why_none = "cuDNN heuristics: " + cudnn_last_error();
    return;
  }
  std::int64_t count = 0;
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<BackendDescriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, raw.data()));
  for (std::int64_t i = 0; i < count && out.plans.size() < max_plans; ++i) {
    ConvPlan candidate;
    describe(raw[i], candidate.choice);
    candidate.choice.heuristic = mode == CUDNN_HEUR_MODE_A;
    bool seen = false;
    for (const auto& p : out.plans) seen = seen || p.choice.same_config(candidate.choice);
    if (seen) continue;
    if (!engine_allowed(spec_.precision, candidate.choice.numerical_notes)) {
      ++out.rejected_by_notes;
      continue;
    }
    candidate.plan = BackendDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    candidate.plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
    candidate.plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw[i]);
    if (candidate.plan.try_finalize() != CUDNN_STATUS_SUCCESS) {
      ++out.failed_to_finalize;
      if (out.why_none.empty()) out.why_none = "cuDNN execution plan: " + cudnn_last_error();
      continue;
    }
    candidate.choice.workspace_bytes = candidate.plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
    if (candidate.choice.workspace_bytes > workspace_limit) {
      ++out.rejected_by_workspace;
      continue;
    }
    out.plans.push_back(std::move(candidate));
  }
}

ConvPlans ConvGraph::plans(std::int64_t workspace_limit, std::size_t max_plans) const {
  ConvPlans out;
  add_candidates(CUDNN_HEUR_MODE_A, workspace_limit, max_plans, out);
  add_candidates(CUDNN_HEUR_MODE_FALLBACK, workspace_limit, max_plans, out);
  if (out.plans.empty())
    out.why_none = "no cuDNN engine for this convolution (" + std::to_string(out.rejected_by_notes) +
                   " excluded by the precision's numerical rule, " + std::to_string(out.rejected_by_workspace) +
                   " over the workspace limit, " + std::to_string(out.failed_to_finalize) + " not finalized)" +
                   (out.why_none.empty() ? "" : ": " + out.why_none);
  return out;
}

BackendDescriptor make_variant_pack(void* x, void* w, void* y, void* workspace) {
  BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  std::vector<std::int64_t> ids{kXId, kWId, kYId};
  void* pointers[] = {x, w, y};
  pack.set_int64s(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, ids);
  pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
  pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
  pack.finalize();
  return pack;
}

void execute(cudnnHandle_t handle, const ConvPlan& plan, const BackendDescriptor& variant_pack) {
  GPUBENCH_CUDNN(CudnnApi::get().cudnnBackendExecute(handle, plan.plan.get(), variant_pack.get()));
}

}  // namespace gpubench::conv
