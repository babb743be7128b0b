// allclose per precision: tolerances ordered by the formats' precision, NaN never passing, the
// count of bad elements, the first bad index and the largest relative error.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "harness/core/verify.h"

namespace gpubench {
namespace {

TEST(Allclose, TolerancesLoosenWithTheFormatsPrecision) {
  const char* names[] = {"fp64", "fp32", "tf32", "bf16", "fp8"};
  double previous = 0;
  for (const char* name : names) {
    const Tolerance t = tolerance_for(precision_from_name(name));
    EXPECT_GT(t.rtol, previous) << name;
    previous = t.rtol;
    EXPECT_STREQ(to_string(precision_from_name(name)), name);
  }
  EXPECT_LE(tolerance_for(Precision::kFp16).rtol, tolerance_for(Precision::kBf16).rtol);
  EXPECT_EQ(precision_from_name("fp8_e5m2"), Precision::kFp8);
  EXPECT_THROW(precision_from_name("int4"), std::invalid_argument);
}

TEST(Allclose, OneRoundingOfEachFormatPasses) {
  // A value off by one unit roundoff of its format passes that format's check, and not fp64's.
  const struct { Precision p; double unit; } cases[] = {{Precision::kFp32, 0x1p-24}, {Precision::kTf32, 0x1p-11},
                                                         {Precision::kFp16, 0x1p-11}, {Precision::kBf16, 0x1p-8},
                                                         {Precision::kFp8, 0x1p-4}};
  for (const auto& c : cases) {
    const double want = 3.0, got = want * (1 + c.unit);
    EXPECT_TRUE(allclose(&got, &want, 1, tolerance_for(c.p)).ok()) << to_string(c.p);
    EXPECT_FALSE(allclose(&got, &want, 1, tolerance_for(Precision::kFp64)).ok()) << to_string(c.p);
  }
}

TEST(Allclose, NanNeverPasses) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tolerance loose{1e9, 1e9};
  const double one = 1;
  EXPECT_FALSE(allclose(&nan, &one, 1, loose).ok());
  EXPECT_FALSE(allclose(&one, &nan, 1, loose).ok());
  EXPECT_FALSE(allclose(&nan, &nan, 1, loose).ok());
  const float fnan = std::nanf("");
  const float fone = 1;
  EXPECT_FALSE(allclose(&fnan, &fone, 1, loose).ok());
}

TEST(Allclose, CountsBadElementsAndTheLargestRelativeError) {
  const std::vector<float> want = {1, 2, 4, 8};
  const std::vector<float> got = {1, 2.5f, 4, 4};
  const Tolerance t = tolerance_for(Precision::kFp32);
  const CloseReport r = allclose(got.data(), want.data(), got.size(), t);
  EXPECT_EQ(r.checked, 4u);
  EXPECT_EQ(r.bad, 2u);
  EXPECT_EQ(r.first_bad, 1u);
  EXPECT_DOUBLE_EQ(r.max_rel_error, 0.5);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.describe(t).find("2 of 4 elements outside"), std::string::npos) << r.describe(t);
}

TEST(Allclose, NothingCheckedIsNotAPass) { EXPECT_FALSE(CloseReport{}.ok()); }

TEST(Allclose, AtolCoversValuesNearZero) {
  const double want = 0, got = 1e-8;
  EXPECT_TRUE(allclose(&got, &want, 1, tolerance_for(Precision::kFp32)).ok());
  EXPECT_FALSE(allclose(&got, &want, 1, tolerance_for(Precision::kFp64)).ok());
}

}  // namespace
}  // namespace gpubench
