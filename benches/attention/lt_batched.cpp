#include "benches/attention/lt_batched.h"

#include <stdexcept>
#include <string>

namespace gpubench::attention {
namespace {

void check_lt(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + ": " + AttentionLtApi::get().cublasLtGetStatusString(status));
}
#define GPUBENCH_LT(call) check_lt((call), #call)

cublasLtMatrixLayout_t layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::int64_t batch, std::int64_t stride) {
  const AttentionLtApi& api = AttentionLtApi::get();
  cublasLtMatrixLayout_t l = nullptr;
  GPUBENCH_LT(api.cublasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows),
                                             static_cast<std::uint64_t>(cols), ld));
  const auto count = static_cast<std::int32_t>(batch);
  GPUBENCH_LT(api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
  GPUBENCH_LT(api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                   sizeof stride));
  return l;
}

}  // namespace

AttentionLt::AttentionLt(int device) {
  GPUBENCH_CUDA(cudaSetDevice(device));
  GPUBENCH_LT(AttentionLtApi::get().cublasLtCreate(&handle_));
  workspace_ = DeviceBuffer(kWorkspaceBytes);
}

AttentionLt::~AttentionLt() {
  if (handle_) AttentionLtApi::get().cublasLtDestroy(handle_);
}

LtBatchedMatmul::LtBatchedMatmul(const AttentionLt& lt, const BatchedGemm& g) : lt_(lt) {
  const AttentionLtApi& api = AttentionLtApi::get();
  GPUBENCH_LT(api.cublasLtMatmulDescCreate(&operation_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transa = g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, transb = CUBLAS_OP_N;
  GPUBENCH_LT(api.cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
  GPUBENCH_LT(api.cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
  a_ = g.transpose_a ? layout(g.type, g.k, g.m, g.lda, g.batch, g.stride_a) : layout(g.type, g.m, g.k, g.lda, g.batch, g.stride_a);
  b_ = layout(g.type, g.k, g.n, g.ldb, g.batch, g.stride_b);
  c_ = layout(g.type, g.m, g.n, g.ldc, g.batch, g.stride_c);
  cublasLtMatmulPreference_t preference = nullptr;
  GPUBENCH_LT(api.cublasLtMatmulPreferenceCreate(&preference));
  const std::uint64_t workspace = AttentionLt::kWorkspaceBytes;
  GPUBENCH_LT(api.cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                       &workspace, sizeof workspace));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status =
      api.cublasLtMatmulAlgoGetHeuristic(lt.handle(), operation_, a_, b_, c_, c_, preference, 1, &result, &found);
  api.cublasLtMatmulPreferenceDestroy(preference);
  check_lt(status, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt offers no algorithm for this batched matmul");
  algo_ = result.algo;
}

LtBatchedMatmul::~LtBatchedMatmul() {
  const AttentionLtApi& api = AttentionLtApi::get();
  for (cublasLtMatrixLayout_t l : {a_, b_, c_})
    if (l) api.cublasLtMatrixLayoutDestroy(l);
  if (operation_) api.cublasLtMatmulDescDestroy(operation_);
}

void LtBatchedMatmul::run(const void* a, const void* b, void* c, cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  GPUBENCH_LT(AttentionLtApi::get().cublasLtMatmul(lt_.handle(), operation_, &alpha, a, a_, b, b_, &beta, c, c_, c,
                                                   c_, &algo_, lt_.workspace(), AttentionLt::kWorkspaceBytes,
                                                   stream));
}

}  // namespace gpubench::attention
