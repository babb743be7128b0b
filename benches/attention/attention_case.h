#pragma once
// One attention problem ready to run: random Q, K, V and the output O on the device, the unfused
// path (cuBLASLt Q·Kᵀ, our softmax, cuBLASLt P·V), the fused cuDNN path with the plans its
// heuristics offer, and verification of an output against the FP32 reference on sampled rows.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "benches/attention/attention_shape.h"
#include "benches/attention/lt_batched.h"
#include "benches/attention/sdpa_graph.h"
#include "harness/core/state.h"
#include "kernels/attention_reference.cuh"

namespace gpubench::attention {

// Query rows checked per implementation: two fixed (the first and the last) and the rest random.
constexpr std::int64_t kVerifiedRows = 256;

// Stated per type: fp16 rounds P and O to 11 bits, bf16 to 8, accumulation is FP32 in both.
kernels::AttentionTolerance tolerance(Element element);
kernels::Float16Kind float16_kind(Element element);
kernels::AttentionProblem attention_problem(const AttentionShape& shape);
// B x H x S x D elements of magnitude [0.25, 1) with random sign: the output does not average
// out to a constant, so a wrong softmax cannot pass.
void fill_signed(void* data, const AttentionShape& shape, std::uint64_t seed, cudaStream_t stream);
// cuDNN's answer that it cannot build a graph (its NOT_SUPPORTED and BAD_PARAM families), which
// skips the benchmark; anything else is an error.
bool cudnn_declined(const cudnn::CudnnError& error);
// One State::verify of a sampled check, naming `what` and the first row that failed.
void verify_rows(State& s, const std::string& what, const kernels::AttentionCheck& check);
// Poisons `o`, runs `op`, checks O with `check`: one verify_rows naming `what`, the worst row's
// error as a note.
void verify_output(State& s, const std::string& what, const DeviceBuffer& o,
                   const std::function<void(cudaStream_t)>& op,
                   const std::function<kernels::AttentionCheck(cudaStream_t)>& check, cudaStream_t stream);
// The datasheet's dense rate for the type (configs/peaks.json, via the context) as the peak of
// a tflops primary metric; where the GPU has none, the reason as its source.
void set_tflops_peak(State& s, Element element);

class AttentionInputs {
 public:
  AttentionInputs(const AttentionShape& shape, std::uint64_t seed, cudaStream_t stream);
  const AttentionShape& shape() const { return shape_; }
  const void* q() const { return q_.get(); }
  const void* k() const { return k_.get(); }
  const void* v() const { return v_.get(); }
  void* o() const { return o_.get(); }
  // Poisons O, runs `op`, checks O: one State::verify naming `what`.
  void verify(State& s, const std::string& what, const std::function<void(cudaStream_t)>& op,
              cudaStream_t stream) const;

 private:
  AttentionShape shape_;
  DeviceBuffer q_, k_, v_, o_;
};

class UnfusedAttention {
 public:
  // The handle and workspace are the worker's (State::resource).
  UnfusedAttention(const cublaslt::LtHandle& handle, const LtBatchedWorkspace& workspace, const AttentionInputs& inputs);
  void scores(cudaStream_t stream) const;   // S = Q·Kᵀ
  void softmax(cudaStream_t stream) const;  // P = softmax(scale · S) in place
  void output(cudaStream_t stream) const;   // O = P·V
  void run(cudaStream_t stream) const;

 private:
  const AttentionInputs& inputs_;
  DeviceBuffer scores_;
  LtBatchedMatmul qk_, pv_;
};

class CudnnAttention {
 public:
  // runnable() is false, with cuDNN's reason, when the graph or every plan is rejected.
  CudnnAttention(const cudnn::CudnnHandle& handle, const AttentionInputs& inputs, const cudnn::PlanLimits& limits,
                 SdpaForm form = SdpaForm::kDecomposed);
  bool runnable() const { return !plans_.plans.empty(); }
  const std::string& why_not_runnable() const { return plans_.why_none; }
  const std::vector<cudnn::EnginePlan>& plans() const { return plans_.plans; }
  std::int64_t largest_workspace() const;
  void bind(void* workspace);  // before run()
  void run(std::size_t plan, cudaStream_t stream) const;
  std::vector<TuneCandidate> candidates() const;
  std::size_t heuristic_index() const;  // the first plan of cuDNN's mode-A ranking

 private:
  cudnnHandle_t handle_;
  const AttentionInputs& inputs_;
  std::unique_ptr<SdpaForwardGraph> graph_;
  cudnn::EnginePlans plans_;
  cudnn::BackendDescriptor variant_pack_;
};

// The shape a benchmark names: model preset (heads, head_dim), batch, seq, causal, type.
AttentionShape shape_from_axes(const State& s);
// The same with the element given, not read from the type axis (e4m3: its reference's type).
AttentionShape shape_from_axes(const State& s, Element element);
// Skips the benchmark when `shape` cannot run (unsupported head dim; the unfused S x S buffer
// larger than half the GPU's memory when `unfused`).
void skip_if_unsupported(State& s, const AttentionShape& shape, bool unfused);

}  // namespace gpubench::attention
