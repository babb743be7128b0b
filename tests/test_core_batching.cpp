// batch_size: operations per sample for a target sample time, as State::measure, transfer's
// lanes and collectives size their samples.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/core/batching.h"

namespace gpubench {
namespace {

TEST(CoreBatching, OperationsFillTheTargetTime) {
  EXPECT_EQ(batch_size(1e-5, 1e-3, 1000), 100);
  EXPECT_EQ(batch_size(1e-3, 2e-3, 100), 2);
  EXPECT_EQ(batch_size(3e-4, 1e-3, 1000), 4);  // rounded up: a sample at least the target
}

TEST(CoreBatching, AtLeastOneAtMostTheLimit) {
  EXPECT_EQ(batch_size(5e-3, 1e-3, 1000), 1);
  EXPECT_EQ(batch_size(20e-3, 2e-3, 100), 1);
  EXPECT_EQ(batch_size(1e-9, 1e-3, 1000), 1000);
  EXPECT_EQ(batch_size(1e-6, 2e-3, 100), 100);
  EXPECT_EQ(batch_size(1e-6, 2e-3, 0), 1);  // a limit below one still batches one
}

TEST(CoreBatching, UnknownTimeIsOneOperation) {
  EXPECT_EQ(batch_size(0, 1e-3, 1000), 1);
  EXPECT_EQ(batch_size(0, 2e-3, 100), 1);
  EXPECT_EQ(batch_size(-1, 1e-3, 1000), 1);
  EXPECT_EQ(batch_size(std::nan(""), 1e-3, 1000), 1);
}

}  // namespace
}  // namespace gpubench
