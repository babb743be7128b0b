#pragma once
// The warp-level pieces of kernels/flash_attention.cu: asynchronous global-to-shared copies,
// ldmatrix, the m16n8k16 tensor-core MMA for fp16 and bf16, and the swizzled shared-memory tile
// they read. Device code only: include from .cu files.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gpubench::kernels::flash {

__device__ inline std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// 16 bytes from global to shared memory, bypassing L1; an invalid source (a row past the
// sequence end) writes zeros and reads nothing.
__device__ inline void copy_async_16(std::uint32_t destination, const void* source, bool valid) {
  const int source_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(destination), "l"(source), "r"(source_bytes));
}

__device__ inline void copy_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most `Pending` committed groups of this thread are still in flight.
template <int Pending>
__device__ inline void copy_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// Four 8x8 16-bit matrices; lanes 8i..8i+7 give the row addresses of matrix i.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// The same, each matrix transposed: the B operand from a row-major K x N tile (V).
__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// d += a · b for a 16x16 (row-major) times 16x8 (column-major) tile, FP32 accumulation; `type`
// names the 16-bit inputs in PTX (f16, bf16).
#define GPUBENCH_MMA_16816(type)                                                                           \
  asm("mma.sync.aligned.m16n8k16.row.col.f32." type "." type ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
      "{%8, %9}, {%0, %1, %2, %3};\n"                                                                     \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                                     \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))

template <typename T>
__device__ inline void mma_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
  if constexpr (std::is_same_v<T, __half>)
    GPUBENCH_MMA_16816("f16");
  else
    GPUBENCH_MMA_16816("bf16");
}

#undef GPUBENCH_MMA_16816

// Two floats rounded to the 16-bit type, `low` in the lower half: one MMA operand register.
template <typename T>
__device__ inline std::uint32_t pack2(float low, float high);

template <>
__device__ inline std::uint32_t pack2<__half>(float low, float high) {
  const __half2 pair = __floats2half2_rn(low, high);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

template <>
__device__ inline std::uint32_t pack2<__nv_bfloat16>(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

// 2^x on the special-function unit (2^-inf = 0).
__device__ inline float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// A shared-memory tile of rows of `HeadDim` 16-bit elements, stored as 16-byte chunks whose
// index is XORed with the row's low three bits: the eight rows an ldmatrix (or a column of
// 16-byte stores) touches at one logical chunk land in eight different bank groups.
template <int HeadDim>
struct SwizzledTile {
  static constexpr int kChunks = HeadDim / 8;  // 16-byte chunks per row
  static constexpr int kRowBytes = HeadDim * 2;
  __device__ static std::uint32_t offset(int row, int chunk) {
    return static_cast<std::uint32_t>(row * kRowBytes + ((chunk ^ (row & 7)) << 4));
  }
};

}  // namespace gpubench::kernels::flash
