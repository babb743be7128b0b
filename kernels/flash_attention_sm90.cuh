#pragma once
// Our Hopper fused attention forward (sm_90a), fp16, bf16 and e4m3: the FlashAttention-2 algorithm of
// kernels/flash_attention.cuh on Hopper's machinery — TMA loads into 128B-swizzled shared memory,
// an mbarrier pipeline fed by a producer warp, two consumer warpgroups of 64 query rows each
// running S = Q·Kᵀ and O += P·V as warpgroup MMAs (wgmma), with the softmax of one key tile
// overlapping the MMAs of the next. Same arguments and semantics as flash_attention_forward; the
// design is described at the top of kernels/flash_attention_sm90.cu, its tiling in
// kernels/flash_sm90_tiling.cuh.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/flash_attention.cuh"
#include "kernels/flash_sm90_tiling.cuh"

namespace gpubench::kernels {

// Why the kernel cannot run `head_dim` on a GPU of compute capability `cc_major`.`cc_minor`
// (wgmma and setmaxnreg exist on 9.0 only, through sm_90a code), or empty.
std::string flash_attention_sm90_unsupported(std::int64_t head_dim, int cc_major, int cc_minor);

// Whether this binary carries the sm_90a build of the kernel for the current device: built for
// plain sm_90 only, the kernel would trap. Asks the runtime for a probe kernel's attributes;
// launches nothing.
bool flash_attention_sm90_code_present();

// The grid: one block per (head, query tile), a head's tiles consecutive (its K and V stay in
// L2 while they run), the longest causal tile of each head first.
dim3 flash_attention_sm90_grid(const FlashAttentionArgs& args);

// Throws std::invalid_argument for an unsupported head dim, an empty problem or pointers not
// 16-byte aligned (TMA), std::runtime_error when the sm_90a code or the driver's tensor-map
// entry point is missing.
void flash_attention_forward_sm90(const FlashAttentionArgs& args, cudaStream_t stream);

// The same kernel on e4m3 (FP8) operands: Q·Kᵀ and P·V as e4m3 wgmma (k32, twice the 16-bit
// rate), FP32 accumulation and softmax, P rounded to e4m3 (lifted by 2^8 first, see
// flash_attention_sm90_tile.cuh), O in bf16. A real operand is its stored e4m3 value x its
// descale. Head dim 128.
struct FlashAttentionFp8Args {
  const void *q = nullptr, *k = nullptr;  // e4m3, B·H x S x D
  const void* v_packed = nullptr;         // V as flash_sm90_pack_v_e4m3 wrote it
  void* o = nullptr;                      // bf16, B·H x S x D
  float* lse = nullptr;                   // optional, as in FlashAttentionArgs
  std::int64_t heads_total = 1, seq = 1, head_dim = 128;
  float scale = 1.0f;  // the softmax scale, applied to the real scores
  float q_descale = 1.0f, k_descale = 1.0f, v_descale = 1.0f;
  bool causal = false;
};

// Why the e4m3 kernel cannot run `head_dim` here, or empty.
std::string flash_attention_sm90_fp8_unsupported(std::int64_t head_dim, int cc_major, int cc_minor);

// Throws as flash_attention_forward_sm90 does.
void flash_attention_forward_sm90_fp8(const FlashAttentionFp8Args& args, cudaStream_t stream);

}  // namespace gpubench::kernels
