#pragma once
// The two strided-batched matmuls of the unfused attention path through cuBLASLt (loaded at run
// time, never linked): S = Q·Kᵀ and O = P·V over B x H independent heads, 16-bit operands, FP32
// accumulation, cuBLASLt's heuristic first pick. A minimal interface of its own until the gemm
// suite's cuBLASLt wrapper is shared from harness/core.
#include <cublasLt.h>

#include <cstdint>

#include "harness/core/cuda_check.h"
#include "harness/system/library.h"

namespace gpubench::attention {

#define GPUBENCH_ATTENTION_LT_FUNCTIONS(X)                                                                      \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetStatusString) X(cublasLtMatmul) X(cublasLtMatmulDescCreate) \
  X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute) X(cublasLtMatrixLayoutCreate)                  \
  X(cublasLtMatrixLayoutDestroy) X(cublasLtMatrixLayoutSetAttribute) X(cublasLtMatmulPreferenceCreate)          \
  X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulAlgoGetHeuristic)
GPUBENCH_LIBRARY_TABLE(AttentionLtApi, "cublasLt", GPUBENCH_ATTENTION_LT_FUNCTIONS)

// The worker's cuBLASLt handle and workspace on one device (State::resource<AttentionLt>()).
class AttentionLt {
 public:
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
  explicit AttentionLt(int device);
  ~AttentionLt();
  AttentionLt(const AttentionLt&) = delete;
  AttentionLt& operator=(const AttentionLt&) = delete;
  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.get(); }

 private:
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
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
  LtBatchedMatmul(const AttentionLt& lt, const BatchedGemm& gemm);
  ~LtBatchedMatmul();
  LtBatchedMatmul(const LtBatchedMatmul&) = delete;
  LtBatchedMatmul& operator=(const LtBatchedMatmul&) = delete;
  void run(const void* a, const void* b, void* c, cudaStream_t stream) const;

 private:
  const AttentionLt& lt_;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace gpubench::attention
