#include <gtest/gtest.h>

#include "harness/model/plausibility.h"

namespace gpubench {
namespace {

TEST(Plausibility, AFigureAboveItsPeakIsImpossible) {
  const auto why = implausible_figure(3640, 63.0);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "exceeds the physical peak (5778 % of 63): the measurement is wrong");
}

TEST(Plausibility, UpToFivePercentOverThePeakPasses) {
  EXPECT_FALSE(implausible_figure(66.0, 63.0));
  EXPECT_TRUE(implausible_figure(66.2, 63.0));
}

TEST(Plausibility, NoPeakOrALowerIsBetterFigureIsNotChecked) {
  EXPECT_FALSE(implausible_figure(1e9, 0));
  EXPECT_FALSE(implausible_figure(500, 63.0, false));
}

}  // namespace
}  // namespace gpubench
