#include "benches/attention/fp8_inputs.h"

#include "benches/attention/attention_case.h"
#include "kernels/flash_sm90_v_pack.cuh"
#include "kernels/fp8_quantize.cuh"

namespace gpubench::attention {
namespace {

AttentionShape bf16_shape(AttentionShape shape) {
  shape.element = Element::kBf16;
  return shape;
}

std::size_t elements(const AttentionShape& shape) { return static_cast<std::size_t>(shape.qkv_elements()); }

}  // namespace

kernels::AttentionTolerance fp8_tolerance() { return {1.5 * (0x1p-4 + 0x1p-8), 0.1}; }

Fp8AttentionInputs::Fp8AttentionInputs(const AttentionShape& shape, std::uint64_t seed, cudaStream_t stream)
    : shape_(bf16_shape(shape)),
      q_(elements(shape_)),
      k_(elements(shape_)),
      v_(elements(shape_)),
      v_packed_(kernels::flash_sm90_packed_v_bytes(shape_.heads_total(), shape_.seq, shape_.head_dim)),
      q_reference_(2 * elements(shape_)),
      k_reference_(2 * elements(shape_)),
      v_reference_(2 * elements(shape_)),
      o_(2 * elements(shape_)) {
  const std::pair<DeviceBuffer*, DeviceBuffer*> operands[] = {
      {&q_reference_, &q_}, {&k_reference_, &k_}, {&v_reference_, &v_}};
  for (const auto& [reference, e4m3] : operands) {
    fill_signed(reference->get(), shape_, seed++, stream);
    kernels::quantize_e4m3(reference->get(), kernels::Float16Kind::kBfloat16, elements(shape_), kFp8Descale,
                           e4m3->get(), reference->get(), stream);
  }
  pack_v(stream);
}

kernels::FlashAttentionFp8Args Fp8AttentionInputs::args() const {
  kernels::FlashAttentionFp8Args a;
  a.q = q_.get(), a.k = k_.get(), a.v_packed = v_packed_.get(), a.o = o_.get();
  a.heads_total = shape_.heads_total(), a.seq = shape_.seq, a.head_dim = shape_.head_dim;
  a.scale = static_cast<float>(shape_.softmax_scale());
  a.q_descale = a.k_descale = a.v_descale = kFp8Descale;
  a.causal = shape_.causal;
  return a;
}

void Fp8AttentionInputs::pack_v(cudaStream_t stream) const {
  kernels::flash_sm90_pack_v_e4m3(v_.get(), v_packed_.get(), shape_.heads_total(), shape_.seq, shape_.head_dim,
                                  stream);
}

kernels::AttentionCheck Fp8AttentionInputs::check(cudaStream_t stream) const {
  return kernels::check_attention_sampled(attention_problem(shape_), q_reference_.get(), k_reference_.get(),
                                          v_reference_.get(), o_.get(), fp8_tolerance(), kVerifiedRows, 0xA77E,
                                          stream);
}

void Fp8AttentionInputs::verify(State& s, const std::string& what, const std::function<void(cudaStream_t)>& op,
                                cudaStream_t stream) const {
  verify_output(s, what, o_, op, [this](cudaStream_t on) { return check(on); }, stream);
}

}  // namespace gpubench::attention
