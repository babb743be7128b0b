#pragma once
// cuBLASLt, loaded at run time (harness/system/library.h), for every suite that runs matmuls
// through it (gemm, attention): the function table, the status check and the per-worker handle.
#include <cublasLt.h>

#include <string>

#include "harness/system/library.h"

namespace gpubench::cublaslt {

#define GPUBENCH_CUBLASLT_FUNCTIONS(X)                                                                          \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion) X(cublasLtGetStatusString) X(cublasLtMatmul)        \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute)                   \
  X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy) X(cublasLtMatrixLayoutSetAttribute)             \
  X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmulAlgoConfigGetAttribute)
GPUBENCH_LIBRARY_TABLE(LtApi, "cublasLt", GPUBENCH_CUBLASLT_FUNCTIONS)

// Throws std::runtime_error naming the call and cuBLASLt's status string.
void lt_check(cublasStatus_t status, const char* call);

// The worker's cuBLASLt handle on one device (State::resource<LtHandle>()).
struct LtHandle {
  explicit LtHandle(int device);
  ~LtHandle();
  LtHandle(const LtHandle&) = delete;
  LtHandle& operator=(const LtHandle&) = delete;
  cublasLtHandle_t handle = nullptr;
};

// "13.1.0" from cublasLtGetVersion.
std::string lt_version();

}  // namespace gpubench::cublaslt
