// The attention suite's CPU side: flop and HBM-byte accounting, shape validation, the model
// presets (the shipped file, malformed ones: exit 2), tolerances and the stability of names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "benches/attention/attention_case.h"
#include "benches/attention/attention_shape.h"
#include "benches/attention/training_case.h"
#include "harness/core/family.h"
#include "harness/core/state.h"
#include "kernels/attention_backward_reference.cuh"
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

TEST(AttentionFlops, ATrainingStepIsThreeAndAHalfForwards) {
  for (const bool causal : {false, true}) {
    const AttentionShape shape = llama(4096, causal);
    EXPECT_DOUBLE_EQ(forward_backward_flops(shape), 3.5 * forward_flops(shape));
  }
  EXPECT_DOUBLE_EQ(forward_backward_flops(llama(4096, true)), 0.5 * forward_backward_flops(llama(4096, false)));
}

TEST(AttentionBytes, BackwardReadsFiveTensorsAndTheStatisticsAndWritesThreeGradients) {
  const AttentionShape shape = llama(1000, true);  // the minimum does not depend on the mask
  const double qkv = 4.0 * 32 * 1000 * 128 * 2, stats = 4.0 * 32 * 1000 * 4;
  EXPECT_DOUBLE_EQ(stats_bytes(shape), stats);
  EXPECT_DOUBLE_EQ(backward_min_bytes(shape), 5 * qkv + stats + 3 * qkv);
  // Forward: Q, K, V read, O and the statistics written; then the backward.
  EXPECT_DOUBLE_EQ(forward_backward_min_bytes(shape), 4 * qkv + stats + 8 * qkv + stats);
}

TEST(AttentionGradients, TolerancesAreStatedPerTypeAndLooserThanTheForwards) {
  EXPECT_DOUBLE_EQ(gradient_tolerance(Element::kFp16).element, 0x1p-7);
  EXPECT_DOUBLE_EQ(gradient_tolerance(Element::kBf16).element, 0x1p-4);
  EXPECT_DOUBLE_EQ(gradient_tolerance(Element::kFp16).row_l2, 1e-2);
  EXPECT_DOUBLE_EQ(gradient_tolerance(Element::kBf16).row_l2, 5e-2);
  for (const Element e : {Element::kFp16, Element::kBf16})
    EXPECT_GT(gradient_tolerance(e).element, tolerance(e).element);
}

TEST(AttentionGradients, ShortRowsAreCheckedElementByElementOnly) {
  const kernels::AttentionTolerance t{0x1p-7, 1e-2};
  EXPECT_EQ(kernels::row_tolerance(t, kernels::kMinTermsForRowL2).row_l2, 1e-2);
  EXPECT_EQ(kernels::row_tolerance(t, 4096).row_l2, 1e-2);
  EXPECT_TRUE(std::isinf(kernels::row_tolerance(t, kernels::kMinTermsForRowL2 - 1).row_l2));
  EXPECT_EQ(kernels::row_tolerance(t, 1).element, t.element);
}

TEST(AttentionGradients, RowComparisonRejectsNanAndAWrongScale) {
  // Triples (got, reference, magnitude) of a two-element row.
  const kernels::AttentionTolerance t{0x1p-7, 1e-2};
  double row_l2 = 0;
  std::string why;
  const float close[] = {1.001f, 1.0f, 4.0f, -2.0f, -2.0f, 4.0f};
  EXPECT_TRUE(kernels::row_passes(close, 2, t, row_l2, why)) << why;
  const float nan[] = {NAN, 1.0f, 4.0f, -2.0f, -2.0f, 4.0f};
  EXPECT_FALSE(kernels::row_passes(nan, 2, t, row_l2, why));
  EXPECT_NE(why.find("d 0"), std::string::npos) << why;
  // Within each element's bound (8 x 2^-7 = 0.06) but 2 % off as a row: a scale error.
  const float scaled[] = {1.02f, 1.0f, 8.0f, -2.04f, -2.0f, 8.0f};
  EXPECT_FALSE(kernels::row_passes(scaled, 2, t, row_l2, why));
  EXPECT_NE(why.find("relative L2 error"), std::string::npos) << why;
  EXPECT_TRUE(kernels::row_passes(scaled, 2, kernels::row_tolerance(t, 2), row_l2, why)) << why;
}

TEST(AttentionPeak, TheDatasheetRateOfTheTypeIsThePeakOfTflops) {
  static const Family& fake = family("unittest/attention_peak").axis_str("op", {"x"}).hidden().cpu_only().run(
      [](State&) {});
  const Instance instance = fake.expand(ExpandOptions{}).at(0);
  RunSettings settings;
  settings.warmup_s = 0;
  Context context;
  context.gpus.resize(1);
  context.gpus[0].name = "NVIDIA H200";
  context.gpus[0].tflops_peak = {{"fp16", 989.5}, {"bf16", 989.5}};
  context.gpus[0].tflops_peak_source = "NVIDIA H200 datasheet";
  auto measured = [&](Element element) {
    State s(instance, settings, context);
    s.count_flops(1e12);
    s.set_primary_metric("tflops");
    set_tflops_peak(s, element);
    s.measure_manual([] { return 2e-3; });  // 500 TFLOP/s
    s.verify(true, "ran");
    return s.finish();
  };
  const BenchResult r = measured(Element::kBf16);
  EXPECT_EQ(r.status, Status::kOk) << r.error;
  ASSERT_TRUE(r.peak.has_value());
  EXPECT_DOUBLE_EQ(*r.peak, 989.5);
  EXPECT_NEAR(*r.pct_of_peak(), 100 * 500 / 989.5, 1e-6);
  EXPECT_EQ(r.peak_source, "NVIDIA H200 datasheet: bf16");
  context.gpus[0].tflops_peak.clear();
  context.gpus[0].tflops_peak_source = "'NVIDIA X' is not in configs/peaks.json";
  const BenchResult none = measured(Element::kFp16);
  EXPECT_FALSE(none.peak.has_value());
  EXPECT_EQ(none.peak_source, "'NVIDIA X' is not in configs/peaks.json");
}

TEST(AttentionShapes, UnsupportedHeadDimensionsAreNamed) {
  for (const std::int64_t d : {64, 80, 96, 128, 256}) EXPECT_TRUE(supported_head_dim(d)) << d;
  for (const std::int64_t d : {0, 60, 264, 512}) EXPECT_FALSE(supported_head_dim(d)) << d;
  AttentionShape shape = llama(4096, false);
  EXPECT_EQ(unsupported_reason(shape), "");
  shape.head_dim = 100;
  EXPECT_EQ(unsupported_reason(shape), "head_dim 100 is not supported (multiples of 8 up to 256)");
  EXPECT_DOUBLE_EQ(llama(1, false).softmax_scale(), 1.0 / std::sqrt(128.0));
}

TEST(AttentionShapes, CudnnsSdpaOperationIsBuiltForUnmaskedInferenceOnCudnn9131AndLater) {
  const AttentionShape open = llama(577, false), causal = llama(577, true);
  EXPECT_EQ(sdpa_form_unsupported(SdpaForm::kUnified, SdpaMode::kInference, 91301, open), "");
  EXPECT_EQ(sdpa_form_unsupported(SdpaForm::kUnified, SdpaMode::kInference, 91900, open), "");
  EXPECT_NE(sdpa_form_unsupported(SdpaForm::kUnified, SdpaMode::kInference, 91300, open).find("9.13.1"),
            std::string::npos);
  EXPECT_NE(sdpa_form_unsupported(SdpaForm::kUnified, SdpaMode::kInference, 91900, causal).find("impl:cudnn"),
            std::string::npos);
  EXPECT_NE(sdpa_form_unsupported(SdpaForm::kUnified, SdpaMode::kTraining, 91900, open), "");
  for (const AttentionShape& shape : {open, causal})
    for (const SdpaMode mode : {SdpaMode::kInference, SdpaMode::kTraining})
      EXPECT_EQ(sdpa_form_unsupported(SdpaForm::kDecomposed, mode, 90000, shape), "");
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
  // impl x type x model x (batch, seq): 4 x 1000, 4 x 4096, 4 x 16384 and 16 x 2048 x causal.
  EXPECT_EQ(instances.size(), 3u * 2 * 3 * 4 * 2);
  const Family* speedup = find_family("attention/fused_speedup");
  ASSERT_NE(speedup, nullptr);
  EXPECT_TRUE(has(speedup->expand(ExpandOptions{}),
                  "attention/fused_speedup/type:fp16/model:llama3_8b/batch:4/seq:4096/causal:0/gpu:gpu0"));
  ExpandOptions quick;
  quick.quick = true;
  for (const Instance& i : forward->expand(quick)) EXPECT_EQ(i.params.integer("seq"), 4096) << i.name;
}

TEST(AttentionNames, ForwardBackwardPairsWithTheTorchPeersLine) {
  const Family* training = find_family("attention/forward_backward");
  ASSERT_NE(training, nullptr);
  const auto instances = training->expand(ExpandOptions{});
  // scripts/peers/torch_attention.py's forward_backward name for --model llama3_8b --backward fp16:0.
  EXPECT_TRUE(std::any_of(instances.begin(), instances.end(), [](const Instance& i) {
    return i.name == "attention/forward_backward/impl:cudnn/type:fp16/model:llama3_8b/batch:4/seq:4096/causal:0/gpu:gpu0";
  }));
  EXPECT_TRUE(std::any_of(instances.begin(), instances.end(), [](const Instance& i) {
    return i.name == "attention/forward_backward/impl:cudnn/type:bf16/model:gpt2/batch:4/seq:1000/causal:1/gpu:gpu0";
  }));
  EXPECT_EQ(instances.size(), 1u * 2 * 3 * 2 * 2);  // impl x type x model (3 presets) x seq x causal
}

}  // namespace
}  // namespace gpubench::attention
