#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "harness/model/config_files.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

// Sets GPUBENCH_CONFIG_DIR for one test, or clears it.
class ConfigDir {
 public:
  explicit ConfigDir(const std::string& dir) {
    if (dir.empty()) unsetenv("GPUBENCH_CONFIG_DIR");
    else setenv("GPUBENCH_CONFIG_DIR", dir.c_str(), 1);
  }
  ~ConfigDir() { unsetenv("GPUBENCH_CONFIG_DIR"); }
};

// Changes the working directory for one test.
class WorkingDir {
 public:
  explicit WorkingDir(const std::string& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~WorkingDir() { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

TEST(ConfigFiles, TheSearchOrderIsTheVariableTheInstallationTheTreeBesideTheBinaryTheSourceTree) {
  const ConfigDir env("/site/configs");
  const std::string exe = fs::read_symlink("/proc/self/exe").parent_path().string();
  const std::vector<std::string> expected = {"/site/configs", exe + "/../share/gpubench/configs", exe + "/../configs",
                                             std::string(GPUBENCH_SOURCE_DIR) + "/configs"};
  EXPECT_EQ(config_search_path(), expected);
}

TEST(ConfigFiles, TheEnvironmentFolderComesFirst) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/tolerance.json", "{}");
  const ConfigDir env(dir);
  EXPECT_EQ(find_config_file("tolerance.json"), fs::path(dir + "/tolerance.json").lexically_normal().string());
  EXPECT_EQ(config_search_path().front(), dir);
}

TEST(ConfigFiles, AFileTheEnvironmentFolderLacksComesFromTheShippedConfigs) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/peaks.json", "{}");
  const ConfigDir env(dir);
  const auto found = find_config_file("tolerance.json");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, fs::path(std::string(GPUBENCH_SOURCE_DIR) + "/configs/tolerance.json").lexically_normal().string());
}

TEST(ConfigFiles, TheSourceTreeIsFoundFromAnyWorkingDirectory) {
  const ConfigDir env("");
  const WorkingDir cwd(testing::temp_dir());
  const auto found = find_config_file("tolerance.json");
  ASSERT_TRUE(found);
  EXPECT_TRUE(fs::exists(*found));
}

TEST(ConfigFiles, AMissingFileIsNullopt) { EXPECT_FALSE(find_config_file("no_such_file.json")); }

TEST(ConfigFiles, ACommandLineFileIsTheOneHereElseTheShippedOneOfThatName) {
  const ConfigDir env("");
  const std::string dir = testing::temp_dir();
  const WorkingDir cwd(dir);
  const std::string shipped = *find_config_file("baselines/h200.json");
  EXPECT_EQ(resolve_config_argument("configs/baselines/h200.json"), shipped);
  EXPECT_EQ(resolve_config_argument("baselines/h200.json"), shipped);
  // A file of that name here wins: the path means what it says where it names a file.
  fs::create_directories(dir + "/configs/baselines");
  testing::write_file(dir + "/configs/baselines/h200.json", "{}");
  EXPECT_EQ(resolve_config_argument("configs/baselines/h200.json"), "configs/baselines/h200.json");
  // Neither here nor shipped, or absolute: as given, so that the loader's message names it.
  EXPECT_EQ(resolve_config_argument("configs/baselines/b300.json"), "configs/baselines/b300.json");
  EXPECT_EQ(resolve_config_argument("/nonexistent/tolerance.json"), "/nonexistent/tolerance.json");
  EXPECT_EQ(resolve_config_argument(""), "");
}

}  // namespace
}  // namespace gpubench
