#pragma once
// e4m3 (FP8) operands from 16-bit data, for the FP8 attention benchmark and its tests: each value
// x descale_inverse rounded to e4m3 (saturating at ±448), and beside it the value the e4m3 holds
// back in the 16-bit type (e4m3 x descale), which the FP32 reference reads. With a power-of-two
// descale the 16-bit copy is exact in fp16 and bf16 alike, so the reference sees the very operand
// the kernel read.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/softmax.cuh"

namespace gpubench::kernels {

void quantize_e4m3(const void* source, Float16Kind kind, std::size_t count, float descale, void* e4m3,
                   void* dequantized, cudaStream_t stream);

}  // namespace gpubench::kernels
