// The shared-memory arithmetic of our Hopper attention kernel, on the CPU: the wgmma matrix
// descriptor's bit layout (PTX ISA, "Matrix Descriptor Format"), the 128-byte swizzle, and that
// the tiles TMA writes (boxes of 64 columns x rows, 128B-swizzled) are the canonical K-major and
// MN-major layouts the kernel's descriptors describe, element by element, for every k16 step;
// then the tiling of kernels/flash_attention_sm90.cuh and its skip rules.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "kernels/flash_attention_sm90.cuh"
#include "kernels/wgmma_layout.cuh"

namespace gpubench::kernels {
namespace {

using namespace wgmma;

TEST(WgmmaDescriptor, FieldsSitWhereThePtxIsaPutsThem) {
  // start 0x1230 -> 0x123 in bits 0-13, LBO 16 -> 1 in 16-29, SBO 1024 -> 64 in 32-45, 128B -> 1 in 62-63.
  EXPECT_EQ(make_descriptor(0x1230, 16, 1024, 0, Swizzle::k128B), 0x4000004000010123ull);
  EXPECT_EQ(make_descriptor(0, 0, 0, 5, Swizzle::kNone), 5ull << 49);
  EXPECT_EQ(make_descriptor(0, 0, 0, 0, Swizzle::k64B), 2ull << 62);
  EXPECT_EQ(make_descriptor(0, 0, 0, 0, Swizzle::k32B), 3ull << 62);
  // 14-bit fields of 16-byte units: the largest encodable offset, and an address past 2^18 wraps.
  EXPECT_EQ(make_descriptor(0, 0, 0x3FFF0, 0, Swizzle::kNone), 0x3FFFull << 32);
  EXPECT_EQ(make_descriptor(0x40010, 0, 0, 0, Swizzle::kNone), 1ull);
}

TEST(WgmmaDescriptor, FieldsReadBack) {
  const std::uint64_t d = make_descriptor(0x2C400, 16384, 1024, 3, Swizzle::k128B);
  EXPECT_EQ(descriptor_start(d), 0x2C400u);
  EXPECT_EQ(descriptor_leading(d), 16384u);
  EXPECT_EQ(descriptor_stride(d), 1024u);
  EXPECT_EQ(descriptor_base_offset(d), 3u);
  EXPECT_EQ(descriptor_swizzle(d), Swizzle::k128B);
  // The kernel's two kinds: K-major (LBO unused: 16) and MN-major (LBO = a 64-column box).
  EXPECT_EQ(kmajor_descriptor(0x8000), make_descriptor(0x8000, 16, 1024, 0, Swizzle::k128B));
  EXPECT_EQ(descriptor_leading(mnmajor_descriptor(0x8000, 128 * 128)), 16384u);
  EXPECT_EQ(descriptor_stride(mnmajor_descriptor(0x8000, 128 * 128)), 1024u);
}

TEST(WgmmaDescriptor, StepsAddToTheStartFieldWithoutCarry) {
  // The kernel advances a descriptor by adding offset >> 4: the same as encoding the sum, as long
  // as the address stays below 2^18 (shared memory is 228 KiB).
  const std::uint32_t base = 0xD400;
  for (int kk = 0; kk < 8; ++kk) {
    const std::uint32_t step = kmajor_step_offset(kk, 128 * 128) + 32768;
    EXPECT_EQ(kmajor_descriptor(base) + (step >> 4), kmajor_descriptor(base + step)) << kk;
  }
}

TEST(Swizzle128B, ChunkIndexXorRowWithinTheAtom) {
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t chunk = 0; chunk < 8; ++chunk)
      for (std::uint32_t byte = 0; byte < 16; byte += 2) {
        const std::uint32_t offset = row * 128 + chunk * 16 + byte;
        EXPECT_EQ(swizzle_128b(offset), row * 128 + ((chunk ^ (row % 8)) * 16) + byte);
      }
  EXPECT_EQ(swizzle_128b(100), 100u);  // row 0 of an atom is unchanged
}

TEST(Swizzle128B, PermutesEachAtomAndUndoesItself) {
  for (std::uint32_t atom = 0; atom < 4; ++atom) {
    std::set<std::uint32_t> seen;
    for (std::uint32_t i = 0; i < 1024; i += 16) {
      const std::uint32_t offset = atom * 1024 + i;
      const std::uint32_t swizzled = swizzle_128b(offset);
      EXPECT_EQ(swizzled / 1024, atom);
      EXPECT_EQ(swizzle_128b(swizzled), offset);
      seen.insert(swizzled);
    }
    EXPECT_EQ(seen.size(), 64u);
  }
}

// S = Q·Kᵀ: Q (128 rows, consumer warpgroup w reads rows 64w..) and K (BlockN rows) are K-major;
// step kk reads head-dim columns 16 kk .. 16 kk + 15.
TEST(WgmmaLayout, TmaTilesAreTheKMajorLayoutOfEveryStep) {
  for (const int head_dim : {64, 128, 256}) {
    const int block_n = flash_sm90_block_n(head_dim);
    const std::uint32_t q_box_bytes = 128 * 128, k_box_bytes = block_n * 128;  // 64 columns x rows
    for (int kk = 0; kk < head_dim / 16; ++kk)
      for (int warpgroup = 0; warpgroup < 2; ++warpgroup) {
        const std::uint32_t q_start = warpgroup * 64 * 128 + kmajor_step_offset(kk, q_box_bytes);
        for (int m = 0; m < 64; ++m)
          for (int k = 0; k < 16; ++k)
            ASSERT_EQ(kmajor_element_offset(q_start, m, k, 1024),
                      tma_tile_offset(64 * warpgroup + m, 16 * kk + k, kSm90BlockM))
                << "Q, D " << head_dim << " step " << kk << " row " << m << " k " << k;
      }
    for (int kk = 0; kk < head_dim / 16; ++kk)
      for (int n = 0; n < block_n; ++n)
        for (int k = 0; k < 16; ++k)
          ASSERT_EQ(kmajor_element_offset(kmajor_step_offset(kk, k_box_bytes), n, k, 1024),
                    tma_tile_offset(n, 16 * kk + k, block_n))
              << "K, D " << head_dim << " step " << kk << " key " << n << " k " << k;
  }
}

// O += P·V: V (keys x D, D fastest) is the B operand with K = keys, N = D: MN-major, the next
// 64 columns of D one box (LBO) further, 8-key atoms SBO apart; step kk reads keys 16 kk ...;
// at D = 256 an instruction covers 128 columns and the second starts two boxes further.
TEST(WgmmaLayout, TmaTilesAreTheMnMajorLayoutOfEveryStep) {
  for (const int head_dim : {64, 128, 256}) {
    const int block_n = flash_sm90_block_n(head_dim);
    const std::uint32_t box_bytes = block_n * 128;
    for (int kk = 0; kk < block_n / 16; ++kk)
      for (int n = 0; n < head_dim; ++n)
        for (int k = 0; k < 16; ++k) {
          const std::uint32_t start = n / 128 * 2 * box_bytes + mnmajor_step_offset(kk);
          ASSERT_EQ(mnmajor_element_offset(start, n % 128, k, box_bytes, 1024),
                    tma_tile_offset(16 * kk + k, n, block_n))
              << "V, D " << head_dim << " step " << kk << " column " << n << " key " << k;
        }
  }
}

TEST(FlashSm90Tiles, StagesAndSharedMemoryFitOneBlockPerSm) {
  EXPECT_EQ(flash_sm90_stages(128), 2);
  EXPECT_EQ(flash_sm90_stages(64), 4);
  EXPECT_EQ(flash_sm90_stages(256), 2);
  EXPECT_EQ(flash_sm90_stages(96), 0);
  EXPECT_EQ(flash_sm90_shared_bytes(128), 1024u + (128 + 4 * 128) * 128 * 2 + 9 * 8);
  EXPECT_EQ(flash_sm90_shared_bytes(64), 1024u + (128 + 8 * 128) * 64 * 2 + 17 * 8);
  EXPECT_EQ(flash_sm90_shared_bytes(256), 1024u + (128 + 4 * 64) * 256 * 2 + 9 * 8);
  for (const int head_dim : {64, 128, 256}) {
    EXPECT_LE(flash_sm90_shared_bytes(head_dim), 227u * 1024) << head_dim;
    // Every tile starts on the swizzle's 1024-byte period.
    EXPECT_EQ(kSm90BlockM * head_dim * 2 % 1024, 0) << head_dim;
    EXPECT_EQ(flash_sm90_block_n(head_dim) * head_dim * 2 % 1024, 0) << head_dim;
  }
}

TEST(FlashSm90Tiles, E4m3RunsHeadDim128InFourStages) {
  EXPECT_EQ(flash_sm90_stages(128, 1), 4);
  for (const int head_dim : {64, 96, 256}) EXPECT_EQ(flash_sm90_stages(head_dim, 1), 0) << head_dim;
  EXPECT_EQ(flash_sm90_shared_bytes(128, 1), 1024u + (128 + 8 * 128) * 128 + 17 * 8);
  EXPECT_LE(flash_sm90_shared_bytes(128, 1), 227u * 1024);
  // One 128-byte swizzle row per Q, K and packed-V row: one box per tile.
  EXPECT_EQ(128 * 1, static_cast<int>(kSwizzleRowBytes));
  EXPECT_EQ(flash_sm90_block_n(128) * 1, static_cast<int>(kSwizzleRowBytes));
}

// The e4m3 A fragment of P·V (k32): thread t holds, per row, columns 4t .. 4t + 3 in its first
// register and 16 + 4t .. in its third; pack_probabilities fills them with the accumulator's
// blocks j, j + 1 (then j + 2, j + 3), two keys each: 2t, 2t + 1, 8 + 2t, 9 + 2t (+ 16). The packed
// V's column a must hold exactly that key, and the order must be a permutation within each 16.
TEST(FlashSm90Tiles, PackedVKeyOrderIsTheAccumulatorsOrder) {
  for (int t = 0; t < 4; ++t) {
    const int held[4] = {2 * t, 2 * t + 1, 8 + 2 * t, 9 + 2 * t};
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(flash_sm90_fp8_key(4 * t + i), held[i]) << "thread " << t << " byte " << i;
      EXPECT_EQ(flash_sm90_fp8_key(16 + 4 * t + i), 16 + held[i]) << "thread " << t << " byte " << i;
    }
  }
  for (int group = 0; group < 4; ++group) {
    std::set<std::int64_t> keys;
    for (int a = 0; a < 16; ++a) keys.insert(flash_sm90_fp8_key(16 * group + a));
    EXPECT_EQ(keys.size(), 16u);
    EXPECT_EQ(*keys.begin(), 16 * group);
    EXPECT_EQ(*keys.rbegin(), 16 * group + 15);
  }
  EXPECT_EQ(flash_sm90_fp8_packed_keys(1), 16);
  EXPECT_EQ(flash_sm90_fp8_packed_keys(77), 80);
  EXPECT_EQ(flash_sm90_fp8_packed_keys(4096), 4096);
}

TEST(FlashSm90Tiles, BothWarpgroupsReadTheSameKeyTiles) {
  // 128-query and 128-key tiles: causal query tile t reads key tiles 0..t.
  EXPECT_EQ(flash_sm90_key_tiles(0, 4096, true, 128), 1);
  EXPECT_EQ(flash_sm90_key_tiles(31, 4096, true, 128), 32);
  EXPECT_EQ(flash_sm90_key_tiles(0, 4096, false, 128), 32);
  EXPECT_EQ(flash_sm90_key_tiles(7, 1000, true, 128), 8);
  EXPECT_EQ(flash_sm90_key_tiles(0, 77, false, 128), 1);
  // 64-key tiles (D = 256): causal query tile t reads key tiles 0..2t + 1, the last of which
  // holds no key of the first warpgroup's rows.
  EXPECT_EQ(flash_sm90_block_n(256), 64);
  EXPECT_EQ(flash_sm90_key_tiles(0, 4096, true, 64), 2);
  EXPECT_EQ(flash_sm90_key_tiles(31, 4096, true, 64), 64);
  EXPECT_EQ(flash_sm90_key_tiles(7, 1000, true, 64), 16);
  EXPECT_EQ(flash_sm90_key_tiles(0, 77, false, 64), 2);
  EXPECT_EQ(flash_sm90_query_tiles(1), 1);
  EXPECT_EQ(flash_sm90_query_tiles(129), 2);
}

TEST(FlashSm90Tiles, OnlyDiagonalAndTailTilesAreMasked) {
  // Query tile 2: warpgroup rows start at 256 and 320; key tile 2 (keys 256..383) is the diagonal
  // for both, key tile 1 for neither.
  EXPECT_TRUE(flash_sm90_tile_masked(256, 2, 4096, true, 128));
  EXPECT_TRUE(flash_sm90_tile_masked(320, 2, 4096, true, 128));
  EXPECT_FALSE(flash_sm90_tile_masked(320, 1, 4096, true, 128));
  EXPECT_FALSE(flash_sm90_tile_masked(256, 2, 4096, false, 128));
  EXPECT_TRUE(flash_sm90_tile_masked(0, 7, 1000, false, 128));  // keys 896..1023, sequence ends at 1000
  EXPECT_FALSE(flash_sm90_tile_masked(0, 6, 1000, false, 128));
  // 64-key tiles: key tile 5 (keys 320..383) is the diagonal of rows 320.., masked for rows 256..
  EXPECT_TRUE(flash_sm90_tile_masked(256, 5, 4096, true, 64));
  EXPECT_TRUE(flash_sm90_tile_masked(320, 5, 4096, true, 64));
  EXPECT_FALSE(flash_sm90_tile_masked(320, 4, 4096, true, 64));
  EXPECT_TRUE(flash_sm90_tile_masked(0, 15, 1000, false, 64));  // keys 960..1023
}

TEST(FlashSm90Tiles, GridIsEveryQueryTileOfEveryHead) {
  FlashAttentionArgs args;
  args.heads_total = 128, args.seq = 4096;
  EXPECT_EQ(flash_attention_sm90_grid(args).x, 128u * 32);
  args.seq = 1000;
  EXPECT_EQ(flash_attention_sm90_grid(args).x, 128u * 8);
}

TEST(FlashSm90Skips, HopperOnlyAndThreeHeadDims) {
  EXPECT_EQ(flash_attention_sm90_unsupported(128, 9, 0), "");
  EXPECT_EQ(flash_attention_sm90_unsupported(64, 9, 0), "");
  EXPECT_EQ(flash_attention_sm90_unsupported(256, 9, 0), "");
  EXPECT_EQ(flash_attention_sm90_unsupported(96, 9, 0), "our Hopper kernel runs head_dim 64, 128 and 256, not 96");
  EXPECT_EQ(flash_attention_sm90_unsupported(128, 8, 0),
            "our Hopper kernel needs compute capability 9.0 (wgmma, setmaxnreg: sm_90a); this GPU has 8.0");
  EXPECT_NE(flash_attention_sm90_unsupported(128, 10, 0), "");
}

TEST(FlashSm90Skips, BadArgumentsAreRefusedBeforeAnyCudaCall) {
  FlashAttentionArgs args;
  args.head_dim = 96;
  EXPECT_THROW(flash_attention_forward_sm90(args, nullptr), std::invalid_argument);
  args.head_dim = 128, args.seq = 0;
  EXPECT_THROW(flash_attention_forward_sm90(args, nullptr), std::invalid_argument);
  args.seq = 128;  // null (aligned) pointers pass; a misaligned one does not
  args.q = reinterpret_cast<const void*>(std::uintptr_t{8});
  EXPECT_THROW(flash_attention_forward_sm90(args, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench::kernels
