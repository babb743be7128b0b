#pragma once
// The cuBLASLt side of the gemm suite: the library's function table (loaded at run time, never
// linked), the per-worker handle and workspace, and one matmul's descriptors, heuristic query
// and algorithm identity.
#include <cublasLt.h>

#include <vector>

#include "benches/gemm/gemm_types.h"
#include "harness/core/cuda_check.h"
#include "harness/system/library.h"

namespace gpubench::gemm {

#define GEMM_LT_FUNCTIONS(X)                                                                                      \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion) X(cublasLtGetStatusString) X(cublasLtMatmul)        \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute)                   \
  X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy) X(cublasLtMatrixLayoutSetAttribute)             \
  X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmulAlgoConfigGetAttribute)
GPUBENCH_LIBRARY_TABLE(LtApi, "cublasLt", GEMM_LT_FUNCTIONS)

// Throws std::runtime_error naming the call and cuBLASLt's status string.
void lt_check(cublasStatus_t status, const char* call);

// Per-worker resources (State::resource): one handle and one workspace per device.
struct LtHandle {
  explicit LtHandle(int device);
  ~LtHandle();
  LtHandle(const LtHandle&) = delete;
  LtHandle& operator=(const LtHandle&) = delete;
  cublasLtHandle_t handle = nullptr;
};

struct LtWorkspace {
  explicit LtWorkspace(int device) : buffer(workspace_bytes()) {}
  DeviceBuffer buffer;
};

// Device pointers of one operand set; C is D (beta = 0).
struct GemmPointers {
  const void *a = nullptr, *b = nullptr;
  void* d = nullptr;
};

class LtMatmul {
 public:
  // `scales`: two device floats (A's and B's per-tensor scale) for FP8, else null.
  LtMatmul(const Precision& precision, const Shape& shape, const float* scales);
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Up to `requested` algorithms the heuristic offers within `workspace_bytes`, its first pick first.
  std::vector<cublasLtMatmulHeuristicResult_t> heuristic(cublasLtHandle_t handle, int requested,
                                                         std::size_t workspace_bytes) const;
  void run(cublasLtHandle_t handle, const cublasLtMatmulHeuristicResult_t& algo, const GemmPointers& operands,
           const DeviceBuffer& workspace, cudaStream_t stream) const;

 private:
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
};

// What cuBLASLt says the algorithm is (cublasLtMatmulAlgoConfigGetAttribute).
AlgoIdentity identify(const cublasLtMatmulHeuristicResult_t& result);
// "13.1.0" from cublasLtGetVersion.
std::string lt_version();

}  // namespace gpubench::gemm
