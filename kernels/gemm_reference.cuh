#pragma once
// Our reference GEMM for verifying library GEMMs: each checked element of D is recomputed from
// the very operands the library read, accumulated in FP64, and compared with a relative
// tolerance (NaN never passes). Matrices are column-major, as cuBLAS stores them.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpubench::kernels {

enum class GemmElement { kFp32, kFp16, kBf16, kFp8E4M3, kFp8E5M2 };

struct GemmOperands {
  GemmElement a_type, b_type, d_type;
  const void *a = nullptr, *b = nullptr, *d = nullptr;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool a_transposed = true;  // A stored k x m (lda >= k) and used as A^T; else stored m x k
  std::int64_t lda = 0, ldb = 0, ldd = 0;
  std::int64_t stride_a = 0, stride_b = 0, stride_d = 0;  // elements between batches
  double scale = 1;  // alpha times the per-tensor scales of A and B
};

struct GemmCheck {
  std::uint64_t checked = 0, bad = 0;
  double max_rel_error = 0;  // infinite where an element was NaN
  std::int64_t first_bad_row = -1, first_bad_col = -1, first_bad_batch = -1;
  std::string summary() const;  // "3 of 65536 checked elements wrong (max relative error ...)"
};

// Products with at most this many elements per batch are checked whole; larger ones over
// kSampledLines rows (every column) and kSampledLines columns (every row), evenly spread and
// including the first and last. The first and last batch are checked.
constexpr std::int64_t kFullCheckElements = std::int64_t{1} << 22;
constexpr std::int64_t kSampledLines = 64;

GemmCheck check_gemm(const GemmOperands& operands, double tolerance, cudaStream_t stream);

// Random values in [0.5, 1.5), rounded to `type`: inside every type's normal range, never zero,
// positive so that no cancellation hides an error. Reproducible from `seed`.
void fill_gemm_operand(void* data, GemmElement type, std::size_t count, std::uint64_t seed, cudaStream_t stream);

}  // namespace gpubench::kernels
