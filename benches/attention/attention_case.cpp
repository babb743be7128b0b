#include "benches/attention/attention_case.h"

#include "harness/core/peaks.h"
#include "kernels/conv_reference.cuh"
#include "kernels/random_fill.cuh"
#include "kernels/softmax.cuh"

namespace gpubench::attention {
namespace {

std::size_t tensor_bytes(const AttentionShape& shape) {
  return static_cast<std::size_t>(shape.qkv_elements() * element_bytes(shape.element));
}

kernels::ConvElement fill_element(Element element) {
  return element == Element::kBf16 ? kernels::ConvElement::kBfloat16 : kernels::ConvElement::kHalf;
}

cudaDataType_t lt_type(Element element) { return element == Element::kBf16 ? CUDA_R_16BF : CUDA_R_16F; }

// Row-major S[i][j] = Q_i·K_j is column-major C = Kᵀ·Q with K and Q read as D x S column-major.
BatchedGemm scores_gemm(const AttentionShape& shape) {
  const std::int64_t s = shape.seq, d = shape.head_dim;
  BatchedGemm g;
  g.m = s, g.n = s, g.k = d, g.batch = shape.heads_total(), g.transpose_a = true;
  g.lda = d, g.ldb = d, g.ldc = s;
  g.stride_a = s * d, g.stride_b = s * d, g.stride_c = s * s;
  g.type = lt_type(shape.element);
  return g;
}

// Row-major O[i][d] = Σ_j P[i][j] V[j][d] is column-major O = V·P with V as D x S, P as S x S.
BatchedGemm output_gemm(const AttentionShape& shape) {
  const std::int64_t s = shape.seq, d = shape.head_dim;
  BatchedGemm g;
  g.m = d, g.n = s, g.k = s, g.batch = shape.heads_total();
  g.lda = d, g.ldb = s, g.ldc = d;
  g.stride_a = s * d, g.stride_b = s * s, g.stride_c = s * d;
  g.type = lt_type(shape.element);
  return g;
}

}  // namespace

kernels::AttentionTolerance tolerance(Element element) {
  // Element bound: two roundings (P, then O) of the type's unit roundoff (fp16 2^-11, bf16 2^-8)
  // over Σ p|v|, with a factor 4 of margin. Row bound: a correct kernel's errors are that
  // rounding, well under these; a wrong mask, scale or softmax is off by tens of percent.
  if (element == Element::kBf16) return {4 * 2 * 0x1p-8, 5e-2};
  return {4 * 2 * 0x1p-11, 1e-2};
}

kernels::Float16Kind float16_kind(Element element) {
  return element == Element::kBf16 ? kernels::Float16Kind::kBfloat16 : kernels::Float16Kind::kHalf;
}

kernels::AttentionProblem attention_problem(const AttentionShape& shape) {
  return {shape.heads_total(), shape.seq, shape.head_dim, static_cast<float>(shape.softmax_scale()), shape.causal,
          float16_kind(shape.element)};
}

void fill_signed(void* data, const AttentionShape& shape, std::uint64_t seed, cudaStream_t stream) {
  kernels::fill_conv_signed(data, shape.qkv_elements(), fill_element(shape.element), seed, stream);
}

bool cudnn_declined(const cudnn::CudnnError& error) {
  const int category = CUDNN_STATUS_CATEGORY(error.status);
  return category == CUDNN_STATUS_NOT_SUPPORTED || category == CUDNN_STATUS_BAD_PARAM;
}

void verify_rows(State& s, const std::string& what, const kernels::AttentionCheck& check) {
  s.verify(check.rows_failed == 0, what + ": " + std::to_string(check.rows_failed) + " of " +
                                       std::to_string(check.rows_checked) + " rows off (" + check.first_failure + ")");
}

void set_tflops_peak(State& s, Element element) {
  set_datasheet_tflops_peak(s, element == Element::kBf16 ? "bf16" : "fp16");
}

AttentionInputs::AttentionInputs(const AttentionShape& shape, std::uint64_t seed, cudaStream_t stream)
    : shape_(shape),
      q_(tensor_bytes(shape)),
      k_(tensor_bytes(shape)),
      v_(tensor_bytes(shape)),
      o_(tensor_bytes(shape)) {
  fill_signed(q_.get(), shape, seed, stream);
  fill_signed(k_.get(), shape, seed + 1, stream);
  fill_signed(v_.get(), shape, seed + 2, stream);
}

void verify_output(State& s, const std::string& what, const DeviceBuffer& o,
                   const std::function<void(cudaStream_t)>& op,
                   const std::function<kernels::AttentionCheck(cudaStream_t)>& check, cudaStream_t stream) {
  kernels::poison(o.get(), o.bytes(), stream);
  op(stream);
  const kernels::AttentionCheck result = check(stream);
  verify_rows(s, what, result);
  s.note("worst_row_l2_error", result.worst_row_l2);
}

void AttentionInputs::verify(State& s, const std::string& what, const std::function<void(cudaStream_t)>& op,
                             cudaStream_t stream) const {
  verify_output(s, what, o_, op, [this](cudaStream_t on) {
    return kernels::check_attention_sampled(attention_problem(shape_), q(), k(), v(), o(), tolerance(shape_.element),
                                            kVerifiedRows, 0xA77E, on);
  }, stream);
}

UnfusedAttention::UnfusedAttention(const cublaslt::LtHandle& handle, const LtBatchedWorkspace& workspace,
                                   const AttentionInputs& inputs)
    : inputs_(inputs),
      scores_(static_cast<std::size_t>(unfused_scratch_bytes(inputs.shape()))),
      qk_(handle, workspace, scores_gemm(inputs.shape())),
      pv_(handle, workspace, output_gemm(inputs.shape())) {}

void UnfusedAttention::scores(cudaStream_t stream) const { qk_.run(inputs_.k(), inputs_.q(), scores_.get(), stream); }

void UnfusedAttention::softmax(cudaStream_t stream) const {
  const AttentionShape& shape = inputs_.shape();
  kernels::softmax_rows(scores_.get(), shape.heads_total(), shape.seq, static_cast<float>(shape.softmax_scale()),
                        shape.causal, float16_kind(shape.element), stream);
}

void UnfusedAttention::output(cudaStream_t stream) const { pv_.run(inputs_.v(), scores_.get(), inputs_.o(), stream); }

void UnfusedAttention::run(cudaStream_t stream) const {
  scores(stream);
  softmax(stream);
  output(stream);
}

CudnnAttention::CudnnAttention(const cudnn::CudnnHandle& handle, const AttentionInputs& inputs,
                               const cudnn::PlanLimits& limits, SdpaForm form)
    : handle_(handle.get()), inputs_(inputs) {
  plans_.why_none = sdpa_form_unsupported(form, SdpaMode::kInference, handle.version_number(), inputs.shape());
  if (!plans_.why_none.empty()) return;
  try {
    graph_ = std::make_unique<SdpaForwardGraph>(handle_, handle.version_number(), inputs.shape(), SdpaMode::kInference,
                                                form);
  } catch (const cudnn::CudnnError& error) {
    if (!cudnn_declined(error)) throw;
    plans_.why_none = std::string("cuDNN cannot express this attention: ") + error.what();
    return;
  }
  plans_ = cudnn::engine_plans(handle_, graph_->graph(), limits, "this attention");
}

std::int64_t CudnnAttention::largest_workspace() const { return cudnn::largest_workspace(plans_); }

void CudnnAttention::bind(void* workspace) {
  variant_pack_ = graph_->bind({inputs_.q(), inputs_.k(), inputs_.v(), inputs_.o()}, workspace);
}

void CudnnAttention::run(std::size_t plan, cudaStream_t stream) const {
  GPUBENCH_CUDNN(cudnn::CudnnApi::get().cudnnSetStream(handle_, stream));
  cudnn::execute(handle_, plans_.plans[plan], variant_pack_);
}

std::vector<TuneCandidate> CudnnAttention::candidates() const {
  return cudnn::tune_candidates(plans_, [this](std::size_t plan, cudaStream_t stream) { run(plan, stream); });
}

std::size_t CudnnAttention::heuristic_index() const { return cudnn::heuristic_index(plans_); }

AttentionShape shape_from_axes(const State& s) { return shape_from_axes(s, parse_element(s.get_str("type"))); }

AttentionShape shape_from_axes(const State& s, Element element) {
  const ModelPreset& preset = installed_preset(s.get_str("model"));
  AttentionShape shape;
  shape.batch = s.get_int("batch");
  shape.heads = preset.heads;
  shape.seq = s.get_int("seq");
  shape.head_dim = preset.head_dim;
  shape.causal = s.get_int("causal") != 0;
  shape.element = element;
  return shape;
}

void skip_if_unsupported(State& s, const AttentionShape& shape, bool unfused) {
  if (const std::string why = unsupported_reason(shape); !why.empty()) s.skip(why);
  const double memory = static_cast<double>(s.gpu(s.device()).memory_bytes);
  if (unfused && memory > 0 && unfused_scratch_bytes(shape) > memory / 2)
    s.skip("the unfused S x S matrix needs " + std::to_string(unfused_scratch_bytes(shape) / (1 << 30)) +
           " GiB, over half of the GPU's memory");
}

}  // namespace gpubench::attention
