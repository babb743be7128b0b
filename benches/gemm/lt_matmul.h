#pragma once
// The cuBLASLt side of the gemm suite (the function table and handle are harness/core/cublaslt's):
// the per-worker workspace, and one matmul's descriptors, heuristic query and algorithm identity.
#include <cublasLt.h>

#include <vector>

#include "benches/gemm/gemm_types.h"
#include "harness/core/cublaslt/lt_api.h"
#include "harness/core/cuda_check.h"

namespace gpubench::gemm {

using cublaslt::lt_check;
using cublaslt::lt_version;
using cublaslt::LtApi;
using cublaslt::LtHandle;

// The per-worker workspace (State::resource), of workspace_bytes().
struct LtWorkspace {
  explicit LtWorkspace(int device) : buffer(workspace_bytes()) {}
  DeviceBuffer buffer;
};

// Device pointers of one operand set; C is D (beta = 0).
struct GemmPointers {
  const void *a = nullptr, *b = nullptr;
  void* d = nullptr;
};

struct ScalePointers {
  const float *a = nullptr, *b = nullptr;
};

class LtMatmul {
 public:
  // `scales`: A's and B's per-tensor scale (device floats) for FP8, else null.
  LtMatmul(const Precision& precision, const Shape& shape, const ScalePointers& scales);
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

}  // namespace gpubench::gemm
