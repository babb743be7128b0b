// The host side of our fused attention kernel: tile sizes and shared memory per head dim, the
// grid (every query tile of every head, the longest causal tiles first), the key tiles a causal
// query tile reads and which of them need the element mask, the skip rules (head dim, compute
// capability), and the names impl:gpubench adds to attention/forward.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/core/family.h"
#include "kernels/flash_attention.cuh"
#include "test_support.h"

namespace gpubench::kernels {
namespace {

TEST(FlashAttentionTiles, KeyTileAndSharedMemoryPerHeadDim) {
  EXPECT_EQ(flash_block_n(128), 64);
  EXPECT_EQ(flash_block_n(64), 128);
  EXPECT_EQ(flash_block_n(96), 0);
  // Q tile plus two stages of K and V, 16-bit: two blocks fit an H100/H200 SM's 228 KiB.
  EXPECT_EQ(flash_shared_bytes(128), (128u + 4 * 64) * 128 * 2);
  EXPECT_EQ(flash_shared_bytes(64), (128u + 4 * 128) * 64 * 2);
  EXPECT_LE(2 * flash_shared_bytes(128), 227u * 1024);
  EXPECT_LE(2 * flash_shared_bytes(64), 227u * 1024);
}

TEST(FlashAttentionTiles, GridCoversEveryQueryTileOfEveryHead) {
  FlashAttentionArgs args;
  args.heads_total = 128, args.seq = 4096;
  EXPECT_EQ(flash_attention_grid(args).x, 128u);
  EXPECT_EQ(flash_attention_grid(args).y, 32u);
  args.seq = 1000;  // a partial last tile
  EXPECT_EQ(flash_attention_grid(args).y, 8u);
  args.seq = 1;
  EXPECT_EQ(flash_attention_grid(args).y, 1u);
}

TEST(FlashAttentionTiles, CausalQueryTilesReadKeysUpToTheirLastRow) {
  // 128-query tiles, 64-key tiles: query tile t reads 2 (t + 1) key tiles, all of them when not causal.
  EXPECT_EQ(flash_key_tiles(0, 4096, true, 64), 2);
  EXPECT_EQ(flash_key_tiles(31, 4096, true, 64), 64);
  EXPECT_EQ(flash_key_tiles(0, 4096, false, 64), 64);
  // The last, partial tile stops at the sequence end: S = 1000 has 8 query tiles, 16 key tiles of 64.
  EXPECT_EQ(flash_key_tiles(7, 1000, true, 64), 16);
  EXPECT_EQ(flash_key_tiles(7, 1000, false, 128), 8);
  EXPECT_EQ(flash_key_tiles(0, 1, true, 128), 1);
}

TEST(FlashAttentionTiles, OnlyDiagonalAndTailKeyTilesAreMasked) {
  // Causal, 64-key tiles: query tile 1 (rows 128..255) reads key tiles 0..3; 0 and 1 lie wholly
  // before row 128, 2 and 3 cross the diagonal.
  EXPECT_FALSE(flash_tile_masked(1, 0, 4096, true, 64));
  EXPECT_FALSE(flash_tile_masked(1, 1, 4096, true, 64));
  EXPECT_TRUE(flash_tile_masked(1, 2, 4096, true, 64));
  EXPECT_TRUE(flash_tile_masked(1, 3, 4096, true, 64));
  EXPECT_FALSE(flash_tile_masked(1, 3, 4096, false, 64));
  // The tile holding the sequence end is masked, causal or not.
  EXPECT_TRUE(flash_tile_masked(0, 7, 1000, false, 128));
  EXPECT_FALSE(flash_tile_masked(0, 6, 1000, false, 128));
  EXPECT_FALSE(flash_tile_masked(0, 31, 4096, false, 128));
}

TEST(FlashAttentionSkips, UnsupportedHeadDimAndOldGpusSaySo) {
  EXPECT_EQ(flash_attention_unsupported(128, 9, 0), "");
  EXPECT_EQ(flash_attention_unsupported(64, 8, 0), "");
  EXPECT_EQ(flash_attention_unsupported(96, 9, 0), "our kernel runs head_dim 64 and 128, not 96");
  EXPECT_EQ(flash_attention_unsupported(64, 7, 5),
            "our kernel needs compute capability 8.0 (cp.async, bf16 mma.sync); this GPU has 7.5");
}

TEST(FlashAttentionSkips, UnsupportedHeadDimIsRefusedBeforeAnyLaunch) {
  FlashAttentionArgs args;
  args.head_dim = 96;
  EXPECT_THROW(flash_attention_forward(args, nullptr), std::invalid_argument);
  args.head_dim = 64, args.seq = 0;
  EXPECT_THROW(flash_attention_forward(args, nullptr), std::invalid_argument);
}

TEST(FlashAttentionNames, GpubenchJoinsTheForwardFamilyAtTheIssueShapes) {
  const Family* forward = find_family("attention/forward");
  ASSERT_NE(forward, nullptr);
  const auto instances = forward->expand(ExpandOptions{});
  auto has = [&](const std::string& name) {
    return std::any_of(instances.begin(), instances.end(), [&](const Instance& i) { return i.name == name; });
  };
  for (const char* type : {"fp16", "bf16"})
    for (const char* causal : {"0", "1"}) {
      const std::string suffix = std::string("/causal:") + causal + "/gpu:gpu0";
      EXPECT_TRUE(has(std::string("attention/forward/impl:gpubench/type:") + type +
                      "/model:llama3_8b/batch:4/seq:4096" + suffix));
      EXPECT_TRUE(has(std::string("attention/forward/impl:gpubench/type:") + type +
                      "/model:gpt2_medium/batch:16/seq:2048" + suffix));
    }
  EXPECT_FALSE(has("attention/forward/impl:gpubench/type:fp16/model:llama3_8b/batch:16/seq:4096/causal:0/gpu:gpu0"));
  EXPECT_FALSE(has("attention/forward/impl:gpubench/type:fp16/model:llama3_8b/batch:4/seq:2048/causal:0/gpu:gpu0"));
}

}  // namespace
}  // namespace gpubench::kernels
