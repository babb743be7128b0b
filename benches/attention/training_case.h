#pragma once
// One training step of attention through cuDNN on AttentionInputs: the forward that writes the
// softmax statistics (SdpaMode::kTraining) and the backward from them (dQ, dK, dV) against a
// random output gradient dO, each with cuDNN's heuristic first pick (what the frameworks run);
// verification of O and of the three gradients against the FP32 references on sampled rows.
#include <cstdint>
#include <memory>
#include <string>

#include "benches/attention/attention_case.h"
#include "benches/attention/sdpa_backward_graph.h"

namespace gpubench::attention {

// Query rows (dQ) and key rows (dK, dV) checked in each of the two checked heads.
constexpr std::int64_t kVerifiedGradientRows = 32;

// Stated per type: the backward rounds P, dS and the gradients to the input type (fp16 11 bits,
// bf16 8) and reads D from the rounded O.
kernels::AttentionTolerance gradient_tolerance(Element element);

class CudnnTraining {
 public:
  // runnable() is false, with cuDNN's reason, when either graph or every plan of one is rejected.
  // dO is filled on `stream`.
  CudnnTraining(const cudnn::CudnnHandle& handle, const AttentionInputs& inputs, std::int64_t workspace_limit,
                cudaStream_t stream);
  bool runnable() const { return why_not_.empty(); }
  const std::string& why_not_runnable() const { return why_not_; }
  const cudnn::EngineChoice& forward_choice() const { return forward_plans_.plans.front().choice; }
  const cudnn::EngineChoice& backward_choice() const { return backward_plans_.plans.front().choice; }
  std::int64_t largest_workspace() const;
  void bind(void* workspace);  // before forward() and backward(); both passes share it
  void forward(cudaStream_t stream) const;
  void backward(cudaStream_t stream) const;
  // Checks O after forward(), then dQ, dK, dV after forward() and backward(): State::verify each.
  void verify(State& s, cudaStream_t stream) const;

 private:
  void build(const cudnn::CudnnHandle& handle, std::int64_t workspace_limit);

  cudnnHandle_t handle_;
  const AttentionInputs& inputs_;
  DeviceBuffer d_o_, stats_, row_dot_, accumulator_, dq_, dk_, dv_;
  std::unique_ptr<SdpaForwardGraph> forward_graph_;
  std::unique_ptr<SdpaBackwardGraph> backward_graph_;
  cudnn::EnginePlans forward_plans_, backward_plans_;
  cudnn::BackendDescriptor forward_pack_, backward_pack_;
  std::string why_not_;
};

}  // namespace gpubench::attention
