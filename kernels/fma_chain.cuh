#pragma once
// A compute-bound kernel of set length: each thread runs a chain of dependent FP32 FMAs,
// x = x * a + b, and writes x. Its latency only other warps hide, so its rate depends on the
// warps an SM holds (scenarios/occupancy), and its time on the chain's length (scenarios/work_split).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

// a just above 1 and b well above x's last bit: x never settles, so a chain cut short ends at
// another value.
constexpr float kFmaA = 1.0000001f, kFmaB = 0.0009765625f;
__host__ __device__ inline float fma_start(std::uint64_t thread) {
  return 0.5f + static_cast<float>(thread % 1024) / 2048.0f;
}

// The kernel, for the occupancy API and cudaFuncSetAttribute.
const void* fma_chain_kernel();
// grid x block threads, `smem_bytes` of dynamic shared memory reserved (never touched); thread t
// writes its chain's end to out[t].
void launch_fma_chain(float* out, int grid, int block, std::size_t smem_bytes, int chain, cudaStream_t stream);
// The threads of `out` (device memory) whose value differs from the chain computed on the CPU,
// of `samples` spread over all of them (the CPU's fmaf rounds as the GPU's: they match exactly).
std::size_t count_fma_chain_mismatches(const float* out, std::size_t threads, int chain, std::size_t samples);

}  // namespace gpubench::kernels
