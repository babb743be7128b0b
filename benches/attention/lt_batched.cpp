#include "benches/attention/lt_batched.h"

#include <stdexcept>
#include <string>

namespace gpubench::attention {
namespace {

using cublaslt::lt_check;
using cublaslt::LtApi;

cublasLtMatrixLayout_t layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::int64_t batch, std::int64_t stride) {
  const LtApi& api = LtApi::get();
  cublasLtMatrixLayout_t l = nullptr;
  lt_check(api.cublasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                                          ld),
           "cublasLtMatrixLayoutCreate");
  const auto count = static_cast<std::int32_t>(batch);
  lt_check(api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
           "CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT");
  lt_check(api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
           "CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET");
  return l;
}

}  // namespace

LtBatchedMatmul::LtBatchedMatmul(const cublaslt::LtHandle& handle, const LtBatchedWorkspace& workspace,
                                 const BatchedGemm& g)
    : handle_(handle), workspace_(workspace) {
  const LtApi& api = LtApi::get();
  lt_check(api.cublasLtMatmulDescCreate(&operation_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t transa = g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, transb = CUBLAS_OP_N;
  lt_check(api.cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa), "TRANSA");
  lt_check(api.cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb), "TRANSB");
  a_ = g.transpose_a ? layout(g.type, g.k, g.m, g.lda, g.batch, g.stride_a)
                     : layout(g.type, g.m, g.k, g.lda, g.batch, g.stride_a);
  b_ = layout(g.type, g.k, g.n, g.ldb, g.batch, g.stride_b);
  c_ = layout(g.type, g.m, g.n, g.ldc, g.batch, g.stride_c);
  cublasLtMatmulPreference_t preference = nullptr;
  lt_check(api.cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t workspace_bytes = workspace.buffer.bytes();
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cublasStatus_t status = api.cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof workspace_bytes);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = api.cublasLtMatmulAlgoGetHeuristic(handle.handle, operation_, a_, b_, c_, c_, preference, 1, &result,
                                                &found);
  api.cublasLtMatmulPreferenceDestroy(preference);
  lt_check(status, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt offers no algorithm for this batched matmul");
  algo_ = result.algo;
}

LtBatchedMatmul::~LtBatchedMatmul() {
  const LtApi& api = LtApi::get();
  for (cublasLtMatrixLayout_t l : {a_, b_, c_})
    if (l) api.cublasLtMatrixLayoutDestroy(l);
  if (operation_) api.cublasLtMatmulDescDestroy(operation_);
}

void LtBatchedMatmul::run(const void* a, const void* b, void* c, cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  lt_check(LtApi::get().cublasLtMatmul(handle_.handle, operation_, &alpha, a, a_, b, b_, &beta, c, c_, c, c_, &algo_,
                                       workspace_.buffer.get(), workspace_.buffer.bytes(), stream),
           "cublasLtMatmul");
}

}  // namespace gpubench::attention
