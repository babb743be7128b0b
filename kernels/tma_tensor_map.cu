#include "kernels/tma_tensor_map.cuh"

#include <cudaTypedefs.h>

#include <stdexcept>
#include <string>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPUBENCH_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || entry == nullptr)
      throw std::runtime_error("the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return function;
}

}  // namespace

CUtensorMap swizzled_tensor_map(const void* base, TmaElement element, std::int64_t columns, std::int64_t rows,
                                std::int64_t planes, int box_columns, int box_rows) {
  CUtensorMap map;
  const std::int64_t bytes = element == TmaElement::kByte ? 1 : 2;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(columns), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(planes)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(columns * bytes),
                                 static_cast<cuuint64_t>(rows * columns * bytes)};
  const CUtensorMapDataType type = element == TmaElement::kByte       ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : element == TmaElement::kBfloat16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                      : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_columns), static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult result = encode_tiled()(
      &map, type, 3, const_cast<void*>(base), dims,
      strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(result)) + ")");
  return map;
}

}  // namespace gpubench::kernels
