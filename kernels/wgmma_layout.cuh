#pragma once
// The shared-memory side of Hopper's warpgroup MMA, as plain arithmetic that the host can test:
// the 64-bit matrix descriptor wgmma.mma_async reads its shared-memory operands through, the
// 128-byte swizzle that TMA writes and wgmma reads, and where an operand element lies in the
// canonical layouts of the PTX ISA ("Shared Memory Matrix Layout", 16-bit elements, T = 8):
//   K-major,  128B swizzle: ((8,m),(T,2k)):((8T,SBO),(1,T))
//   MN-major, 128B swizzle: ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))
// so that a unit test can check that a tile written by TMA (boxes of 64 columns x rows) is the
// layout the descriptors of kernels/flash_attention_sm90.cu describe. No CUDA header needed.
#include <cstdint>

#if defined(__CUDACC__)
#define GPUBENCH_HOST_DEVICE __host__ __device__
#else
#define GPUBENCH_HOST_DEVICE
#endif

namespace gpubench::kernels::wgmma {

// Bits 62-63 of the descriptor (sm_90 wgmma; tcgen05 on sm_100 moved and widened this field).
enum class Swizzle : std::uint32_t { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };

// A 16-bit element row of one swizzle atom: 128 bytes, 64 elements; 8 rows make the 1024-byte
// atom whose start the 128B pattern is anchored to (base offset 0 needs 1024-byte alignment).
constexpr std::uint32_t kSwizzleRowBytes = 128;
constexpr std::uint32_t kSwizzleAtomBytes = 1024;
constexpr int kSwizzleRowElements = 64;

// Address, LBO and SBO are stored as 14 bits of (value mod 2^18) >> 4: 16-byte units, which is
// why shared-memory operands must be 16-byte aligned and below 256 KiB.
GPUBENCH_HOST_DEVICE constexpr std::uint64_t descriptor_field(std::uint32_t bytes) {
  return static_cast<std::uint64_t>((bytes & 0x3FFFFu) >> 4);
}

// Start address bits 0-13, leading byte offset 16-29, stride byte offset 32-45, base offset
// 49-51, swizzle mode 62-63; the other bits are zero.
GPUBENCH_HOST_DEVICE constexpr std::uint64_t make_descriptor(std::uint32_t start_address, std::uint32_t leading_bytes,
                                                             std::uint32_t stride_bytes, std::uint32_t base_offset,
                                                             Swizzle swizzle) {
  return descriptor_field(start_address) | descriptor_field(leading_bytes) << 16 |
         descriptor_field(stride_bytes) << 32 | static_cast<std::uint64_t>(base_offset & 7u) << 49 |
         static_cast<std::uint64_t>(swizzle) << 62;
}

// The fields back, in bytes (for tests and debugging dumps).
GPUBENCH_HOST_DEVICE constexpr std::uint32_t descriptor_start(std::uint64_t d) {
  return static_cast<std::uint32_t>(d & 0x3FFFu) << 4;
}
GPUBENCH_HOST_DEVICE constexpr std::uint32_t descriptor_leading(std::uint64_t d) {
  return static_cast<std::uint32_t>((d >> 16) & 0x3FFFu) << 4;
}
GPUBENCH_HOST_DEVICE constexpr std::uint32_t descriptor_stride(std::uint64_t d) {
  return static_cast<std::uint32_t>((d >> 32) & 0x3FFFu) << 4;
}
GPUBENCH_HOST_DEVICE constexpr std::uint32_t descriptor_base_offset(std::uint64_t d) {
  return static_cast<std::uint32_t>((d >> 49) & 7u);
}
GPUBENCH_HOST_DEVICE constexpr Swizzle descriptor_swizzle(std::uint64_t d) { return static_cast<Swizzle>(d >> 62); }

// K-major operand (Q as A of S = Q·Kᵀ, K as its B): rows of the M or N dimension 128 bytes
// apart inside an atom, 8-row atoms SBO apart; LBO is unused for swizzled K-major layouts
// ("assumed 1"), so 16 bytes is written.
GPUBENCH_HOST_DEVICE constexpr std::uint64_t kmajor_descriptor(std::uint32_t start_address) {
  return make_descriptor(start_address, 16, kSwizzleAtomBytes, 0, Swizzle::k128B);
}

// MN-major operand (V as B of O += P·V with imm-trans-b = 1): N runs along the 128-byte rows,
// 64-column blocks of N are LBO apart, 8-row (8 key) atoms along K are SBO apart.
GPUBENCH_HOST_DEVICE constexpr std::uint64_t mnmajor_descriptor(std::uint32_t start_address,
                                                                std::uint32_t column_block_bytes) {
  return make_descriptor(start_address, column_block_bytes, kSwizzleAtomBytes, 0, Swizzle::k128B);
}

// The 128-byte swizzle as both TMA (CU_TENSOR_MAP_SWIZZLE_128B) and wgmma apply it to an offset
// from a 1024-byte aligned base: the 16-byte chunk index (bits 4-6) XOR the row within the atom
// (bits 7-9). It permutes each atom and is its own inverse.
GPUBENCH_HOST_DEVICE constexpr std::uint32_t swizzle_128b(std::uint32_t byte_offset) {
  return byte_offset ^ (((byte_offset >> 7) & 7u) << 4);
}

// Where TMA puts element (row, column) of a rows x columns 16-bit tile loaded as boxes of
// {64 columns, rows}: box column / 64 at (column / 64) x rows x 128 bytes, rows 128 bytes apart.
GPUBENCH_HOST_DEVICE constexpr std::uint32_t tma_tile_offset(int row, int column, int rows) {
  return swizzle_128b(static_cast<std::uint32_t>((column / kSwizzleRowElements) * rows * 128 + row * 128 +
                                                 (column % kSwizzleRowElements) * 2));
}

// Where wgmma reads element (mn, k) of a K-major operand (k < 16 within one k16 instruction)
// whose descriptor has start `start` (an offset from the 1024-byte aligned tile) and SBO `sbo`:
// the canonical layout's offset from the start, then the swizzle of the whole offset.
GPUBENCH_HOST_DEVICE constexpr std::uint32_t kmajor_element_offset(std::uint32_t start, int mn, int k,
                                                                   std::uint32_t sbo) {
  return swizzle_128b(start + static_cast<std::uint32_t>(mn % 8) * 128u + static_cast<std::uint32_t>(mn / 8) * sbo +
                      static_cast<std::uint32_t>(k) * 2u);
}

// The same for an MN-major operand with LBO `lbo` between 64-element blocks of MN.
GPUBENCH_HOST_DEVICE constexpr std::uint32_t mnmajor_element_offset(std::uint32_t start, int mn, int k,
                                                                    std::uint32_t lbo, std::uint32_t sbo) {
  return swizzle_128b(start + static_cast<std::uint32_t>(mn % kSwizzleRowElements) * 2u +
                      static_cast<std::uint32_t>(mn / kSwizzleRowElements) * lbo +
                      static_cast<std::uint32_t>(k % 8) * 128u + static_cast<std::uint32_t>(k / 8) * sbo);
}

// The descriptor start of k16 step `kk` of a K-major tile whose K extent is split into boxes of
// 64 columns `box_bytes` apart: inside a 128-byte row, a step moves 32 bytes (the hardware
// swizzles the full address, so the unswizzled offset is what the descriptor carries).
GPUBENCH_HOST_DEVICE constexpr std::uint32_t kmajor_step_offset(int kk, std::uint32_t box_bytes) {
  return static_cast<std::uint32_t>(kk / 4) * box_bytes + static_cast<std::uint32_t>(kk % 4) * 32u;
}

// The descriptor start of k16 step `kk` (keys 16 kk ..) of an MN-major tile: 16 rows of 128 bytes.
GPUBENCH_HOST_DEVICE constexpr std::uint32_t mnmajor_step_offset(int kk) {
  return static_cast<std::uint32_t>(kk) * 16u * kSwizzleRowBytes;
}

}  // namespace gpubench::kernels::wgmma
