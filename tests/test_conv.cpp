// The conv suite's CPU side: layer-set parsing and validation, output-shape and flop
// arithmetic of every pass, images/s, the plausibility bound of fast algorithms, the engine
// rule per precision, the screening's selection and the stability of benchmark names.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <fstream>
#include <limits>
#include <map>

#include "benches/conv/conv_layer.h"
#include "benches/conv/engine_choice.h"
#include "harness/core/cudnn/engine_plans.h"
#include "benches/conv/layer_sets.h"
#include "harness/core/family.h"
#include "harness/run/config.h"
#include "harness/system/library.h"

namespace gpubench::conv {
namespace {

nlohmann::json one_layer(nlohmann::json layer) { return {{"layers", nlohmann::json::array({layer})}}; }

const nlohmann::json kValid = {{"name", "a_3x3"}, {"c", 64}, {"k", 64}, {"h", 56}, {"w", 56},
                               {"r", 3},         {"s", 3},  {"pad", 1}};

std::string parse_error(const nlohmann::json& document) {
  try {
    parse_layer_set(document, "set", "set.json");
  } catch (const LayerSetError& error) {
    return error.what();
  }
  return "";
}

TEST(ConvLayer, OutputExtentFollowsTheFormula) {
  EXPECT_EQ(output_extent(224, 7, 2, 3, 1), 112);  // ResNet-50 conv1
  EXPECT_EQ(output_extent(56, 3, 1, 1, 1), 56);
  EXPECT_EQ(output_extent(56, 3, 2, 1, 1), 28);
  EXPECT_EQ(output_extent(56, 1, 2, 0, 1), 28);
  EXPECT_EQ(output_extent(56, 3, 1, 2, 2), 56);  // dilation 2 needs pad 2 to keep the size
  EXPECT_EQ(output_extent(7, 3, 1, 0, 1), 5);
  EXPECT_LT(output_extent(2, 5, 1, 0, 1), 1);
}

TEST(ConvLayer, FlopsCountEveryMultiplyAddTwiceAndDivideByGroups) {
  const LayerSet set = parse_layer_set(one_layer(kValid), "set", "set.json");
  EXPECT_DOUBLE_EQ(set.layers[0].flops(128), 2.0 * 128 * 64 * 64 * 3 * 3 * 56 * 56);
  nlohmann::json depthwise = kValid;
  depthwise["groups"] = 64;
  const LayerSet dw = parse_layer_set(one_layer(depthwise), "set", "set.json");
  EXPECT_DOUBLE_EQ(dw.layers[0].flops(128), 2.0 * 128 * 64 * 1 * 3 * 3 * 56 * 56);
}

TEST(ConvLayer, ThreeDimensionalLayersUseDepth) {
  nlohmann::json layer = kValid;
  layer["d"] = 8;
  layer["t"] = 3;
  const LayerSet set = parse_layer_set(one_layer(layer), "set", "set.json");
  EXPECT_EQ(set.layers[0].spatial_dims, 3);
  EXPECT_EQ(set.layers[0].output(), (std::array<std::int64_t, 3>{8, 56, 56}));
  EXPECT_DOUBLE_EQ(set.layers[0].flops(2), 2.0 * 2 * 64 * 64 * 27 * 8 * 56 * 56);
  layer.erase("t");
  EXPECT_NE(parse_error(one_layer(layer)).find("needs both 'd' and 't'"), std::string::npos);
}

TEST(ConvLayer, TwoDimensionalLayersDoNotPadDepth) {
  const LayerSet set = parse_layer_set(one_layer(kValid), "set", "set.json");
  EXPECT_EQ(set.layers[0].pad[0], 0);
  EXPECT_EQ(set.layers[0].output()[0], 1);
}

TEST(LayerSetParsing, BadLayersAreRejectedNamingTheLayer) {
  nlohmann::json missing = kValid;
  missing.erase("k");
  EXPECT_NE(parse_error(one_layer(missing)).find("layer 'a_3x3': missing field 'k'"), std::string::npos);
  nlohmann::json impossible = kValid;
  impossible["pad"] = 0;
  impossible["h"] = 2;
  EXPECT_NE(parse_error(one_layer(impossible)).find("layer 'a_3x3': the filter does not fit"), std::string::npos);
  nlohmann::json groups = kValid;
  groups["groups"] = 3;
  EXPECT_NE(parse_error(one_layer(groups)).find("multiples of groups"), std::string::npos);
  nlohmann::json typo = kValid;
  typo["strides"] = 2;
  EXPECT_NE(parse_error(one_layer(typo)).find("unknown field 'strides'"), std::string::npos);
  nlohmann::json negative = kValid;
  negative["c"] = -4;
  EXPECT_NE(parse_error(one_layer(negative)).find("'c' must be at least 1"), std::string::npos);
  nlohmann::json fractional = kValid;
  fractional["count"] = 1.5;
  EXPECT_NE(parse_error(one_layer(fractional)).find("'count' must be an integer"), std::string::npos);
  nlohmann::json bad_name = kValid;
  bad_name["name"] = "a/b";
  EXPECT_NE(parse_error(one_layer(bad_name)).find("'name'"), std::string::npos);
  EXPECT_NE(parse_error({{"layers", {kValid, kValid}}}).find("appears twice"), std::string::npos);
  EXPECT_NE(parse_error(nlohmann::json::object()).find("non-empty 'layers'"), std::string::npos);
}

TEST(LayerSetParsing, DefaultsAndOptionalFields) {
  nlohmann::json layer = kValid;
  layer["stride"] = 2;
  layer["count"] = 3;
  layer["input_layer"] = true;
  nlohmann::json document = one_layer(layer);
  document["network"] = true;
  const LayerSet set = parse_layer_set(document, "mine", "mine.json");
  EXPECT_TRUE(set.network);
  EXPECT_EQ(set.layers[0].stride[1], 2);
  EXPECT_EQ(set.layers[0].dilation[2], 1);
  EXPECT_EQ(set.total_uses(), 3);
  EXPECT_EQ(training_passes(set.layers[0]).size(), 2u);  // no data gradient for the input layer
}

TEST(LayerSetFiles, ShippedSetsLoadAndResNet50HasItsKnownShape) {
  const auto sets = load_layer_sets(std::string(GPUBENCH_SOURCE_DIR) + "/configs/conv_layers");
  const LayerSet* resnet = nullptr;
  for (const auto& set : sets)
    if (set.name == "resnet50") resnet = &set;
  ASSERT_NE(resnet, nullptr);
  EXPECT_TRUE(resnet->network);
  EXPECT_EQ(resnet->layers.size(), 23u);
  EXPECT_EQ(resnet->total_uses(), 53);
  // ResNet-50's convolutions: about 4.09 GMAC per 224x224 image (the fc adds 2 M).
  const double gflops_per_image = network_flops(*resnet, 1, false) / 1e9;
  EXPECT_NEAR(gflops_per_image, 8.18, 0.05);
  // A training step: three passes per layer but two for conv1.
  EXPECT_DOUBLE_EQ(network_flops(*resnet, 1, true),
                   3 * network_flops(*resnet, 1, false) - resnet->find("conv1_7x7_s2")->flops(1));
}

// Grouped and depthwise networks ship outside the default sweep: a --config names the net and
// gets its layers; the sweep's nets and layers stay as they were.
TEST(LayerSetFiles, SetsOutsideTheSweepAreChosenByConfigWithTheirLayers) {
  const auto sets = load_layer_sets(std::string(GPUBENCH_SOURCE_DIR) + "/configs/conv_layers");
  std::map<std::string, const LayerSet*> by_name;
  for (const auto& set : sets) by_name[set.name] = &set;
  for (const char* name : {"resnext50", "mobilenetv2", "unet"}) {
    ASSERT_TRUE(by_name.count(name)) << name;
    EXPECT_FALSE(by_name[name]->sweep) << name;
  }
  EXPECT_EQ(by_name["resnext50"]->total_uses(), 53);
  EXPECT_EQ(by_name["mobilenetv2"]->total_uses(), 52);
  EXPECT_EQ(by_name["resnext50"]->find("res4_3x3_512_g32")->groups, 32);
  EXPECT_EQ(by_name["mobilenetv2"]->find("b4_dw_384")->groups, 384);
  EXPECT_EQ(net_axis_values(sets, false), (std::vector<std::string>{"extra", "resnet50"}));
  EXPECT_EQ(net_axis_values(sets, false, false), (std::vector<std::string>{"mobilenetv2", "resnext50", "unet"}));

  const Family* forward = find_family("conv/forward");
  ASSERT_NE(forward, nullptr);
  ExpandOptions options;
  options.axis_overrides = {{"conv/forward", {{"net", {"mobilenetv2"}}, {"n", {32}}, {"type", {"fp16"}}}}};
  const std::vector<Instance> instances = forward->expand(options);
  EXPECT_EQ(instances.size(), by_name["mobilenetv2"]->layers.size());
  for (const Instance& i : instances) EXPECT_NE(by_name["mobilenetv2"]->find(i.params.str("layer")), nullptr) << i.name;
  options.axis_overrides = nlohmann::json::object();
  std::size_t swept = 0;
  for (const Instance& i : forward->expand(options)) swept += i.params.str("type") == "fp16";
  EXPECT_EQ(swept, by_name["extra"]->layers.size() + by_name["resnet50"]->layers.size());
}

TEST(LayerSetFiles, ABadFileNamesItsPath) {
  const std::string dir = testing::TempDir() + "conv_layers_bad";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/broken.json") << R"({"layers": [{"name": "x", "c": 3, "h": 8, "w": 8, "r": 3, "s": 3}]})";
  try {
    load_layer_sets(dir);
    FAIL() << "expected a LayerSetError";
  } catch (const LayerSetError& error) {
    EXPECT_NE(std::string(error.what()).find("broken.json"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("layer 'x': missing field 'k'"), std::string::npos);
  }
}

TEST(ConvMetrics, ImagesPerSecond) {
  EXPECT_DOUBLE_EQ(images_per_s(128, 0.05), 2560.0);
  EXPECT_DOUBLE_EQ(images_per_s(128, 0.0), 0.0);
  // The network's images/s and its TFLOP/s are one figure: n / t and flops(n) / t.
  const auto sets = load_layer_sets(std::string(GPUBENCH_SOURCE_DIR) + "/configs/conv_layers");
  const LayerSet& resnet = *std::find_if(sets.begin(), sets.end(), [](const LayerSet& s) { return s.network; });
  const double seconds = 0.01;
  EXPECT_NEAR(images_per_s(128, seconds) * network_flops(resnet, 1, true),
              network_flops(resnet, 128, true) / seconds, 1e-6 * network_flops(resnet, 128, true) / seconds);
}

TEST(ConvBackward, EachPassWritesItsTensorAndCountsTheForwardFlops) {
  nlohmann::json strided = kValid;
  strided["stride"] = 2;
  strided["k"] = 128;
  const ConvLayer layer = parse_layer_set(one_layer(strided), "set", "set.json").layers[0];
  EXPECT_EQ(written_shape(layer, 32, ConvPass::kForward), (std::array<std::int64_t, 5>{32, 128, 1, 28, 28}));
  EXPECT_EQ(written_shape(layer, 32, ConvPass::kBackwardData), (std::array<std::int64_t, 5>{32, 64, 1, 56, 56}));
  EXPECT_EQ(written_shape(layer, 32, ConvPass::kBackwardFilter), (std::array<std::int64_t, 5>{128, 64, 1, 3, 3}));
  // One flop count for every pass: dx and dw each do the forward's multiply-adds.
  EXPECT_DOUBLE_EQ(layer.flops(32), 2.0 * 32 * 128 * 64 * 9 * 28 * 28);
  nlohmann::json depthwise = kValid;
  depthwise["groups"] = 64;
  const ConvLayer dw = parse_layer_set(one_layer(depthwise), "set", "set.json").layers[0];
  EXPECT_EQ(written_shape(dw, 1, ConvPass::kBackwardFilter), (std::array<std::int64_t, 5>{64, 1, 1, 3, 3}));
}

TEST(ConvPeak, FastAlgorithmsAreBoundedByTheFilterVolume) {
  const ConvLayer three = parse_layer_set(one_layer(kValid), "set", "set.json").layers[0];
  EXPECT_DOUBLE_EQ(fast_algorithm_bound(three), 9.0);
  nlohmann::json pointwise = kValid;
  pointwise["r"] = 1;
  pointwise["s"] = 1;
  pointwise["pad"] = 0;
  const ConvLayer one = parse_layer_set(one_layer(pointwise), "set", "set.json").layers[0];
  EXPECT_DOUBLE_EQ(fast_algorithm_bound(one), 1.0);  // a 1x1 convolution is a GEMM: no shortcut
  // A network: its flops over the least work, each layer's flops / filter volume.
  LayerSet set;
  set.layers = {three, one};
  set.layers[1].count = 2;
  const double f3 = three.flops(1), f1 = one.flops(1);
  EXPECT_DOUBLE_EQ(fast_algorithm_bound(set, false), (f3 + 2 * f1) / (f3 / 9 + 2 * f1));
  EXPECT_DOUBLE_EQ(fast_algorithm_bound(set, true), 3 * (f3 + 2 * f1) / (3 * (f3 / 9 + 2 * f1)));
  EXPECT_GT(fast_algorithm_bound(set, false), 1.0);
  EXPECT_LT(fast_algorithm_bound(set, false), 9.0);
}

TEST(ConvAxes, AxisValuesPairNetsWithTheirLayers) {
  const auto sets = load_layer_sets(std::string(GPUBENCH_SOURCE_DIR) + "/configs/conv_layers");
  EXPECT_EQ(net_axis_values(sets, true), std::vector<std::string>{"resnet50"});
  const auto three_by_three = layer_axis_values(sets, true);
  EXPECT_NE(std::find(three_by_three.begin(), three_by_three.end(), "res2_3x3_64"), three_by_three.end());
  EXPECT_EQ(std::find(three_by_three.begin(), three_by_three.end(), "res2_1x1_64to64"), three_by_three.end());
  EXPECT_TRUE(has_layer(sets, "resnet50", "res2_3x3_64"));
  EXPECT_FALSE(has_layer(sets, "extra", "res2_3x3_64"));
}

TEST(ConvNames, FamiliesExpandToStableNames) {
  if (!library_unavailable_reason("cudnn").empty()) GTEST_SKIP() << "cuDNN not loadable: the families expand to a skip";
  const Family* forward = find_family("conv/forward");
  ASSERT_NE(forward, nullptr);
  ExpandOptions options;
  const auto instances = forward->expand(options);
  auto has = [&](const std::string& name) {
    return std::any_of(instances.begin(), instances.end(), [&](const Instance& i) { return i.name == name; });
  };
  EXPECT_TRUE(has("conv/forward/net:resnet50/layer:res2_3x3_64/n:128/type:fp16/layout:nhwc/algo:best/"
                  "workspace_mib:4096/gpu:gpu0"));
  EXPECT_FALSE(has("conv/forward/net:extra/layer:res2_3x3_64/n:128/type:fp16/layout:nhwc/algo:best/"
                   "workspace_mib:4096/gpu:gpu0"));
  const Family* network = find_family("conv/network");
  ASSERT_NE(network, nullptr);
  const auto totals = network->expand(options);
  ASSERT_FALSE(totals.empty());
  EXPECT_EQ(totals.front().name, "conv/network/net:resnet50/n:128/type:fp32/layout:nhwc/pass:fwd/workspace_mib:4096/gpu:gpu0");
}

TEST(ConvNames, TheHeuristicsPickAndNchwAreSelectableByConfig) {
  if (!library_unavailable_reason("cudnn").empty()) GTEST_SKIP() << "cuDNN not loadable: the families expand to a skip";
  const RunConfig config = parse_config(
      {{"families", {{"conv/forward", {{"layer", {"res2_3x3_64"}}, {"algo", {"heuristic"}}, {"layout", {"nchw"}}}},
                     {"conv/network", {{"layout", {"nchw"}}}}}}},
      "conv.json");
  ExpandOptions options;
  options.axis_overrides = config.axis_overrides;
  const auto instances = find_family("conv/forward")->expand(options);
  ASSERT_FALSE(instances.empty());
  for (const Instance& i : instances) {
    EXPECT_EQ(i.params.str("algo"), "heuristic") << i.name;
    EXPECT_EQ(i.params.str("layout"), "nchw") << i.name;
  }
  EXPECT_EQ(find_family("conv/network")->expand(options).front().params.str("layout"), "nchw");
  // The sweep itself stays as it was.
  for (const Instance& i : find_family("conv/forward")->expand(ExpandOptions{}))
    EXPECT_EQ(i.params.str("algo") + "/" + i.params.str("layout"), "best/nhwc") << i.name;
}

TEST(EngineRule, TorchsRuleStrictFp32ExcludesTensorCoresAndNoTypeDownConverts) {
  const std::vector<cudnnBackendNumericalNote_t> tensor_core{CUDNN_NUMERICAL_NOTE_TENSOR_CORE};
  const std::vector<cudnnBackendNumericalNote_t> reduced{CUDNN_NUMERICAL_NOTE_TENSOR_CORE,
                                                         CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION};
  const std::vector<cudnnBackendNumericalNote_t> down{CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS};
  const std::vector<cudnnBackendNumericalNote_t> fast{CUDNN_NUMERICAL_NOTE_WINOGRAD, CUDNN_NUMERICAL_NOTE_FFT,
                                                      CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC};
  EXPECT_FALSE(engine_allowed(Precision::kFp32, tensor_core));
  EXPECT_TRUE(engine_allowed(Precision::kFp32, {}));
  EXPECT_TRUE(engine_allowed(Precision::kFp32, fast));  // Winograd, FFT and atomics stay FP32
  EXPECT_TRUE(engine_allowed(Precision::kTf32, tensor_core));
  for (Precision p : {Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16})
    EXPECT_FALSE(engine_allowed(p, down)) << precision_name(p);
  EXPECT_TRUE(engine_allowed(Precision::kFp16, tensor_core));
  EXPECT_TRUE(engine_allowed(Precision::kFp16, reduced));  // as torch admits them
  EXPECT_TRUE(engine_allowed(Precision::kBf16, reduced));
}

TEST(PlanScreening, TheFastestPlansGoOnInTheirOrderWithTheHeuristicsPick) {
  const std::vector<double> seconds{5e-3, 1e-3, 9e-3, 2e-3, 1e-3, 0.3};
  EXPECT_EQ(fastest_plans(seconds, 2, std::nullopt), (std::vector<std::size_t>{1, 4}));
  EXPECT_EQ(fastest_plans(seconds, 3, 0), (std::vector<std::size_t>{0, 1, 3, 4}));
  EXPECT_EQ(fastest_plans(seconds, 2, 4), (std::vector<std::size_t>{1, 4}));  // already among them
  EXPECT_EQ(fastest_plans(seconds, 1, std::nullopt), (std::vector<std::size_t>{1}));  // ties: the first
  EXPECT_EQ(fastest_plans(seconds, 10, std::nullopt).size(), seconds.size());
  EXPECT_TRUE(fastest_plans({}, 4, 0).empty());
  const double failed = std::numeric_limits<double>::infinity();
  EXPECT_EQ(fastest_plans({failed, 2e-3, failed}, 3, 0), (std::vector<std::size_t>{1}));
}

TEST(EngineRule, ChoiceIdentityNamesEngineKnobsAndNotes) {
  cudnn::EngineChoice choice;
  choice.engine = 12;
  choice.knobs = {{2, 3}, {17, 1}};
  choice.numerical_notes = {CUDNN_NUMERICAL_NOTE_TENSOR_CORE};
  EXPECT_EQ(choice.label(), "engine 12 (tensor_core) knobs 2=3 17=1");
  EXPECT_EQ(choice.identity()["knobs"]["17"], 1);
  EXPECT_EQ(choice.identity()["numerical_notes"][0], "tensor_core");
}

TEST(ConvVocabulary, PrecisionAndLayoutNames) {
  EXPECT_EQ(parse_precision("bf16"), Precision::kBf16);
  EXPECT_STREQ(precision_name(Precision::kTf32), "tf32");
  EXPECT_EQ(parse_layout("nchw"), Layout::kNchw);
  EXPECT_THROW(parse_precision("fp8"), std::invalid_argument);
  EXPECT_STREQ(pass_name(ConvPass::kBackwardFilter), "backward_filter");
  EXPECT_LT(tolerance(Precision::kFp32), tolerance(Precision::kTf32));
}

}  // namespace
}  // namespace gpubench::conv
