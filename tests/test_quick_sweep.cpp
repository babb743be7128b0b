// --quick is the pre-job smoke run: one configuration of every family (all suites in well
// under 30 s on one H200), and none left out.
#include <gtest/gtest.h>

#include <string>

#include "harness/core/family.h"

namespace gpubench {
namespace {

TEST(QuickSweep, EveryFamilyRunsOneConfigurationOnOneGpu) {
  ExpandOptions quick;
  quick.quick = true;
  std::size_t families = 0;
  for (const auto& f : registered_families()) {
    if (f->is_hidden()) continue;
    ++families;
    // A family whose library or second GPU is missing is one skipped entry; else one benchmark.
    EXPECT_EQ(f->expand(quick).size(), 1u) << f->name();
  }
  EXPECT_GT(families, 30u) << "the benches' families are not linked into this test";
}

}  // namespace
}  // namespace gpubench
