#pragma once
// The two strided-batched matmuls of the unfused attention path through cuBLASLt
// (harness/core/cublaslt): S = Q·Kᵀ and O = P·V over B x H independent heads, 16-bit operands,
// FP32 accumulation, cuBLASLt's heuristic first pick.
#include <cublasLt.h>

#include <cstdint>

#include "harness/core/cublaslt/lt_api.h"
#include "harness/core/cuda_check.h"

namespace gpubench::attention {

// The worker's cuBLASLt workspace for the attention matmuls (State::resource<LtBatchedWorkspace>()).
struct LtBatchedWorkspace {
  static constexpr std::size_t kBytes = std::size_t{32} << 20;
  explicit LtBatchedWorkspace(int) : buffer(kBytes) {}
  DeviceBuffer buffer;
};

// One column-major strided-batched C = op(A)·B (op(A) = Aᵀ when transpose_a) with m x n x k per
// batch entry, C written in the operands' type.
struct BatchedGemm {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool transpose_a = false;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  cudaDataType_t type = CUDA_R_16F;
};

class LtBatchedMatmul {
 public:
  // Throws std::runtime_error when cuBLASLt offers no algorithm for it.
  LtBatchedMatmul(const cublaslt::LtHandle& handle, const LtBatchedWorkspace& workspace, const BatchedGemm& gemm);
  ~LtBatchedMatmul();
  LtBatchedMatmul(const LtBatchedMatmul&) = delete;
  LtBatchedMatmul& operator=(const LtBatchedMatmul&) = delete;
  void run(const void* a, const void* b, void* c, cudaStream_t stream) const;

 private:
  const cublaslt::LtHandle& handle_;
  const LtBatchedWorkspace& workspace_;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace gpubench::attention
