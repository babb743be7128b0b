#pragma once
// The per-tile pieces of a consumer warpgroup of kernels/flash_attention_sm90.cu: its registers,
// the wgmma issue of S = Q·Kᵀ and O += P·V over a key tile, the mask, the online softmax and the
// packing of P into MMA operands. Device code for the sm_90a pass only (GPUBENCH_SM90A).
#include <cmath>
#include <cstdint>

#include "kernels/flash_attention_mma.cuh"
#include "kernels/flash_sm90_tiling.cuh"
#include "kernels/wgmma.cuh"

#if GPUBENCH_SM90A
namespace gpubench::kernels::sm90 {

// The 128B-swizzled boxes TMA writes: 64 columns (128 bytes) x the tile's rows.
constexpr std::uint32_t kQBoxBytes = kSm90BlockM * wgmma::kSwizzleRowBytes;
template <int BlockN>
constexpr std::uint32_t kKvBoxBytes = BlockN * wgmma::kSwizzleRowBytes;

// The widest wgmma N: O = P·V runs as D / kOutputN instructions per k16 step (two at D = 256).
constexpr int kOutputN = 128;

// A consumer thread's registers, in the wgmma accumulator layout: of each 8-column block j, it
// holds rows r and r + 8 (r = 16 x warp + lane / 4) at columns 8j + 2 (lane % 4) + {0, 1}, as
// elements 4j + {0, 1} (row r) and 4j + {2, 3} (row r + 8). Two adjacent blocks of S are, packed
// to 16 bits, exactly the m64k16 A fragment of P·V: no data moves between S and P.
template <int HeadDim>
struct Accumulators {
  static constexpr int kBlockN = flash_sm90_block_n(HeadDim);
  float o[HeadDim / 2];
  float s[kBlockN / 2];
  std::uint32_t p[kBlockN / 16][4];
  float row_max[2], row_sum[2];  // raw-score maxima of rows r, r + 8; this thread's partial sums
};

// S = Q·Kᵀ: D / 16 steps of k16 along the head dim, 32 bytes apart inside a 128-byte row, the
// next 64 columns one box further; the first step overwrites S.
template <typename T, int HeadDim, int BlockN = flash_sm90_block_n(HeadDim)>
__device__ __forceinline__ void issue_scores(float (&s)[BlockN / 2], std::uint64_t q_desc, std::uint64_t k_desc) {
#pragma unroll
  for (int kk = 0; kk < HeadDim / 16; ++kk)
    wgmma_ss<T, BlockN>(s, q_desc + (wgmma::kmajor_step_offset(kk, kQBoxBytes) >> 4),
                        k_desc + (wgmma::kmajor_step_offset(kk, kKvBoxBytes<BlockN>) >> 4), kk > 0 ? 1u : 0u);
}

// O += P·V: BlockN / 16 steps of 16 keys (16 rows of V, 2048 bytes); N = D across boxes, in
// pieces of kOutputN columns (two boxes) whose accumulators are O's 8-column blocks in order.
template <typename T, int HeadDim, int BlockN = flash_sm90_block_n(HeadDim)>
__device__ __forceinline__ void issue_output(float (&o)[HeadDim / 2], const std::uint32_t (&p)[BlockN / 16][4],
                                             std::uint64_t v_desc) {
  constexpr int kN = HeadDim < kOutputN ? HeadDim : kOutputN;
  constexpr std::uint32_t kPieceBytes = kN / wgmma::kSwizzleRowElements * kKvBoxBytes<BlockN>;
#pragma unroll
  for (int kk = 0; kk < BlockN / 16; ++kk)
#pragma unroll
    for (int piece = 0; piece < HeadDim / kN; ++piece)
      wgmma_rs<T, kN>(*reinterpret_cast<float(*)[kN / 2]>(o + piece * kN / 2), p[kk],
                      v_desc + ((piece * kPieceBytes + wgmma::mnmajor_step_offset(kk)) >> 4), 1u);
}

// -inf for keys past the sequence end and, causal, keys after their query row.
template <int Scores>
__device__ __forceinline__ void mask_scores(float (&s)[Scores], int row, int first_key, int seq, bool causal,
                                            int lane) {
  const int key0 = first_key + 2 * (lane & 3);
#pragma unroll
  for (int j = 0; j < Scores / 4; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = key0 + 8 * j + (e & 1), query = row + 8 * (e >> 1);
      if (key >= seq || (causal && key > query)) s[4 * j + e] = -INFINITY;
    }
}

// The online softmax step of FlashAttention-2 in FP32: new row maxima (shared by the row's four
// lanes), the factor that rescales O and the sums to them, and s <- 2^(s·scale·log2e - base).
// A row whose every score so far is masked keeps maximum -inf and base 0, so it stays all zeros
// instead of becoming NaN.
template <int Scores>
__device__ __forceinline__ void online_softmax(float (&s)[Scores], float (&row_max)[2], float (&row_sum)[2],
                                               float (&correction)[2], float scale_log2) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float tile_max = row_max[h];
#pragma unroll
    for (int j = 0; j < Scores / 4; ++j) tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    const float base = tile_max == -INFINITY ? 0.0f : tile_max * scale_log2;
    correction[h] = flash::fast_exp2(row_max[h] * scale_log2 - base);
    row_max[h] = tile_max;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < Scores / 4; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float& x = s[4 * j + 2 * h + e];
        x = flash::fast_exp2(fmaf(x, scale_log2, -base));
        sum += x;
      }
    row_sum[h] = row_sum[h] * correction[h] + sum;
  }
}

template <int HeadDim>
__device__ __forceinline__ void rescale(float (&o)[HeadDim / 2], const float (&correction)[2]) {
#pragma unroll
  for (int i = 0; i < HeadDim / 2; ++i) o[i] *= correction[(i >> 1) & 1];
}

// P in the 16-bit type as A fragments: step kk takes S's 8-column blocks 2kk and 2kk + 1.
template <typename T, int Steps>
__device__ __forceinline__ void pack_probabilities(std::uint32_t (&p)[Steps][4], const float (&s)[8 * Steps]) {
#pragma unroll
  for (int kk = 0; kk < Steps; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) p[kk][r] = flash::pack2<T>(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
}

}  // namespace gpubench::kernels::sm90
#endif  // GPUBENCH_SM90A
