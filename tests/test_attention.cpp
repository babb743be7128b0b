// The attention suite's CPU side: flop and HBM-byte accounting, shape validation, the model
// presets (the shipped file, malformed ones: exit 2), tolerances and the stability of names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "benches/attention/attention_case.h"
#include "benches/attention/attention_shape.h"
#include "harness/core/family.h"
#include "harness/system/library.h"
#include "test_support.h"

namespace gpubench::attention {
namespace {

AttentionShape llama(std::int64_t seq, bool causal) {
  AttentionShape shape;
  shape.batch = 4;
  shape.heads = 32;
  shape.seq = seq;
  shape.head_dim = 128;
  shape.causal = causal;
  return shape;
}

std::string preset_error(const nlohmann::json& document) {
  try {
    parse_presets(document, "shapes.json");
  } catch (const PresetError& error) {
    return error.what();
  }
  return "";
}

TEST(AttentionFlops, ForwardIsFourBHSSDHalvedWhenCausalAndBackwardTwoAndAHalfTimes) {
  EXPECT_DOUBLE_EQ(forward_flops(llama(4096, false)), 4.0 * 4 * 32 * 4096.0 * 4096 * 128);
  EXPECT_DOUBLE_EQ(forward_flops(llama(4096, true)), 2.0 * 4 * 32 * 4096.0 * 4096 * 128);
  EXPECT_DOUBLE_EQ(backward_flops(llama(1000, false)), 2.5 * forward_flops(llama(1000, false)));
}

TEST(AttentionBytes, UnfusedCountsEachStepsTensorsAndFusedTheMinimum) {
  AttentionShape shape = llama(1000, false);
  const double qkv = 4.0 * 32 * 1000 * 128 * 2, scores = 4.0 * 32 * 1000 * 1000 * 2;
  const UnfusedTraffic t = unfused_traffic(shape);
  EXPECT_DOUBLE_EQ(t.scores, 2 * qkv + scores);   // Q, K read; S written
  EXPECT_DOUBLE_EQ(t.softmax, 2 * scores);         // S read, P written
  EXPECT_DOUBLE_EQ(t.output, scores + 2 * qkv);   // P, V read; O written
  EXPECT_DOUBLE_EQ(fused_min_bytes(shape), 4 * qkv);
  EXPECT_DOUBLE_EQ(traffic_ratio(shape), t.total() / (4 * qkv));
  EXPECT_DOUBLE_EQ(unfused_scratch_bytes(shape), scores);
  shape.causal = true;  // the softmax reads S(S+1)/2 of the S² scores, still writes all of P
  EXPECT_DOUBLE_EQ(unfused_traffic(shape).softmax, scores * 1001.0 / 2000.0 + scores);
  EXPECT_GT(traffic_ratio(llama(16384, false)), traffic_ratio(llama(1000, false)));
}

TEST(AttentionShapes, UnsupportedHeadDimensionsAreNamed) {
  EXPECT_TRUE(supported_head_dim(64));
  EXPECT_TRUE(supported_head_dim(128));
  AttentionShape shape = llama(4096, false);
  EXPECT_EQ(unsupported_reason(shape), "");
  shape.head_dim = 96;
  EXPECT_EQ(unsupported_reason(shape), "head_dim 96 is not supported (64, 128)");
  EXPECT_DOUBLE_EQ(llama(1, false).softmax_scale(), 1.0 / std::sqrt(128.0));
}

TEST(AttentionShapes, TypesParseAndTolerancesAreTighterForFp16) {
  EXPECT_EQ(parse_element("bf16"), Element::kBf16);
  EXPECT_EQ(parse_element("fp16"), Element::kFp16);
  EXPECT_THROW(parse_element("fp32"), std::invalid_argument);
  EXPECT_LT(tolerance(Element::kFp16).element, tolerance(Element::kBf16).element);
  EXPECT_LT(tolerance(Element::kFp16).row_l2, tolerance(Element::kBf16).row_l2);
  EXPECT_DOUBLE_EQ(tolerance(Element::kFp16).element, 0x1p-8);
}

TEST(AttentionPresets, ShippedFileHasLlamaAndGpt2) {
  const auto presets = load_presets(std::string(GPUBENCH_SOURCE_DIR) + "/configs/attention_shapes.json");
  auto find = [&](const std::string& name) {
    return std::find_if(presets.begin(), presets.end(), [&](const ModelPreset& p) { return p.name == name; });
  };
  ASSERT_NE(find("llama3_8b"), presets.end());
  EXPECT_EQ(find("llama3_8b")->heads, 32);
  EXPECT_EQ(find("llama3_8b")->head_dim, 128);
  ASSERT_NE(find("gpt2"), presets.end());
  EXPECT_EQ(find("gpt2")->head_dim, 64);
}

TEST(AttentionPresets, MalformedEntriesAreRejectedNamingTheEntry) {
  const nlohmann::json valid = {{"name", "m"}, {"heads", 8}, {"head_dim", 64}};
  auto with = [&](const char* field, nlohmann::json value) {
    nlohmann::json entry = valid;
    entry[field] = std::move(value);
    return nlohmann::json{{"models", {entry}}};
  };
  EXPECT_NE(preset_error(with("heads", 0)).find("model 'm': 'heads' must be a positive integer"), std::string::npos);
  EXPECT_NE(preset_error(with("head_dim", 1.5)).find("'head_dim' must be a positive integer"), std::string::npos);
  EXPECT_NE(preset_error(with("layers", 2)).find("unknown field 'layers'"), std::string::npos);
  EXPECT_NE(preset_error(with("name", "Llama-3")).find("'name'"), std::string::npos);
  EXPECT_NE(preset_error({{"models", {valid, valid}}}).find("appears twice"), std::string::npos);
  EXPECT_NE(preset_error(nlohmann::json::object()).find("non-empty 'models'"), std::string::npos);
  EXPECT_EQ(preset_error({{"models", {valid}}}), "");
}

TEST(AttentionPresets, AMalformedPresetFileIsExitTwo) {
  const std::string dir = gpubench::testing::temp_dir();
  gpubench::testing::write_file(dir + "/attention_shapes.json", R"({"models": [{"name": "x", "heads": 4}]})");
  ::setenv("GPUBENCH_CONFIG_DIR", dir.c_str(), 1);
  const auto result = gpubench::testing::run_gpubench("--suite attention");
  ::unsetenv("GPUBENCH_CONFIG_DIR");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("model 'x': missing field 'head_dim'"), std::string::npos) << result.err;
}

TEST(AttentionNames, FamiliesExpandToStableNames) {
  const Family* forward = find_family("attention/forward");
  ASSERT_NE(forward, nullptr);
  const auto instances = forward->expand(ExpandOptions{});
  auto has = [&](const std::vector<Instance>& list, const std::string& name) {
    return std::any_of(list.begin(), list.end(), [&](const Instance& i) { return i.name == name; });
  };
  EXPECT_TRUE(has(instances, "attention/forward/impl:cudnn/type:fp16/model:llama3_8b/batch:4/seq:4096/causal:1/gpu:gpu0"));
  EXPECT_TRUE(has(instances, "attention/forward/impl:unfused/type:bf16/model:gpt2/batch:4/seq:1000/causal:0/gpu:gpu0"));
  EXPECT_EQ(instances.size(), 2u * 2 * 2 * 3 * 2);
  const Family* speedup = find_family("attention/fused_speedup");
  ASSERT_NE(speedup, nullptr);
  EXPECT_TRUE(has(speedup->expand(ExpandOptions{}),
                  "attention/fused_speedup/type:fp16/model:llama3_8b/batch:4/seq:4096/causal:0/gpu:gpu0"));
  ExpandOptions quick;
  quick.quick = true;
  for (const Instance& i : forward->expand(quick)) EXPECT_EQ(i.params.integer("seq"), 4096) << i.name;
}

}  // namespace
}  // namespace gpubench::attention
