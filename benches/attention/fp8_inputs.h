#pragma once
// The operands of an e4m3 (FP8) attention problem: Q, K and V drawn as the suite draws its 16-bit
// ones, stored in e4m3 at 4x their value (descale 1/4: the suite's magnitudes [0.25, 1) land on
// e4m3's normal range [1, 4)), with the bf16 values those e4m3 hold back kept for the FP32
// reference; V's packed copy for our Hopper kernel; O in bf16.
#include <cstdint>
#include <functional>
#include <string>

#include "benches/attention/attention_shape.h"
#include "harness/core/cuda_check.h"
#include "harness/core/state.h"
#include "kernels/attention_reference.cuh"
#include "kernels/flash_attention_sm90.cuh"

namespace gpubench::attention {

constexpr float kFp8Descale = 0.25f;

// P rounded to e4m3 (unit roundoff 2^-4) and O to bf16 (2^-8), with half as much again of
// margin; the row bound allows e4m3's rounding of P, about 4 % of a row's norm on the suite's
// random data, not a wrong mask or scale.
kernels::AttentionTolerance fp8_tolerance();

class Fp8AttentionInputs {
 public:
  // `shape.element` is ignored: the reference copies and O are bf16.
  Fp8AttentionInputs(const AttentionShape& shape, std::uint64_t seed, cudaStream_t stream);
  const AttentionShape& shape() const { return shape_; }
  // The kernel's arguments, V as last packed by pack_v.
  kernels::FlashAttentionFp8Args args() const;
  void pack_v(cudaStream_t stream) const;
  // Poisons O, runs `op`, checks O against the reference on the bf16 copies: one State::verify.
  void verify(State& s, const std::string& what, const std::function<void(cudaStream_t)>& op,
              cudaStream_t stream) const;
  kernels::AttentionCheck check(cudaStream_t stream) const;  // O as it stands, against the reference

 private:
  AttentionShape shape_;
  DeviceBuffer q_, k_, v_, v_packed_, q_reference_, k_reference_, v_reference_, o_;
};

}  // namespace gpubench::attention
