#pragma once
// Tensor maps for TMA loads. cuTensorMapEncodeTiled is a driver function: gpubench links the
// static CUDA runtime and not libcuda, so it is taken from the driver at run time.
#include <cuda.h>

#include <cstdint>

namespace gpubench::kernels {

enum class TmaElement { kFloat16, kBfloat16, kByte };

// `planes` planes of `rows` rows of `columns` dense elements (16-bit, or bytes such as e4m3), read
// as boxes of `box_columns` x `box_rows` of one plane with the 128-byte swizzle; rows past a
// plane's end read as zeros. Throws std::runtime_error where the driver refuses (a row pitch not
// a multiple of 16 bytes, a box row over 128 bytes).
CUtensorMap swizzled_tensor_map(const void* base, TmaElement element, std::int64_t columns, std::int64_t rows,
                                std::int64_t planes, int box_columns, int box_rows);

}  // namespace gpubench::kernels
