// configs/examples/: every example a user is pointed to loads, and each run config expands its
// families into benchmarks (a --config naming a set outside the sweep gets its layers).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "benches/gemm/shapes.h"
#include "harness/core/family.h"
#include "harness/run/config.h"

namespace gpubench {
namespace {

const std::string kExamples = std::string(GPUBENCH_SOURCE_DIR) + "/configs/examples";

TEST(ExampleConfigs, EveryExampleLoadsAndExpands) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    const std::string path = entry.path().string(), name = entry.path().filename().string();
    ++files;
    if (name.rfind("gemm_", 0) == 0) {  // a shapes file (GPUBENCH_GEMM_SHAPES)
      EXPECT_FALSE(gemm::load_shapes(path).entries().empty()) << name;
      continue;
    }
    const RunConfig config = load_config(path);
    ASSERT_FALSE(config.axis_overrides.empty()) << name;
    ExpandOptions options;
    options.axis_overrides = config.axis_overrides;
    options.config = config.axis_documents;
    for (const auto& [family_name, axes] : config.axis_overrides.items()) {
      const Family* family = find_family(family_name);
      ASSERT_NE(family, nullptr) << name << ": " << family_name;
      EXPECT_FALSE(family->expand(options).empty()) << name << ": " << family_name;
    }
  }
  EXPECT_GE(files, 3);
}

TEST(ExampleConfigs, TheConvNetworksExampleRunsEveryLayerOfItsSets) {
  const RunConfig config = load_config(kExamples + "/conv_networks.json");
  ExpandOptions options;
  options.axis_overrides = config.axis_overrides;
  // ResNeXt-50's 24, MobileNetV2's 30 and U-Net's 14 distinct layers, at 2 batches and 2 types.
  EXPECT_EQ(find_family("conv/forward")->expand(options).size(), (24u + 30u + 14u) * 2 * 2);
}

TEST(ExampleConfigs, ModelsOutsideTheAttentionSweepRunOnlyWhereAConfigNamesThem) {
  const Family& forward = *find_family("attention/forward");
  std::set<std::string> swept;
  for (const Instance& i : forward.expand(ExpandOptions{})) swept.insert(i.params.str("model"));
  EXPECT_EQ(swept, (std::set<std::string>{"gpt2", "gpt2_medium", "llama3_8b"}));
  const RunConfig config = load_config(kExamples + "/attention_odd_lengths.json");
  ExpandOptions options;
  options.axis_overrides = config.axis_overrides;
  std::set<std::string> chosen;
  for (const Instance& i : forward.expand(options)) chosen.insert(i.params.str("model"));
  EXPECT_EQ(chosen, (std::set<std::string>{"gpt2", "llama3_8b", "phi3_mini", "gemma_7b"}));
}

}  // namespace
}  // namespace gpubench
