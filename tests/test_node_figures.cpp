// Node mode's figures without a GPU: names, the overlap of timed regions on a made-up clock,
// node totals and the concurrent-to-solo ratio.
#include <gtest/gtest.h>

#include "harness/model/node_figures.h"

namespace gpubench {
namespace {

BenchResult gpu_result(const std::string& gpu, std::vector<double> gbps, double power_w = 300) {
  BenchResult r;
  r.name = "transfer/host_device/dir:h2d/mode:node/gpu:" + gpu;
  r.suite = "transfer";
  r.family = "transfer/host_device";
  r.params = {{"dir", "h2d"}, {"mode", "node"}, {"gpu", gpu}};
  r.primary_metric = "bandwidth_gbps";
  r.verified = true;
  r.metrics["bandwidth_gbps"] = Metric{"GB/s", true, std::move(gbps), std::nullopt};
  r.metrics["time_us"] = Metric{"us", false, {10, 11, 12}, std::nullopt};
  r.telemetry = {{"power_w", {{"median", power_w}, {"max", power_w + 20}}}};
  return r;
}

TEST(NodeFigures, NamesPutModeBeforeTheGpuAndTotalsEndInAll) {
  const std::string solo = "memory/stream/op:triad/type:fp64/array_bytes:4294967296/gpu:gpu3";
  const std::string node = node_name_of(solo);
  EXPECT_EQ(node, "memory/stream/op:triad/type:fp64/array_bytes:4294967296/mode:node/gpu:gpu3");
  EXPECT_TRUE(is_node_name(node));
  EXPECT_FALSE(is_node_name(solo));
  EXPECT_EQ(node_name_of(node), node);
  EXPECT_EQ(solo_name_of(node), solo);
  EXPECT_EQ(solo_name_of(node, "gpu0"), "memory/stream/op:triad/type:fp64/array_bytes:4294967296/gpu:gpu0");
  EXPECT_EQ(node_total_name_of(node), "memory/stream/op:triad/type:fp64/array_bytes:4294967296/mode:node/gpu:all");
  EXPECT_TRUE(is_node_name(node_total_name_of(node)));
  EXPECT_EQ(gpu_of_name(node), "gpu3");
  EXPECT_EQ(gpu_of_name("transfer/peer/src:gpu0/dst:gpu1/op:write"), "");
  EXPECT_EQ(node_name_of("launch/graph/nodes:10"), "launch/graph/nodes:10");  // not per GPU
}

TEST(NodeFigures, OverlapIsTheShareOfMyTimeEveryPeerWasTimedToo) {
  // Made-up clock: mine 0-10 and 20-30; one peer 5-25, the other 0-30.
  const std::vector<ClockSpan> mine = {{20, 30}, {0, 10}};
  EXPECT_DOUBLE_EQ(overlap_pct(mine, {{{5, 25}}, {{0, 30}}}), 50);
  EXPECT_DOUBLE_EQ(overlap_pct(mine, {{{0, 30}}}), 100);
  EXPECT_DOUBLE_EQ(overlap_pct(mine, {}), 100);
  EXPECT_DOUBLE_EQ(overlap_pct(mine, {{{10, 20}}}), 0);  // touching is not overlapping
  // A peer's overlapping spans count once; two peers each overlapping a different half: none in common.
  EXPECT_DOUBLE_EQ(overlap_pct({{0, 10}}, {{{0, 6}, {2, 5}}}), 60);
  EXPECT_DOUBLE_EQ(overlap_pct({{0, 10}}, {{{0, 5}}, {{5, 10}}}), 0);
  EXPECT_DOUBLE_EQ(overlap_pct({}, {{{0, 1}}}), 0);
}

TEST(NodeFigures, TotalsSumRatesSampleBySampleAndThePower) {
  BenchResult gpu1 = gpu_result("gpu1", {25, 26, 27, 99});
  gpu1.metrics["time_us"].values = {12, 10, 14};
  const auto total = node_total({gpu_result("gpu0", {50, 52, 54}), gpu1});
  ASSERT_TRUE(total);
  EXPECT_EQ(total->name, "transfer/host_device/dir:h2d/mode:node/gpu:all");
  EXPECT_EQ(total->params.at("gpu"), "all");
  EXPECT_EQ(total->status, Status::kOk);
  EXPECT_EQ(total->metrics.at("bandwidth_gbps").values, (std::vector<double>{75, 78, 81}));
  EXPECT_EQ(total->primary_metric, "bandwidth_gbps");
  EXPECT_FALSE(total->metrics.at("time_us").higher_is_better);  // not summed: the slowest GPU's
  EXPECT_EQ(total->metrics.at("time_us").values, (std::vector<double>{12, 11, 14}));
  EXPECT_DOUBLE_EQ(total->notes.at("node_power_w").get<double>(), 600);
  EXPECT_DOUBLE_EQ(real_time_ns(*total), 12000);
  // The total is an entry like any: written and read back whole.
  const BenchResult read = read_bench_result(JsonAt(to_json(*total), "total"));
  EXPECT_EQ(read.name, total->name);
  EXPECT_EQ(read.metrics.at("bandwidth_gbps").values, total->metrics.at("bandwidth_gbps").values);
  EXPECT_EQ(total->notes.at("node").at("gpus").size(), 2u);

  BenchResult failed = gpu_result("gpu1", {});
  failed.status = Status::kTimeout;
  failed.error = "no result within 60 s";
  const auto broken = node_total({gpu_result("gpu0", {50}), failed});
  ASSERT_TRUE(broken);
  EXPECT_EQ(broken->status, Status::kFailed);
  EXPECT_EQ(broken->error, "gpu1: timeout: no result within 60 s");
  EXPECT_TRUE(broken->metrics.empty());

  BenchResult latency = gpu_result("gpu0", {});
  latency.metrics.erase("bandwidth_gbps");
  EXPECT_FALSE(node_total({latency}));  // nothing adds up
}

TEST(NodeFigures, RatioIsOneAsFastAsAloneAndLowerWhenSlower) {
  BenchResult solo = gpu_result("gpu0", {100, 100, 100});
  solo.name = solo_name_of(solo.name);
  EXPECT_DOUBLE_EQ(*solo_ratio(gpu_result("gpu0", {50, 50, 50}), solo), 0.5);
  BenchResult slow = gpu_result("gpu0", {100});
  slow.primary_metric = "time_us";
  slow.metrics["time_us"].values = {20};
  solo.primary_metric = "time_us";
  EXPECT_DOUBLE_EQ(*solo_ratio(slow, solo), 0.55);  // 11 us alone, 20 us together
  BenchResult failed = gpu_result("gpu0", {50});
  failed.status = Status::kFailed;
  EXPECT_FALSE(solo_ratio(failed, solo));
  BenchResult capped = gpu_result("gpu0", {90});
  capped.telemetry["sm_clock_mhz"] = {{"median", 1485.0}};
  solo.telemetry["sm_clock_mhz"] = {{"median", 1980.0}};
  EXPECT_DOUBLE_EQ(*sm_clock_drop_pct(capped, solo), 25);
  EXPECT_FALSE(sm_clock_drop_pct(failed, solo));  // no clock read
}

TEST(NodeFigures, SharedBridgesFromThePciePaths) {
  std::vector<GpuInfo> gpus(3);
  for (int i = 0; i < 3; ++i) gpus[i].index = i;
  gpus[0].pcie_path = {"0000:15:00.0", "0000:00:01.0"};  // nearest first
  gpus[1].pcie_path = {"0000:15:00.0", "0000:00:01.0"};  // nearest first
  gpus[2].pcie_path = {"0000:00:03.0"};
  EXPECT_EQ(shared_pcie_note(gpus[1], gpus), nlohmann::json({{"gpu0", "0000:15:00.0"}}));
  EXPECT_TRUE(shared_pcie_note(gpus[2], gpus).empty());
  EXPECT_TRUE(is_summed_metric(Metric{"TFLOP/s", true, {}, std::nullopt}));
  EXPECT_FALSE(is_summed_metric(Metric{"us", false, {}, std::nullopt}));
  EXPECT_FALSE(is_summed_metric(Metric{"x", true, {}, std::nullopt}));
}

}  // namespace
}  // namespace gpubench
