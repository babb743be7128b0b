#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "harness/report/config_files.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

TEST(ConfigFiles, TheEnvironmentFolderComesFirst) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/tolerance.json", "{}");
  setenv("GPUBENCH_CONFIG_DIR", dir.c_str(), 1);
  EXPECT_EQ(find_config_file("tolerance.json"), std::filesystem::path(dir + "/tolerance.json").lexically_normal().string());
  EXPECT_EQ(config_search_path().front(), dir);
  unsetenv("GPUBENCH_CONFIG_DIR");
}

TEST(ConfigFiles, TheSourceTreeIsFoundFromAnyWorkingDirectory) {
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(testing::temp_dir());
  const auto found = find_config_file("tolerance.json");
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(found);
  EXPECT_TRUE(std::filesystem::exists(*found));
}

TEST(ConfigFiles, AMissingFileIsNullopt) { EXPECT_FALSE(find_config_file("no_such_file.json")); }

}  // namespace
}  // namespace gpubench
