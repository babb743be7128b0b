#pragma once
// FP32 reference gradients of attention on sampled rows, for verifying a backward pass on the
// very inputs it read. With P = softmax(scale · Q·Kᵀ [causal]) per (b, h):
//   dP = dO·Vᵀ,  D_i = Σ_j P_ij dP_ij (= rowsum(dO ∘ O)),  dS = P ∘ (dP − D),
//   dQ = scale · dS·K,  dK = scale · dSᵀ·Q,  dV = Pᵀ·dO,
// in FP32 from the 16-bit Q, K, V, dO (layout B, H, S, D). Two heads are checked, the first
// and the last: every row's log-sum-exp and D are computed for them, then dQ on sampled query
// rows and dK, dV on sampled key rows. Each element is compared with tolerance x the sum of its
// terms' magnitudes (Σ P (|dP| + |D|) |K| for dQ, likewise for dK; Σ P |dO| for dV), and each
// row of at least kMinTermsForRowL2 terms by its relative L2 error, which a wrong scale, mask or
// softmax statistic cannot pass; a shorter row (a causal row's first keys) has too few terms to
// average out its rounding and is checked element by element only. NaN never passes.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/attention_reference.cuh"

namespace gpubench::kernels {

constexpr std::int64_t kMinTermsForRowL2 = 16;

// Device pointers in the problem's 16-bit type, B, H, S, D layout.
struct AttentionGradients {
  const void *q = nullptr, *k = nullptr, *v = nullptr, *d_o = nullptr;  // inputs, output gradient
  const void *dq = nullptr, *dk = nullptr, *dv = nullptr;               // the gradients under test
};

struct GradientCheck {
  AttentionCheck dq, dk, dv;
};

// The tolerance a row of `terms` terms is checked with: `tolerance`, without the L2 bound when
// the row has fewer than kMinTermsForRowL2 terms.
AttentionTolerance row_tolerance(const AttentionTolerance& tolerance, std::int64_t terms);

// Checks dQ on `rows_per_head` query rows and dK, dV on as many key rows of the first and the
// last head (the first and last rows always among them, the rest random from `seed`).
GradientCheck check_attention_backward_sampled(const AttentionProblem& problem, const AttentionGradients& tensors,
                                               const AttentionTolerance& tolerance, std::int64_t rows_per_head,
                                               std::uint64_t seed, cudaStream_t stream);

}  // namespace gpubench::kernels
