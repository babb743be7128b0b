#pragma once
// One convolution as a cuDNN 9 operation graph (forward, data gradient or filter gradient), the
// engine configurations cuDNN's heuristics offer for it as finalized execution plans, and the
// variant pack that binds the buffers.
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "benches/conv/conv_layer.h"
#include "benches/conv/engine_choice.h"
#include "harness/core/cudnn/engine_plans.h"
#include "kernels/conv_reference.cuh"

namespace gpubench::conv {

struct ConvSpec {
  ConvLayer layer;
  std::int64_t n = 1;
  Precision precision = Precision::kFp32;
  Layout layout = Layout::kNhwc;
  ConvPass pass = ConvPass::kForward;
};

kernels::ConvGeometry geometry(const ConvSpec& spec);
kernels::ConvElement element(Precision precision);
kernels::ConvDirection direction(ConvPass pass);
std::int64_t element_bytes(Precision precision);

using cudnn::BackendDescriptor;
using ConvPlan = cudnn::EnginePlan;
using ConvPlans = cudnn::EnginePlans;

class ConvGraph {
 public:
  // Throws CudnnError (status CUDNN_STATUS_NOT_SUPPORTED...) when cuDNN cannot express it.
  ConvGraph(cudnnHandle_t handle, const ConvSpec& spec);
  // At most `max_plans` plans that `spec.precision` admits and that need at most
  // `workspace_limit` bytes.
  ConvPlans plans(std::int64_t workspace_limit, std::size_t max_plans) const;
  const ConvSpec& spec() const { return spec_; }

 private:
  cudnnHandle_t handle_;
  ConvSpec spec_;
  BackendDescriptor x_, w_, y_, convolution_, operation_, graph_;
};

// Binds x (or dx), w (or dw), y (or dy) and a workspace large enough for every plan it runs.
BackendDescriptor make_variant_pack(void* x, void* w, void* y, void* workspace);

}  // namespace gpubench::conv
