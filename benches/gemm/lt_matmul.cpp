#include "benches/gemm/lt_matmul.h"

#include <stdexcept>
#include <string>

namespace gpubench::gemm {
namespace {

cudaDataType_t data_type(Element element) {
  switch (element) {
    case Element::kFp32: return CUDA_R_32F;
    case Element::kFp16: return CUDA_R_16F;
    case Element::kBf16: return CUDA_R_16BF;
    case Element::kFp8E4M3: return CUDA_R_8F_E4M3;
    case Element::kFp8E5M2: return CUDA_R_8F_E5M2;
  }
  throw std::logic_error("unknown GEMM element");
}

cublasComputeType_t compute_type(const std::string& name) {
  if (name == "CUBLAS_COMPUTE_32F_PEDANTIC") return CUBLAS_COMPUTE_32F_PEDANTIC;
  if (name == "CUBLAS_COMPUTE_32F_FAST_TF32") return CUBLAS_COMPUTE_32F_FAST_TF32;
  if (name == "CUBLAS_COMPUTE_32F") return CUBLAS_COMPUTE_32F;
  throw std::logic_error("unknown compute type " + name);
}

cublasLtMatrixLayout_t matrix_layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  const LtApi& lt = LtApi::get();
  cublasLtMatrixLayout_t layout = nullptr;
  lt_check(lt.cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), rows),
           "cublasLtMatrixLayoutCreate");
  if (batch > 1) {
    const int count = static_cast<int>(batch);
    const std::int64_t stride = rows * cols;
    lt_check(lt.cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
             "CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT");
    lt_check(lt.cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
             "CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET");
  }
  return layout;
}

template <typename T>
T config_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  lt_check(LtApi::get().cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof value, &written),
           "cublasLtMatmulAlgoConfigGetAttribute");
  return value;
}

}  // namespace

LtMatmul::LtMatmul(const Precision& precision, const Shape& shape, const ScalePointers& scales) {
  const LtApi& lt = LtApi::get();
  lt_check(lt.cublasLtMatmulDescCreate(&desc_, compute_type(precision.compute), CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t transa = shape.layout == Layout::kTN ? CUBLAS_OP_T : CUBLAS_OP_N, transb = CUBLAS_OP_N;
  lt_check(lt.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa), "TRANSA");
  lt_check(lt.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb), "TRANSB");
  if (precision.scaled) {
    const float* a_scale = scales.a;
    const float* b_scale = scales.b;
    lt_check(lt.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale),
             "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER");
    lt_check(lt.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale),
             "CUBLASLT_MATMUL_DESC_B_SCALE_POINTER");
  }
  const bool tn = shape.layout == Layout::kTN;
  a_ = matrix_layout(data_type(precision.a), tn ? shape.k : shape.m, tn ? shape.m : shape.k, shape.batch);
  b_ = matrix_layout(data_type(precision.b), shape.k, shape.n, shape.batch);
  d_ = matrix_layout(data_type(precision.d), shape.m, shape.n, shape.batch);
}

LtMatmul::~LtMatmul() {
  const LtApi& lt = LtApi::get();
  for (auto* layout : {a_, b_, d_})
    if (layout) lt.cublasLtMatrixLayoutDestroy(layout);
  if (desc_) lt.cublasLtMatmulDescDestroy(desc_);
}

std::vector<cublasLtMatmulHeuristicResult_t> LtMatmul::heuristic(cublasLtHandle_t handle, int requested,
                                                                 std::size_t workspace_bytes) const {
  const LtApi& lt = LtApi::get();
  cublasLtMatmulPreference_t preference = nullptr;
  lt_check(lt.cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(requested));
  int returned = 0;
  cublasStatus_t status = lt.cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof workspace_bytes);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = lt.cublasLtMatmulAlgoGetHeuristic(handle, desc_, a_, b_, d_, d_, preference, requested, results.data(), &returned);
  lt.cublasLtMatmulPreferenceDestroy(preference);
  // NOT_SUPPORTED: no algorithm for this combination (an FP8 size that is not a multiple of 16).
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return {};
  lt_check(status, "cublasLtMatmulAlgoGetHeuristic");
  results.resize(static_cast<std::size_t>(returned));
  return results;
}

void LtMatmul::run(cublasLtHandle_t handle, const cublasLtMatmulHeuristicResult_t& algo, const GemmPointers& operands,
                   const DeviceBuffer& workspace, cudaStream_t stream) const {
  const float alpha = 1, beta = 0;
  lt_check(LtApi::get().cublasLtMatmul(handle, desc_, &alpha, operands.a, a_, operands.b, b_, &beta, operands.d, d_,
                                       operands.d, d_, &algo.algo, workspace.get(), workspace.bytes(), stream),
           "cublasLtMatmul");
}

AlgoIdentity identify(const cublasLtMatmulHeuristicResult_t& result) {
  const cublasLtMatmulAlgo_t& algo = result.algo;
  AlgoIdentity id;
  id.id = config_attribute<int>(algo, CUBLASLT_ALGO_CONFIG_ID);
  id.tile = static_cast<int>(config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID));
  id.stages = static_cast<int>(config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID));
  id.splitk = static_cast<int>(config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM));
  id.reduction = static_cast<int>(config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME));
  id.swizzle = static_cast<int>(config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING));
  id.custom = static_cast<int>(config_attribute<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION));
  id.inner_shape = static_cast<int>(config_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID));
  id.cluster_shape = static_cast<int>(config_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
  id.workspace_bytes = result.workspaceSize;
  return id;
}

}  // namespace gpubench::gemm
