#pragma once
// Our fused attention forward, FlashAttention-2's algorithm: one thread block per 128-query tile
// of one (batch, head), the Q tile held in shared memory for the whole pass, K and V streamed
// through two shared-memory stages (cp.async), S = Q·Kᵀ and O += P·V on the tensor cores
// (mma.sync m16n8k16 fed by ldmatrix) with an online softmax in FP32, so that the S x S scores
// never leave the chip. Q, K, V, O are B x H x S x D (D fastest), fp16 or bf16; causal keeps
// key j <= query i. The tiling arithmetic is here, on the host and the device alike, so that the
// benchmark and its tests see what the kernel does.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/softmax.cuh"

namespace gpubench::kernels {

// Each block: 4 warps, 32 query rows each (two m16 MMA tiles per warp, so that every K and V
// fragment read from shared memory feeds two MMAs).
constexpr int kFlashBlockM = 128;
constexpr int kFlashThreads = 128;

// Keys per streamed tile: 64 for D = 128 (the S and O accumulators of 32 rows then fit the
// registers of two blocks per SM), 128 for D = 64; 0 for an unsupported head dim.
__host__ __device__ constexpr int flash_block_n(std::int64_t head_dim) {
  return head_dim == 128 ? 64 : head_dim == 64 ? 128 : 0;
}

// Shared memory of one block: the Q tile and two stages each of K and V, 16-bit elements.
constexpr std::size_t flash_shared_bytes(std::int64_t head_dim) {
  return static_cast<std::size_t>((kFlashBlockM + 4 * flash_block_n(head_dim)) * head_dim * 2);
}

__host__ __device__ constexpr std::int64_t flash_query_tiles(std::int64_t seq) {
  return (seq + kFlashBlockM - 1) / kFlashBlockM;
}

// Key tiles query tile `query_tile` reads: all of them, or, causal, those up to its last row.
__host__ __device__ constexpr std::int64_t flash_key_tiles(std::int64_t query_tile, std::int64_t seq, bool causal,
                                                          int block_n) {
  const std::int64_t last_query_end = (query_tile + 1) * kFlashBlockM;
  const std::int64_t keys = causal && last_query_end < seq ? last_query_end : seq;
  return (keys + block_n - 1) / block_n;
}

// Whether key tile `key_tile` needs the per-element mask: it holds keys past the sequence end,
// or, causal, a key after the query tile's first row.
__host__ __device__ constexpr bool flash_tile_masked(std::int64_t query_tile, std::int64_t key_tile, std::int64_t seq,
                                                    bool causal, int block_n) {
  const std::int64_t key_end = (key_tile + 1) * block_n;
  return key_end > seq || (causal && key_end - 1 > query_tile * kFlashBlockM);
}

// Why the kernel cannot run `head_dim` on a GPU of compute capability `cc_major`.`cc_minor`
// (cp.async and bf16 mma.sync need 8.0), or empty.
std::string flash_attention_unsupported(std::int64_t head_dim, int cc_major, int cc_minor);

struct FlashAttentionArgs {
  const void *q = nullptr, *k = nullptr, *v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;  // optional: the natural log-sum-exp of each row's scaled scores, B x H x S
  std::int64_t heads_total = 1, seq = 1, head_dim = 64;
  float scale = 1.0f;
  bool causal = false;
  Float16Kind kind = Float16Kind::kHalf;
};

// The grid: (B x H, query tiles), the longest causal tiles launched first.
dim3 flash_attention_grid(const FlashAttentionArgs& args);
// Throws std::invalid_argument for an unsupported head dim or an empty problem.
void flash_attention_forward(const FlashAttentionArgs& args, cudaStream_t stream);

}  // namespace gpubench::kernels
