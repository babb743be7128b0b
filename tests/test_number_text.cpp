// significant_text: the digits a note quotes, and the exact text a double crosses processes in.
#include <gtest/gtest.h>

#include <string>

#include "harness/model/number_text.h"

namespace gpubench {
namespace {

TEST(NumberText, FourDigitsAsANoteQuotesThem) {
  EXPECT_EQ(significant_text(4823.14, 4), "4823");
  EXPECT_EQ(significant_text(0.431249, 4), "0.4312");
  EXPECT_EQ(significant_text(25, 4), "25");
  EXPECT_EQ(significant_text(123456, 4), "1.235e+05");
}

TEST(NumberText, SeventeenDigitsReadBackExactly) {
  for (const double value : {0.1, 1.0 / 3, 2.5e-7, 123456.789012345, 1e300}) {
    SCOPED_TRACE(value);
    EXPECT_EQ(std::stod(significant_text(value, 17)), value);
  }
}

}  // namespace
}  // namespace gpubench
