// `gpubench list`: each family with its axes as they expand, hidden families only when asked
// for, computed axes computed, and a --config file's overrides and axis documents applied.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cli/run_command.h"
#include "harness/core/family.h"
#include "harness/model/exit_codes.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using gpubench::testing::CommandResult;
using gpubench::testing::describe;
using gpubench::testing::run_gpubench;
using gpubench::testing::temp_dir;
using gpubench::testing::write_file;

const Family& listed_family = family("unittest_list/layers")
                                  .describe("layers from the config")
                                  .axis_computed("layer",
                                                 [](const ExpandContext& e) {
                                                   std::vector<std::string> names;
                                                   for (const auto& layer : e.config.value("layers", nlohmann::json::array()))
                                                     names.push_back(layer.get<std::string>());
                                                   return names;
                                                 })
                                  .axis_int("n", {1, 2})
                                  .cpu_only()
                                  .hidden()
                                  .run([](State&) {});

// The block `list` prints for `name`: from its name line to the blank line after it.
std::string block_of(const std::string& listing, const std::string& name) {
  const std::size_t at = listing.find(name + "\n");
  if (at == std::string::npos) return "";
  return listing.substr(at, listing.find("\n\n", at) - at);
}

TEST(List, ShowsFamiliesWithTheirAxes) {
  const CommandResult r = run_gpubench("list");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::size_t at = r.out.find("memory/stream\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string block = r.out.substr(at, r.out.find("\n\n", at) - at);
  for (const char* text : {"BabelStream", "op", "copy, scale, add, triad, dot", "type", "fp32, fp64", "array_bytes",
                           "1048576", "4294967296", "gpu", "<each selected GPU>"})
    EXPECT_NE(block.find(text), std::string::npos) << "'" << text << "' not in:\n" << block;
  // Axes in declaration order.
  EXPECT_LT(block.find("  op "), block.find("  type "));
  EXPECT_LT(block.find("  type "), block.find("  array_bytes "));
  EXPECT_LT(block.find("  array_bytes "), block.find("  gpu "));
  // Hidden families only when their suite is asked for.
  EXPECT_EQ(r.out.find("selftest/"), std::string::npos) << r.out;
  const CommandResult selftest = run_gpubench("list --suite selftest");
  EXPECT_EQ(selftest.exit_code, 0) << describe(selftest);
  EXPECT_NE(selftest.out.find("selftest/cpu_faults"), std::string::npos);
  EXPECT_NE(selftest.out.find("none, hang, crash, none_after"), std::string::npos) << selftest.out;
  EXPECT_EQ(selftest.out.find("memory/stream"), std::string::npos);
}

TEST(List, JsonListsEachFamilyWithItsAxes) {
  const CommandResult r = run_gpubench("list --suite selftest --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto families = nlohmann::json::parse(r.out);
  ASSERT_TRUE(families.is_array() && !families.empty()) << r.out;
  for (const auto& family : families) {
    EXPECT_EQ(family.at("suite"), "selftest") << family;
    EXPECT_FALSE(family.at("name").get<std::string>().empty()) << family;
    EXPECT_TRUE(family.at("axes").is_array()) << family;
  }
}

TEST(Info, JsonIsTheRunContextsGpubenchBlock) {
  const CommandResult r = run_gpubench("info --format json");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err;  // 3: no GPU, the context still printed
  const auto info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info.at("schema"), "gpubench/1") << r.out;
  EXPECT_TRUE(info.at("gpus").is_array()) << r.out;
  EXPECT_TRUE(info.contains("driver_version")) << r.out;
}

TEST(List, UnknownSuite) {
  const CommandResult r = run_gpubench("list --suite hbm");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(r.out.empty()) << describe(r);
}

TEST(List, ComputedAxesSayHowTheyAreComputed) {
  const std::string block = block_of(family_listing({"unittest_list"}, ""), "unittest_list/layers");
  EXPECT_NE(block.find("layer"), std::string::npos) << block;
  EXPECT_NE(block.find("<computed at expansion: none without the machine or --config axes>"), std::string::npos)
      << block;
}

TEST(List, ConfigAxisDocumentsAndOverridesApply) {
  const std::string path = temp_dir() + "/layers.json";
  write_file(path, R"({"axes": {"layers": ["conv1", "conv2"]}, "families": {"unittest_list/layers": {"n": [8]}}})");
  const std::string block = block_of(family_listing({"unittest_list"}, path), "unittest_list/layers");
  EXPECT_NE(block.find("conv1, conv2  (computed at expansion)"), std::string::npos) << block;
  EXPECT_NE(block.find("  n "), std::string::npos) << block;
  EXPECT_NE(block.find("  n      8"), std::string::npos) << block;
  EXPECT_EQ(block.find("1, 2"), std::string::npos) << "the override did not replace the sweep:\n" << block;
}

TEST(List, ConfigThroughTheCommandLine) {
  const std::string path = temp_dir() + "/faults.json";
  write_file(path, R"({"families": {"selftest/cpu_faults": {"fault": ["crash"]}}})");
  const CommandResult r = run_gpubench("list --suite selftest --config " + path);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string block = block_of(r.out, "selftest/cpu_faults");
  EXPECT_NE(block.find("fault  crash"), std::string::npos) << block;
  EXPECT_EQ(block.find("none_after"), std::string::npos) << block;
}

}  // namespace
}  // namespace gpubench
