#pragma once
// Kernels of scenarios/occupancy: a memory-bound copy and a compute-bound chain of dependent
// FP32 FMAs, each launched as one full wave at the occupancy its block size and dynamic shared
// memory allow, so that the occupancy the CUDA API predicts is the occupancy the kernel runs at.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpubench::kernels {

enum class OccupancyKind { kMemory, kCompute };
OccupancyKind parse_occupancy_kind(const std::string& name);  // "memory", "compute"

// FMAs per thread of the compute kernel: long enough that launch and tail are under 1 % of it.
constexpr int kOccupancyFmaChain = 1 << 16;

// One configuration: the kernel, its block size and dynamic shared memory per block.
class OccupancyProbe {
 public:
  // Sets the kernel's dynamic shared memory limit where `smem_bytes` is above the default 48 KiB.
  // blocks_per_sm() is 0 when the configuration cannot run on `device` at all.
  OccupancyProbe(OccupancyKind kind, int block, std::size_t smem_bytes, int device);

  int blocks_per_sm() const { return blocks_per_sm_; }
  int warps_per_sm() const { return blocks_per_sm_ * block_ / 32; }
  int max_warps_per_sm() const { return max_warps_per_sm_; }
  double predicted_occupancy_pct() const { return 100.0 * warps_per_sm() / max_warps_per_sm_; }
  int grid() const { return blocks_per_sm_ * sm_count_; }  // one full wave
  std::size_t threads() const { return static_cast<std::size_t>(grid()) * block_; }

  // Memory kind: copies `elements` 16-byte elements from src to dst (grid-stride loop).
  void launch_copy(const void* src, void* dst, std::size_t elements, cudaStream_t stream) const;
  // Compute kind: each thread runs kOccupancyFmaChain dependent FMAs (kernels/fma_chain.cuh)
  // and writes the chain's end to out[thread].
  void launch_fma(float* out, cudaStream_t stream) const;

 private:
  OccupancyKind kind_;
  int block_;
  std::size_t smem_bytes_;
  int blocks_per_sm_ = 0, max_warps_per_sm_ = 0, sm_count_ = 0;
};

}  // namespace gpubench::kernels
