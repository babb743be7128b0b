#pragma once
// Tensor maps for TMA loads. cuTensorMapEncodeTiled is a driver function: gpubench links the
// static CUDA runtime and not libcuda, so it is taken from the driver at run time.
#include <cuda.h>

#include <cstdint>

namespace gpubench::kernels {

// `planes` planes of `rows` rows of `columns` dense 16-bit elements (fp16, or bf16 where `bf16`),
// read as boxes of `box_columns` x `box_rows` of one plane with the 128-byte swizzle; rows past a
// plane's end read as zeros. Throws std::runtime_error where the driver refuses.
CUtensorMap swizzled_tensor_map_16bit(const void* base, bool bf16, std::int64_t columns, std::int64_t rows,
                                      std::int64_t planes, int box_columns, int box_rows);

}  // namespace gpubench::kernels
