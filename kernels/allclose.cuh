#pragma once
// The allclose check of harness/core/verify.h on the GPU, for outputs too large to bring back:
// every element of `got` against `want` (both device memory), the count of bad elements (NaN
// included), the first bad index and the largest relative error.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "harness/core/verify.h"

namespace gpubench::kernels {

// Synchronises `stream` to read the counts back.
CloseReport allclose_device(const double* got, const double* want, std::size_t n, const Tolerance& tolerance,
                            cudaStream_t stream);
CloseReport allclose_device(const float* got, const float* want, std::size_t n, const Tolerance& tolerance,
                            cudaStream_t stream);
CloseReport allclose_device(const __half* got, const __half* want, std::size_t n, const Tolerance& tolerance,
                            cudaStream_t stream);
CloseReport allclose_device(const __nv_bfloat16* got, const __nv_bfloat16* want, std::size_t n,
                            const Tolerance& tolerance, cudaStream_t stream);

}  // namespace gpubench::kernels
