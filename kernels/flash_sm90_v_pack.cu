#include "kernels/flash_sm90_v_pack.cuh"

#include <stdexcept>
#include <string>

#include "harness/core/cuda_check.h"
#include "kernels/flash_sm90_tiling.cuh"

namespace gpubench::kernels {
namespace {

constexpr int kChunkKeys = 64;  // keys per block: a multiple of the 16 the reordering stays within
constexpr int kThreads = 256;

// A tile row is one word longer than a key so that the gather down a column (one d, successive
// keys) walks the shared-memory banks instead of hitting one.
__host__ __device__ constexpr int tile_row_bytes(int head_dim) { return head_dim + 4; }

// Block (chunk, head): keys chunk x 64 .. + 63 of one head through shared memory, read as
// 4-byte words along D and written as 4-byte words along the packed keys.
__global__ void pack_v_kernel(const std::uint8_t* v, std::uint8_t* packed, std::int64_t seq, std::int64_t packed_keys,
                              int head_dim) {
  extern __shared__ std::uint8_t tile[];  // [kChunkKeys][row_bytes]
  const std::int64_t head = blockIdx.y, first = static_cast<std::int64_t>(blockIdx.x) * kChunkKeys;
  const int words_per_key = head_dim / 4, row_bytes = tile_row_bytes(head_dim);
  const std::uint8_t* source = v + head * seq * head_dim;
  for (int w = threadIdx.x; w < kChunkKeys * words_per_key; w += kThreads) {
    const int key = w / words_per_key, word = w % words_per_key;
    const std::int64_t k = first + key;
    reinterpret_cast<std::uint32_t*>(tile)[key * (row_bytes / 4) + word] =
        k < seq ? reinterpret_cast<const std::uint32_t*>(source + k * head_dim)[word] : 0u;
  }
  __syncthreads();
  std::uint8_t* target = packed + head * head_dim * packed_keys;
  constexpr int kWordsPerRow = kChunkKeys / 4;
  for (int w = threadIdx.x; w < head_dim * kWordsPerRow; w += kThreads) {
    const int d = w / kWordsPerRow, position = 4 * (w % kWordsPerRow);
    if (first + position >= packed_keys) continue;
    std::uint32_t word = 0;
    for (int i = 0; i < 4; ++i)
      word |= static_cast<std::uint32_t>(tile[flash_sm90_fp8_key(position + i) * row_bytes + d]) << (8 * i);
    *reinterpret_cast<std::uint32_t*>(target + static_cast<std::int64_t>(d) * packed_keys + first + position) = word;
  }
}

}  // namespace

std::size_t flash_sm90_packed_v_bytes(std::int64_t heads_total, std::int64_t seq, std::int64_t head_dim) {
  return static_cast<std::size_t>(heads_total * head_dim * flash_sm90_fp8_packed_keys(seq));
}

void flash_sm90_pack_v_e4m3(const void* v, void* packed, std::int64_t heads_total, std::int64_t seq,
                            std::int64_t head_dim, cudaStream_t stream) {
  if (heads_total < 1 || seq < 1 || head_dim < 4 || head_dim % 4 != 0 || head_dim > 256 || heads_total > 65535)
    throw std::invalid_argument("flash_sm90_pack_v_e4m3: " + std::to_string(heads_total) + " heads, sequence " +
                                std::to_string(seq) + ", head_dim " + std::to_string(head_dim));
  const std::int64_t packed_keys = flash_sm90_fp8_packed_keys(seq);
  const dim3 grid(static_cast<unsigned>((packed_keys + kChunkKeys - 1) / kChunkKeys), static_cast<unsigned>(heads_total));
  const auto tile_bytes = static_cast<std::size_t>(kChunkKeys * tile_row_bytes(static_cast<int>(head_dim)));
  pack_v_kernel<<<grid, kThreads, tile_bytes, stream>>>(
      static_cast<const std::uint8_t*>(v), static_cast<std::uint8_t*>(packed), seq, packed_keys,
      static_cast<int>(head_dim));
  GPUBENCH_CUDA(cudaGetLastError());
}

}  // namespace gpubench::kernels
