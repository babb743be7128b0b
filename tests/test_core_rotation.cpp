// Buffer rotation against the L2: how many buffers a rotation needs so that their bytes exceed
// twice the L2, their alignment, and cycling through one allocation.
#include <gtest/gtest.h>

#include <cstdlib>

#include "harness/core/l2_flush.h"

namespace gpubench {
namespace {

constexpr std::size_t kH200L2 = 60 * 1024 * 1024;

TEST(Rotation, EnoughBuffersToExceedTwiceTheL2) {
  for (std::size_t bytes : {std::size_t{4}, std::size_t{4096}, std::size_t{1} << 20, std::size_t{16} << 20}) {
    const std::size_t n = rotation_count(bytes, kH200L2);
    EXPECT_GT(n * bytes, 2 * kH200L2) << bytes;
    EXPECT_LE((n - 1) * bytes, 2 * kH200L2) << bytes;  // and no more than needed
  }
  EXPECT_EQ(rotation_count(std::size_t{1} << 30, kH200L2), 1u);  // one buffer already exceeds it
  EXPECT_EQ(rotation_count(4096, 0), 1u);                        // L2 unknown
  EXPECT_THROW(rotation_count(0, kH200L2), std::invalid_argument);
}

TEST(Rotation, BuffersAreAlignedAndCycleInOneAllocation) {
  EXPECT_EQ(rotation_stride(4), 256u);
  EXPECT_EQ(rotation_stride(4096), 4096u);
  std::size_t allocated = 0;
  void* freed = nullptr;
  {
    RotatingBuffers buffers(
        1000, 4096, [&](std::size_t bytes) { allocated = bytes; return std::malloc(bytes); },
        [&](void* p) { freed = p; std::free(p); });
    EXPECT_EQ(buffers.count(), 9u);  // 9 x 1000 > 8192
    EXPECT_EQ(buffers.stride(), 1024u);
    EXPECT_EQ(allocated, 9u * 1024u);
    void* first = buffers.next();
    EXPECT_EQ(static_cast<char*>(buffers.next()) - static_cast<char*>(first), 1024);
    for (int i = 0; i < 7; ++i) buffers.next();
    EXPECT_EQ(buffers.next(), first);  // the tenth is the first again
  }
  EXPECT_NE(freed, nullptr);
}

}  // namespace
}  // namespace gpubench
