#include "kernels/occupancy_probe.cuh"

#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "kernels/fma_chain.cuh"

namespace gpubench::kernels {
namespace {

// The dynamic shared memory is never touched: its reservation alone limits the blocks per SM.
__global__ void occupancy_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t elements) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < elements; i += stride)
    dst[i] = src[i];
}

const void* kernel_of(OccupancyKind kind) {
  return kind == OccupancyKind::kMemory ? reinterpret_cast<const void*>(occupancy_copy_kernel)
                                        : fma_chain_kernel();
}

}  // namespace

OccupancyKind parse_occupancy_kind(const std::string& name) {
  if (name == "memory") return OccupancyKind::kMemory;
  if (name == "compute") return OccupancyKind::kCompute;
  throw std::invalid_argument("unknown occupancy kernel '" + name + "' (memory, compute)");
}

OccupancyProbe::OccupancyProbe(OccupancyKind kind, int block, std::size_t smem_bytes, int device)
    : kind_(kind), block_(block), smem_bytes_(smem_bytes) {
  cudaDeviceProp prop{};
  GPUBENCH_CUDA(cudaGetDeviceProperties(&prop, device));
  sm_count_ = prop.multiProcessorCount;
  max_warps_per_sm_ = prop.maxThreadsPerMultiProcessor / 32;
  if (smem_bytes > prop.sharedMemPerBlockOptin || block > prop.maxThreadsPerBlock) return;
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel_of(kind), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(smem_bytes)));
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm_, kernel_of(kind), block, smem_bytes));
}

void OccupancyProbe::launch_copy(const void* src, void* dst, std::size_t elements, cudaStream_t stream) const {
  occupancy_copy_kernel<<<grid(), block_, smem_bytes_, stream>>>(static_cast<const uint4*>(src),
                                                                  static_cast<uint4*>(dst), elements);
}

void OccupancyProbe::launch_fma(float* out, cudaStream_t stream) const {
  launch_fma_chain(out, grid(), block_, smem_bytes_, kOccupancyFmaChain, stream);
}

}  // namespace gpubench::kernels
