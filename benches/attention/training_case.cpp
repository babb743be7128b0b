#include "benches/attention/training_case.h"

#include <algorithm>

#include "harness/core/cudnn/cudnn_api.h"
#include "kernels/attention_backward_reference.cuh"
#include "kernels/random_fill.cuh"

namespace gpubench::attention {
namespace {

constexpr std::uint64_t kOutputGradientSeed = 0xD0D0;

// One B x H x S x D tensor of `element` bytes per value.
std::size_t tensor_bytes(const AttentionShape& shape, std::int64_t element) {
  return static_cast<std::size_t>(shape.qkv_elements() * element);
}

std::size_t row_bytes(const AttentionShape& shape) {
  return static_cast<std::size_t>(shape.heads_total() * shape.seq) * sizeof(float);
}

}  // namespace

kernels::AttentionTolerance gradient_tolerance(Element element) {
  // Element bound: four roundings (P, dS, the gradient, and O in D) of the type's unit roundoff
  // over the sum of the terms' magnitudes, with a factor 4 of margin. Row bound: as the forward's.
  if (element == Element::kBf16) return {4 * 4 * 0x1p-8, 5e-2};
  return {4 * 4 * 0x1p-11, 1e-2};
}

CudnnTraining::CudnnTraining(const cudnn::CudnnHandle& handle, const AttentionInputs& inputs,
                             std::int64_t workspace_limit, cudaStream_t stream)
    : handle_(handle.get()),
      inputs_(inputs),
      d_o_(tensor_bytes(inputs.shape(), element_bytes(inputs.shape().element))),
      stats_(row_bytes(inputs.shape())),
      row_dot_(row_bytes(inputs.shape())),
      accumulator_(tensor_bytes(inputs.shape(), sizeof(float))),
      dq_(tensor_bytes(inputs.shape(), element_bytes(inputs.shape().element))),
      dk_(tensor_bytes(inputs.shape(), element_bytes(inputs.shape().element))),
      dv_(tensor_bytes(inputs.shape(), element_bytes(inputs.shape().element))) {
  fill_signed(d_o_.get(), inputs.shape(), kOutputGradientSeed, stream);
  build(handle, workspace_limit);
}

void CudnnTraining::build(const cudnn::CudnnHandle& handle, std::int64_t workspace_limit) {
  const AttentionShape& shape = inputs_.shape();
  try {
    forward_graph_ = std::make_unique<SdpaForwardGraph>(handle_, handle.version_number(), shape, SdpaMode::kTraining);
    backward_graph_ = std::make_unique<SdpaBackwardGraph>(handle_, handle.version_number(), shape);
  } catch (const cudnn::CudnnError& error) {
    if (!cudnn_declined(error)) throw;
    why_not_ = std::string("cuDNN cannot express this attention ") + (forward_graph_ ? "backward" : "training forward") +
               ": " + error.what();
    return;
  }
  const cudnn::PlanLimits limits{workspace_limit, 1, nullptr};
  forward_plans_ = cudnn::engine_plans(handle_, forward_graph_->graph(), limits, "this attention training forward");
  backward_plans_ = cudnn::engine_plans(handle_, backward_graph_->graph(), limits, "this attention backward");
  if (forward_plans_.plans.empty()) why_not_ = forward_plans_.why_none;
  else if (backward_plans_.plans.empty()) why_not_ = backward_plans_.why_none;
}

std::int64_t CudnnTraining::largest_workspace() const {
  return std::max(cudnn::largest_workspace(forward_plans_), cudnn::largest_workspace(backward_plans_));
}

void CudnnTraining::bind(void* workspace) {
  forward_pack_ = forward_graph_->bind({inputs_.q(), inputs_.k(), inputs_.v(), inputs_.o(), stats_.as<float>()},
                                       workspace);
  SdpaGradientBuffers buffers;
  buffers.q = inputs_.q(), buffers.k = inputs_.k(), buffers.v = inputs_.v(), buffers.o = inputs_.o();
  buffers.d_o = d_o_.get();
  buffers.stats = stats_.as<float>();
  buffers.row_dot = row_dot_.as<float>();
  buffers.dq_accumulator = accumulator_.as<float>();
  buffers.dq = dq_.get(), buffers.dk = dk_.get(), buffers.dv = dv_.get();
  backward_pack_ = backward_graph_->bind(buffers, workspace);
}

void CudnnTraining::forward(cudaStream_t stream) const {
  GPUBENCH_CUDNN(cudnn::CudnnApi::get().cudnnSetStream(handle_, stream));
  cudnn::execute(handle_, forward_plans_.plans.front(), forward_pack_);
}

void CudnnTraining::backward(cudaStream_t stream) const {
  if (backward_graph_->zero_accumulator())
    GPUBENCH_CUDA(cudaMemsetAsync(accumulator_.get(), 0, accumulator_.bytes(), stream));
  GPUBENCH_CUDNN(cudnn::CudnnApi::get().cudnnSetStream(handle_, stream));
  cudnn::execute(handle_, backward_plans_.plans.front(), backward_pack_);
}

void CudnnTraining::verify(State& s, cudaStream_t stream) const {
  inputs_.verify(s, "cudnn training forward " + forward_choice().label(), [&](cudaStream_t st) { forward(st); },
                 stream);
  for (const DeviceBuffer* gradient : {&dq_, &dk_, &dv_}) kernels::poison(gradient->get(), gradient->bytes(), stream);
  forward(stream);
  backward(stream);
  kernels::AttentionGradients tensors;
  tensors.q = inputs_.q(), tensors.k = inputs_.k(), tensors.v = inputs_.v(), tensors.d_o = d_o_.get();
  tensors.dq = dq_.get(), tensors.dk = dk_.get(), tensors.dv = dv_.get();
  const kernels::GradientCheck check =
      kernels::check_attention_backward_sampled(attention_problem(inputs_.shape()), tensors,
                                                gradient_tolerance(inputs_.shape().element), kVerifiedGradientRows,
                                                0x6BAD, stream);
  const std::string engine = " (cudnn backward " + backward_choice().label() + ")";
  verify_rows(s, "dQ" + engine, check.dq);
  verify_rows(s, "dK" + engine, check.dk);
  verify_rows(s, "dV" + engine, check.dv);
  s.note("worst_gradient_row_l2_error",
         {{"dq", check.dq.worst_row_l2}, {"dk", check.dk.worst_row_l2}, {"dv", check.dv.worst_row_l2}});
}

}  // namespace gpubench::attention
