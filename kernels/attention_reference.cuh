#pragma once
// FP32 reference attention on sampled query rows, for verifying every attention implementation
// on the very inputs it read: for row i of head (b, h), O_i = Σ_j softmax(scale · Q_i·K_j)_j V_j
// over j (j <= i when causal), in FP32 from the 16-bit Q, K, V (layout B, H, S, D). Each sampled
// output is compared element by element with tolerance x Σ_j p_j |V_jd| (the bound scales with
// the terms, not with a result cancellation made small) and as a row, with the relative L2 error
// ||o - ref|| / ||ref||, which a wrong mask or scale cannot pass. NaN or infinity never passes.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/softmax.cuh"

namespace gpubench::kernels {

struct AttentionProblem {
  std::int64_t heads_total = 1, seq = 1, head_dim = 64;  // heads_total = B x H
  float scale = 1.0f;
  bool causal = false;
  Float16Kind kind = Float16Kind::kHalf;
};

struct AttentionTolerance {
  double element = 0;  // |o - ref| <= element x Σ p |v|
  double row_l2 = 0;   // ||o - ref||_2 <= row_l2 x ||ref||_2
};

struct AttentionCheck {
  std::int64_t rows_checked = 0, rows_failed = 0;
  double worst_row_l2 = 0;  // largest relative L2 error seen
  std::string first_failure;
};

// Compares one row of head_dim triples (got, reference, magnitude) with `tolerance`; false, with
// the reason in `why`, when it fails. `row_l2` receives the row's relative L2 error.
bool row_passes(const float* triples, std::int64_t head_dim, const AttentionTolerance& tolerance, double& row_l2,
                std::string& why);

// Checks `samples` random query rows (seeded) of the output `o` against the reference.
AttentionCheck check_attention_sampled(const AttentionProblem& problem, const void* q, const void* k, const void* v,
                                       const void* o, const AttentionTolerance& tolerance, std::int64_t samples,
                                       std::uint64_t seed, cudaStream_t stream);

}  // namespace gpubench::kernels
