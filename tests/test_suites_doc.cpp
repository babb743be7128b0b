// docs/suites.md's "Every family" table has a row for every registered family, and none for a
// family that no longer exists (a CUDA build: the build without CUDA registers no family).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "harness/core/family.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

std::set<std::string> documented_families() {
  std::istringstream doc(testing::read_file(std::string(GPUBENCH_SOURCE_DIR) + "/docs/suites.md"));
  const std::regex row("^\\| `([a-z0-9_]+/[a-z0-9_]+)` \\|");
  std::set<std::string> names;
  std::smatch match;
  for (std::string line; std::getline(doc, line);)
    if (std::regex_search(line, match, row)) names.insert(match[1]);
  return names;
}

TEST(SuitesDoc, EveryFamilyHasItsRow) {
  const std::set<std::string> documented = documented_families();
  std::set<std::string> registered;
  for (const auto& f : registered_families())
    if (!f->is_hidden()) registered.insert(f->name());
  ASSERT_GT(registered.size(), 30u) << "the benches' families are not linked into this test";
  for (const auto& name : registered)
    EXPECT_TRUE(documented.count(name)) << name << " has no row in docs/suites.md's \"Every family\"";
  for (const auto& name : documented)
    EXPECT_TRUE(registered.count(name)) << "docs/suites.md has a row for " << name << ", which is no family";
}

}  // namespace
}  // namespace gpubench
