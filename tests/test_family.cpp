// Families and axes: expansion into instances, names in declaration order, power-of-two
// ranges, --quick subsets, --config overrides, where() filtering, needs_gpus(), per-device
// GPU axes and the Params accessors. Test-only families are registered as unittest/... and
// hidden, so that they never show up in `list` or `--suite all`.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/family.h"
#include "harness/model/exit_codes.h"

namespace gpubench {
namespace {

using Ints = std::vector<std::int64_t>;

std::vector<std::string> names_of(const std::vector<Instance>& instances) {
  std::vector<std::string> names;
  for (const auto& i : instances) names.push_back(i.name);
  return names;
}

ExpandOptions on_devices(std::vector<int> devices) {
  ExpandOptions options;
  options.devices = std::move(devices);
  return options;
}

void no_op(State&) {}

// Declared at namespace scope, like real families: family() registers on first use of a name,
// so a test body that declared axes would add them again under --gtest_repeat.
const Family& expand_family = family("unittest/expand")
                                  .describe("two axes, string then integer")
                                  .axis_str("op", {"copy", "triad"})
                                  .axis_int("n", {3, 1, 2})
                                  .hidden()
                                  .cpu_only()
                                  .run(no_op);

const Family& pow2_family = family("unittest/pow2")
                                .axis_pow2("bytes", 10, 16, 2)
                                .axis_pow2("odd", 1, 4, 2)  // 2^1, 2^3: 2^5 is past hi
                                .hidden()
                                .run(no_op);

const Family& quick_family = family("unittest/quick")
                                 .axis_str("type", {"fp32", "fp64", "bf16"}, {"fp32"})
                                 .axis_pow2("bytes", 20, 24, 1, {1 << 20, 1 << 24})
                                 .axis_str("mode", {"a", "b"})  // no quick subset: all values
                                 .hidden()
                                 .run(no_op);

const Family& where_family = family("unittest/where")
                                 .axis_str("src", {"a", "b", "c"})
                                 .axis_str("dst", {"a", "b", "c"})
                                 .where([](const Params& p) { return p.str("src") != p.str("dst"); })
                                 .where([](const Params& p) { return p.str("src") != "c"; })
                                 .hidden()
                                 .run(no_op);

const Family& pair_family = family("unittest/pair")
                                .axis_gpus("src")
                                .axis_gpus("dst")
                                .axis_int("bytes", {64})
                                .where([](const Params& p) { return p.gpu("src") != p.gpu("dst"); })
                                .needs_gpus(2)
                                .hidden()
                                .run(no_op);

const Family& per_device_family = family("unittest/per_device")
                                      .axis_str("op", {"read", "write"})
                                      .per_device()
                                      .hidden()
                                      .run(no_op);

const Family& no_axes_family = family("unittest/no_axes").hidden().run(no_op);

TEST(Family, RegistryFindsFamiliesByName) {
  EXPECT_EQ(&family("unittest/expand"), &expand_family);  // same name, same family
  EXPECT_EQ(find_family("unittest/expand"), &expand_family);
  EXPECT_EQ(find_family("unittest/does_not_exist"), nullptr);
  EXPECT_EQ(expand_family.suite(), "unittest");
  EXPECT_EQ(expand_family.description(), "two axes, string then integer");
  EXPECT_TRUE(expand_family.is_hidden());
  const auto suites = known_suites();
  EXPECT_NE(std::find(suites.begin(), suites.end(), "unittest"), suites.end());
  EXPECT_NE(std::find(suites.begin(), suites.end(), "memory"), suites.end());
  EXPECT_NE(std::find(suites.begin(), suites.end(), "selftest"), suites.end());
}

TEST(Family, NameWithoutSuiteIsRejected) { EXPECT_THROW(family("nosuite"), std::logic_error); }

TEST(Family, AnAxisNameIsDeclaredOnce) {
  Family f("unittest/unregistered");
  f.axis_str("op", {"a"});
  EXPECT_THROW(f.axis_int("op", {1}), std::logic_error);
}

TEST(Family, FloatAxesWriteTheShortestExactValueAndNumbersInParams) {
  EXPECT_EQ(float_axis_value(0.5), "0.5");
  EXPECT_EQ(float_axis_value(0.1), "0.1");
  EXPECT_EQ(float_axis_value(1e-6), "1e-06");
  EXPECT_EQ(float_axis_value(3), "3");
  Family f("unittest/unregistered_float");
  f.axis_float("alpha", {0.25, 1.5}).cpu_only().run(no_op);
  const auto instances = f.expand(ExpandOptions{});
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0].name, "unittest/unregistered_float/alpha:0.25");
  EXPECT_DOUBLE_EQ(instances[1].params.real("alpha"), 1.5);
  EXPECT_TRUE(instances[1].params.to_json()["alpha"].is_number_float());
}

TEST(Family, ComputedAxesReadTheContextAndConfigAtExpansion) {
  Family f("unittest/unregistered_computed");
  f.axis_computed(
       "bytes",
       [](const ExpandContext& e) {
         std::vector<std::string> values;
         for (const auto& g : e.context.gpus) values.push_back(std::to_string(2 * g.l2_bytes));
         return values;
       },
       Axis::Kind::kInt)
      .axis_computed("layer", [](const ExpandContext& e) {
        std::vector<std::string> names;
        for (const auto& layer : e.config.value("layers", nlohmann::json::array())) names.push_back(layer);
        return names;
      })
      .cpu_only()
      .run(no_op);
  EXPECT_TRUE(f.expand(ExpandOptions{}).empty());  // no GPU captured, no layers: no instance
  Context context;
  context.gpus.emplace_back();
  context.gpus[0].l2_bytes = 50 << 20;
  ExpandOptions options;
  options.context = &context;
  options.config = {{"layers", {"conv1", "conv2"}}};
  const auto instances = f.expand(options);
  EXPECT_EQ(names_of(instances), (std::vector<std::string>{"unittest/unregistered_computed/bytes:104857600/layer:conv1",
                                                           "unittest/unregistered_computed/bytes:104857600/layer:conv2"}));
  EXPECT_EQ(instances[0].params.to_json()["bytes"], 104857600);
  // An override from --config picks among the computed values; a string it does not compute
  // names nothing that could run.
  options.axis_overrides = {{"unittest/unregistered_computed", {{"layer", {"conv2"}}}}};
  EXPECT_EQ(f.expand(options).size(), 1u);
  options.axis_overrides = {{"unittest/unregistered_computed", {{"layer", {"fc"}}}}};
  EXPECT_THROW(f.expand(options), UsageError);
}

TEST(Family, GpuRequirements) {
  EXPECT_FALSE(expand_family.needs_gpu());
  EXPECT_EQ(expand_family.min_gpus(), 0);
  EXPECT_TRUE(pow2_family.needs_gpu());
  EXPECT_EQ(pow2_family.min_gpus(), 1);
  EXPECT_EQ(pair_family.min_gpus(), 2);
}

TEST(FamilyExpand, NamesFollowDeclarationOrderLastAxisFastest) {
  const auto instances = expand_family.expand(ExpandOptions{});
  EXPECT_EQ(names_of(instances), (std::vector<std::string>{
                                     "unittest/expand/op:copy/n:3", "unittest/expand/op:copy/n:1",
                                     "unittest/expand/op:copy/n:2", "unittest/expand/op:triad/n:3",
                                     "unittest/expand/op:triad/n:1", "unittest/expand/op:triad/n:2"}));
  for (const auto& instance : instances) {
    EXPECT_EQ(instance.family, &expand_family);
    EXPECT_TRUE(instance.skip_reason.empty());
    EXPECT_EQ(instance.device, 0);
    EXPECT_EQ(instance_name(expand_family.name(), instance.params), instance.name);
  }
}

TEST(FamilyExpand, ExpansionIsDeterministic) {
  EXPECT_EQ(names_of(expand_family.expand(ExpandOptions{})), names_of(expand_family.expand(ExpandOptions{})));
}

TEST(FamilyExpand, InstanceNameJoinsAxesWithColons) {
  Params p;
  p.values = {{"type", "bf16"}, {"m", "8192"}, {"layout", "tn"}};
  p.kinds = {Axis::Kind::kString, Axis::Kind::kInt, Axis::Kind::kString};
  EXPECT_EQ(instance_name("gemm/matmul", p), "gemm/matmul/type:bf16/m:8192/layout:tn");
  EXPECT_EQ(instance_name("gemm/matmul", Params{}), "gemm/matmul");
}

TEST(FamilyExpand, FamilyWithoutAxesIsOneInstance) {
  const auto instances = no_axes_family.expand(ExpandOptions{});
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(instances[0].name, "unittest/no_axes");
  EXPECT_TRUE(instances[0].params.values.empty());
}

TEST(FamilyExpand, Pow2RangeIsInclusiveAndStepsInExponent) {
  ASSERT_EQ(pow2_family.axes().size(), 2u);
  const Axis& bytes = pow2_family.axes()[0];
  EXPECT_EQ(bytes.kind, Axis::Kind::kInt);
  EXPECT_EQ(bytes.values, (std::vector<std::string>{"1024", "4096", "16384", "65536"}));
  EXPECT_EQ(pow2_family.axes()[1].values, (std::vector<std::string>{"2", "8"}));
  const auto instances = pow2_family.expand(ExpandOptions{});
  ASSERT_EQ(instances.size(), 8u);
  EXPECT_EQ(instances.front().name, "unittest/pow2/bytes:1024/odd:2");
  EXPECT_EQ(instances.back().name, "unittest/pow2/bytes:65536/odd:8");
}

TEST(FamilyExpand, Pow2BeyondThirtyOneBitsStaysExact) {
  Family f("unittest/unregistered_big");
  f.axis_pow2("array_bytes", 30, 34, 2);
  EXPECT_EQ(f.axes()[0].values, (std::vector<std::string>{"1073741824", "4294967296", "17179869184"}));
}

TEST(FamilyExpand, QuickUsesTheQuickSubsetOfEachAxisThatHasOne) {
  EXPECT_EQ(quick_family.expand(ExpandOptions{}).size(), 3u * 5u * 2u);
  ExpandOptions quick;
  quick.quick = true;
  EXPECT_EQ(names_of(quick_family.expand(quick)),
            (std::vector<std::string>{"unittest/quick/type:fp32/bytes:1048576/mode:a",
                                      "unittest/quick/type:fp32/bytes:1048576/mode:b",
                                      "unittest/quick/type:fp32/bytes:16777216/mode:a",
                                      "unittest/quick/type:fp32/bytes:16777216/mode:b"}));
  // The declared axes keep their full sweep; only the resolved ones are cut.
  EXPECT_EQ(quick_family.axes()[0].values.size(), 3u);
  EXPECT_EQ(quick_family.resolved_axes(quick)[0].values, std::vector<std::string>{"fp32"});
}

TEST(FamilyExpand, ConfigOverridesReplaceAxisValues) {
  ExpandOptions options;
  options.axis_overrides = {{"unittest/expand", {{"n", {7, 5}}, {"op", {"triad"}}}}};
  EXPECT_EQ(names_of(expand_family.expand(options)),
            (std::vector<std::string>{"unittest/expand/op:triad/n:7", "unittest/expand/op:triad/n:5"}));
  const auto params = expand_family.expand(options)[0].params;
  EXPECT_EQ(params.integer("n"), 7);
  EXPECT_EQ(params.to_json()["n"], 7);
}

TEST(FamilyExpand, ConfigOverridesWinOverQuickAndOnlyApplyToTheirFamily) {
  ExpandOptions options;
  options.quick = true;
  options.axis_overrides = {{"unittest/quick", {{"type", {"bf16", "fp64"}}}},
                            {"unittest/expand", {{"op", {"copy"}}}}};
  const auto names = names_of(quick_family.expand(options));
  // type from the override (both values, in the override's order), bytes still from --quick.
  EXPECT_EQ(names, (std::vector<std::string>{
                       "unittest/quick/type:bf16/bytes:1048576/mode:a", "unittest/quick/type:bf16/bytes:1048576/mode:b",
                       "unittest/quick/type:bf16/bytes:16777216/mode:a", "unittest/quick/type:bf16/bytes:16777216/mode:b",
                       "unittest/quick/type:fp64/bytes:1048576/mode:a", "unittest/quick/type:fp64/bytes:1048576/mode:b",
                       "unittest/quick/type:fp64/bytes:16777216/mode:a", "unittest/quick/type:fp64/bytes:16777216/mode:b"}));
  EXPECT_EQ(pow2_family.expand(options).size(), 8u);  // another family's overrides do not apply
}

TEST(FamilyExpand, WhereDropsCombinationsAndAllPredicatesMustHold) {
  EXPECT_EQ(names_of(where_family.expand(ExpandOptions{})),
            (std::vector<std::string>{"unittest/where/src:a/dst:b", "unittest/where/src:a/dst:c",
                                      "unittest/where/src:b/dst:a", "unittest/where/src:b/dst:c"}));
}

TEST(FamilyExpand, TooFewGpusGivesOneSkippedRecordWithTheReason) {
  const auto instances = pair_family.expand(on_devices({0}));
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(instances[0].name, "unittest/pair");
  EXPECT_EQ(instances[0].family, &pair_family);
  EXPECT_NE(instances[0].skip_reason.find("needs 2 GPUs"), std::string::npos) << instances[0].skip_reason;
  EXPECT_NE(instances[0].skip_reason.find("1 selected"), std::string::npos) << instances[0].skip_reason;
}

TEST(FamilyExpand, GpuAxesTakeTheSelectedDevices) {
  const auto instances = pair_family.expand(on_devices({0, 2, 3}));
  EXPECT_EQ(names_of(instances), (std::vector<std::string>{
                                     "unittest/pair/src:gpu0/dst:gpu2/bytes:64", "unittest/pair/src:gpu0/dst:gpu3/bytes:64",
                                     "unittest/pair/src:gpu2/dst:gpu0/bytes:64", "unittest/pair/src:gpu2/dst:gpu3/bytes:64",
                                     "unittest/pair/src:gpu3/dst:gpu0/bytes:64", "unittest/pair/src:gpu3/dst:gpu2/bytes:64"}));
  for (const auto& i : instances) {
    EXPECT_TRUE(i.skip_reason.empty());
    EXPECT_EQ(i.device, 0);  // not per-device: the first selected GPU
  }
  EXPECT_EQ(instances[2].params.gpu("src"), 2);
  EXPECT_EQ(instances[2].params.gpu("dst"), 0);
}

TEST(FamilyExpand, PerDeviceAddsATrailingGpuAxisAndSetsTheDevice) {
  EXPECT_TRUE(per_device_family.is_per_device());
  EXPECT_EQ(per_device_family.axes().size(), 1u);  // the gpu axis is added at expansion
  const auto instances = per_device_family.expand(on_devices({1, 3}));
  EXPECT_EQ(names_of(instances),
            (std::vector<std::string>{"unittest/per_device/op:read/gpu:gpu1", "unittest/per_device/op:read/gpu:gpu3",
                                      "unittest/per_device/op:write/gpu:gpu1", "unittest/per_device/op:write/gpu:gpu3"}));
  EXPECT_EQ(instances[0].device, 1);
  EXPECT_EQ(instances[1].device, 3);
  EXPECT_EQ(instances[3].device, 3);
  const auto axes = per_device_family.resolved_axes(on_devices({1, 3}));
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[1].name, "gpu");
  EXPECT_EQ(axes[1].kind, Axis::Kind::kGpu);
}

TEST(FamilyExpand, PerDeviceGpuAxisCanBeOverridden) {
  ExpandOptions options = on_devices({0, 1});
  options.axis_overrides = {{"unittest/per_device", {{"gpu", {"gpu1"}}}}};
  const auto instances = per_device_family.expand(options);
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0].name, "unittest/per_device/op:read/gpu:gpu1");
  EXPECT_EQ(instances[0].device, 1);
}

TEST(FamilyExpand, RealFamilyNamesAreStable) {
  // memory/stream is what baselines and results key on: its names must not drift.
  const Family* stream = find_family("memory/stream");
  ASSERT_NE(stream, nullptr);
  EXPECT_FALSE(stream->is_hidden());
  const auto instances = stream->expand(ExpandOptions{});
  ASSERT_FALSE(instances.empty());
  EXPECT_EQ(instances.front().name, "memory/stream/op:copy/type:fp32/array_bytes:1048576/gpu:gpu0");
  const bool has_triad = std::any_of(instances.begin(), instances.end(), [](const Instance& i) {
    return i.name == "memory/stream/op:triad/type:fp64/array_bytes:4294967296/gpu:gpu0";
  });
  EXPECT_TRUE(has_triad);
  const Family* faults = find_family("selftest/cpu_faults");
  ASSERT_NE(faults, nullptr);
  EXPECT_TRUE(faults->is_hidden());
  EXPECT_FALSE(faults->needs_gpu());
}

TEST(Params, Accessors) {
  const auto instances = pair_family.expand(on_devices({4, 7}));
  ASSERT_EQ(instances.size(), 2u);
  const Params& p = instances[0].params;
  EXPECT_TRUE(p.has("src"));
  EXPECT_TRUE(p.has("bytes"));
  EXPECT_FALSE(p.has("gpu"));
  EXPECT_EQ(p.str("src"), "gpu4");
  EXPECT_EQ(p.gpu("src"), 4);
  EXPECT_EQ(p.gpu("dst"), 7);
  EXPECT_EQ(p.integer("bytes"), 64);
  EXPECT_EQ(p.str("bytes"), "64");
  EXPECT_THROW(p.str("missing"), std::out_of_range);
  EXPECT_THROW(p.integer("missing"), std::out_of_range);
  EXPECT_THROW(p.gpu("bytes"), std::invalid_argument);  // "64" is not a GPU
}

TEST(Params, ToJsonKeepsTypes) {
  const auto instances = expand_family.expand(ExpandOptions{});
  const nlohmann::json j = instances[0].params.to_json();
  EXPECT_EQ(j, (nlohmann::json{{"op", "copy"}, {"n", 3}}));
  EXPECT_TRUE(j["n"].is_number_integer());
  EXPECT_TRUE(j["op"].is_string());
  const auto gpu = per_device_family.expand(on_devices({2}))[0].params.to_json();
  EXPECT_EQ(gpu["gpu"], "gpu2");  // GPU axes are strings, as in the names
  const auto big = pow2_family.expand(ExpandOptions{}).back().params;
  EXPECT_EQ(big.integer("bytes"), 65536);
}

const std::vector<std::string> computed_values{"b", "c"};
const Family& quick_computed_family =
    family("unittest/quick_computed")
        .axis_computed("pick", [](const ExpandContext&) { return computed_values; }, Axis::Kind::kString, {"c", "z"})
        .axis_computed("fallback", [](const ExpandContext&) { return computed_values; }, Axis::Kind::kString, {"z"})
        .cpu_only()
        .hidden()
        .run([](State&) {});

TEST(Family, QuickOfAComputedAxisIsItsPreferredValueElseItsFirst) {
  const Family& f = quick_computed_family;
  ExpandOptions quick;
  quick.quick = true;
  const auto instances = f.expand(quick);
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(instances[0].name, "unittest/quick_computed/pick:c/fallback:b");
  EXPECT_EQ(f.expand(ExpandOptions{}).size(), 4u);
}

}  // namespace
}  // namespace gpubench
