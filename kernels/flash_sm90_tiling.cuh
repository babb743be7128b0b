#pragma once
// The tiling of our Hopper attention kernel (kernels/flash_attention_sm90.cu), on the host and the
// device alike, so that the kernel, its launcher, the benchmark and the tests see one arithmetic.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

// One block: a producer warpgroup (one thread issues every TMA load) and two consumer
// warpgroups, each owning 64 of the tile's 128 query rows.
constexpr int kSm90BlockM = 128;
constexpr int kSm90ConsumerRows = 64;
constexpr int kSm90Threads = 384;

// Keys per streamed K / V tile: 128, or 64 at D = 256, where a consumer thread's O (D / 2 = 128
// FP32 registers) leaves room for the S (BlockN / 2) and P (BlockN / 4) of 64 keys only.
__host__ __device__ constexpr int flash_sm90_block_n(std::int64_t head_dim) { return head_dim == 256 ? 64 : 128; }

// K and V stages in flight, for 16-bit elements (`element_bytes` 2): 2 for D = 128 (Q 32 KiB + 4 x
// 32 KiB) and D = 256 (Q 64 KiB + 4 x 32 KiB), 4 for D = 64, whose half-size tiles give the loads
// less MMA time to hide behind; for e4m3 (1): 4 at D = 128, the only head dim whose 128-byte rows
// the 128B swizzle takes (Q 16 KiB + 8 x 16 KiB); 0 for an unsupported head dim.
__host__ __device__ constexpr int flash_sm90_stages(std::int64_t head_dim, int element_bytes = 2) {
  if (element_bytes == 1) return head_dim == 128 ? 4 : 0;
  return head_dim == 128 || head_dim == 256 ? 2 : head_dim == 64 ? 4 : 0;
}

// Dynamic shared memory of one block: 1024 bytes of slack to align the tiles to the 128B
// swizzle's 1024-byte period, the Q tile, the K and V stages, and the mbarriers (Q full; K full,
// V full, K empty, V empty per stage).
constexpr std::size_t flash_sm90_shared_bytes(std::int64_t head_dim, int element_bytes = 2) {
  const std::int64_t stages = flash_sm90_stages(head_dim, element_bytes);
  return static_cast<std::size_t>(1024 +
                                  (kSm90BlockM + 2 * stages * flash_sm90_block_n(head_dim)) * head_dim * element_bytes +
                                  (1 + 4 * stages) * 8);
}

// The e4m3 kernel reads V transposed (D rows of keys, K-major, as fp8 wgmma needs its B operand)
// and its keys reordered within each 16 so that P's A fragments are S's accumulators as they lie:
// an m64k32 A fragment holds, per thread (t = lane % 4) and row, columns 4t .. 4t + 3 and
// 16 + 4t .. 16 + 4t + 3, where S's accumulator holds keys 2t, 2t + 1, 8 + 2t, 9 + 2t and the
// same + 16. So column `position` of a packed row holds key flash_sm90_fp8_key(position), rows
// padded with zeros to a multiple of 16 keys (TMA's 16-byte row pitch).
__host__ __device__ constexpr std::int64_t flash_sm90_fp8_key(std::int64_t position) {
  const std::int64_t a = position % 16, t = a / 4, i = a % 4;
  return position - a + (i < 2 ? 2 * t + i : 8 + 2 * t + i - 2);
}

__host__ __device__ constexpr std::int64_t flash_sm90_fp8_packed_keys(std::int64_t seq) { return (seq + 15) / 16 * 16; }

__host__ __device__ constexpr std::int64_t flash_sm90_query_tiles(std::int64_t seq) {
  return (seq + kSm90BlockM - 1) / kSm90BlockM;
}

// Key tiles of `block_n` keys that query tile `query_tile` reads: all, or, causal, those up to
// the tile's last row. Both consumer warpgroups read the same tiles, which the 2-warpgroup
// schedule relies on; at block_n < kSm90BlockM the first warpgroup's last tile is all masked.
__host__ __device__ constexpr std::int64_t flash_sm90_key_tiles(std::int64_t query_tile, std::int64_t seq,
                                                                bool causal, int block_n) {
  const std::int64_t last_query_end = (query_tile + 1) * kSm90BlockM;
  const std::int64_t keys = causal && last_query_end < seq ? last_query_end : seq;
  return (keys + block_n - 1) / block_n;
}

// Whether key tile `key_tile` (of `block_n` keys) needs the element mask for the warpgroup whose
// first row is `first_row`: it holds keys past the sequence end or, causal, keys after
// `first_row`.
__host__ __device__ constexpr bool flash_sm90_tile_masked(std::int64_t first_row, std::int64_t key_tile,
                                                          std::int64_t seq, bool causal, int block_n) {
  const std::int64_t key_end = (key_tile + 1) * block_n;
  return key_end > seq || (causal && key_end - 1 > first_row);
}

}  // namespace gpubench::kernels
