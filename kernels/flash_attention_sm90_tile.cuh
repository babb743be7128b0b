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

// The 128B-swizzled boxes TMA writes: 128 bytes of a row (64 16-bit or 128 e4m3 columns) x the
// tile's rows.
constexpr std::uint32_t kQBoxBytes = kSm90BlockM * wgmma::kSwizzleRowBytes;
template <int BlockN>
constexpr std::uint32_t kKvBoxBytes = BlockN * wgmma::kSwizzleRowBytes;

// The widest wgmma N: O = P·V runs as D / kOutputN instructions per k16 step (two at D = 256).
constexpr int kOutputN = 128;

// A consumer thread's registers, in the wgmma accumulator layout: of each 8-column block j, it
// holds rows r and r + 8 (r = 16 x warp + lane / 4) at columns 8j + 2 (lane % 4) + {0, 1}, as
// elements 4j + {0, 1} (row r) and 4j + {2, 3} (row r + 8). Two adjacent blocks of S are, packed
// to 16 bits, exactly the m64k16 A fragment of P·V: no data moves between S and P. For e4m3 four
// blocks make one m64k32 fragment, whose columns lie otherwise; V's packed key order
// (flash_sm90_fp8_key) absorbs the difference, so no data moves there either.
template <typename T, int HeadDim>
struct Accumulators {
  static constexpr int kBlockN = flash_sm90_block_n(HeadDim);
  float o[HeadDim / 2];
  float s[kBlockN / 2];
  std::uint32_t p[kBlockN / kWgmmaK<T>][4];
  float row_max[2], row_sum[2];  // raw-score maxima of rows r, r + 8; this thread's partial sums
};

// S = Q·Kᵀ: D / k steps along the head dim (k16, or k32 for e4m3), 32 bytes apart inside a
// 128-byte row, the next 128 bytes of the row one box further; the first step overwrites S.
template <typename T, int HeadDim, int BlockN = flash_sm90_block_n(HeadDim)>
__device__ __forceinline__ void issue_scores(float (&s)[BlockN / 2], std::uint64_t q_desc, std::uint64_t k_desc) {
#pragma unroll
  for (int kk = 0; kk < HeadDim / kWgmmaK<T>; ++kk)
    wgmma_ss<T, BlockN>(s, q_desc + (wgmma::kmajor_step_offset(kk, kQBoxBytes) >> 4),
                        k_desc + (wgmma::kmajor_step_offset(kk, kKvBoxBytes<BlockN>) >> 4), kk > 0 ? 1u : 0u);
}

// O += P·V: BlockN / 16 steps of 16 keys (16 rows of V, 2048 bytes); N = D across boxes, in
// pieces of kOutputN columns (two boxes) whose accumulators are O's 8-column blocks in order.
// For e4m3, V is transposed (K-major: D rows of BlockN = 128 packed keys, one box): BlockN / 32
// steps of 32 keys, 32 bytes apart inside the rows, each one m64n128k32 over all of D = 128.
template <typename T, int HeadDim, int BlockN = flash_sm90_block_n(HeadDim)>
__device__ __forceinline__ void issue_output(float (&o)[HeadDim / 2],
                                             const std::uint32_t (&p)[BlockN / kWgmmaK<T>][4], std::uint64_t v_desc) {
  if constexpr (kIsE4m3<T>) {
    static_assert(HeadDim == kOutputN && BlockN == wgmma::kSwizzleRowBytes, "e4m3: D = 128, one 128-key box");
#pragma unroll
    for (int kk = 0; kk < BlockN / 32; ++kk)
      wgmma_rs<T, kOutputN>(o, p[kk], v_desc + (wgmma::kmajor_step_offset(kk, HeadDim * wgmma::kSwizzleRowBytes) >> 4),
                            1u);
    return;
  }
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
// lanes), the factor that rescales O and the sums to them, and s <- 2^(s·scale·log2e - base +
// Log2Bias). A row whose every score so far is masked keeps maximum -inf and base 0, so it stays
// all zeros instead of becoming NaN. Log2Bias lifts P for e4m3 (2^8: P <= 256 < 448), whose
// smallest subnormal is 2^-9: terms down to 2^-17 of the row's largest survive; sums and P carry
// it alike, so it cancels in O = P·V / sum.
template <int Log2Bias, int Scores>
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
    const float offset = Log2Bias == 0 ? -base : static_cast<float>(Log2Bias) - base;
    correction[h] = flash::fast_exp2(row_max[h] * scale_log2 - base);
    row_max[h] = tile_max;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < Scores / 4; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float& x = s[4 * j + 2 * h + e];
        x = flash::fast_exp2(fmaf(x, scale_log2, offset));
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

// Four e4m3 values, the first in the lowest byte (the lowest column of an A fragment register).
__device__ __forceinline__ std::uint32_t pack4_e4m3(float a, float b, float c, float d) {
  const std::uint32_t low = __nv_cvt_float2_to_fp8x2(make_float2(a, b), __NV_SATFINITE, __NV_E4M3);
  const std::uint32_t high = __nv_cvt_float2_to_fp8x2(make_float2(c, d), __NV_SATFINITE, __NV_E4M3);
  return low | high << 16;
}

// P as A fragments. 16-bit: step kk takes S's 8-column blocks 2kk and 2kk + 1. e4m3: step kk
// takes blocks 4kk .. 4kk + 3; register r holds row r % 2 (r, r + 8) of blocks 4kk + 2 (r / 2)
// and the next, two values of each, in accumulator order.
template <typename T, int Steps>
__device__ __forceinline__ void pack_probabilities(std::uint32_t (&p)[Steps][4], const float (&s)[Steps * kWgmmaK<T> / 2]) {
#pragma unroll
  for (int kk = 0; kk < Steps; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      if constexpr (kIsE4m3<T>) {
        const float* x = s + 16 * kk + 8 * (r / 2) + 2 * (r % 2);
        p[kk][r] = pack4_e4m3(x[0], x[1], x[4], x[5]);
      } else {
        p[kk][r] = flash::pack2<T>(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
      }
    }
}

}  // namespace gpubench::kernels::sm90
#endif  // GPUBENCH_SM90A
