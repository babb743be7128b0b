// The scenarios suite's GPU-free parts: the host-feed arithmetic, and the findings its declared
// rules draw from results, as the table prints them.
#include <gtest/gtest.h>

#include <sstream>

#include "benches/scenarios/feed_arithmetic.h"
#include "harness/model/suite.h"
#include "harness/report/reporter.h"

namespace gpubench {
namespace {

using scenarios::FeedTimes;

TEST(FeedArithmetic, OverlapIsTheShareOfTheShorterPartHidden) {
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 5}), 100);  // fed = max: the copies hidden
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 7}), 0);    // fed = sum: nothing hidden
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 6}), 50);
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 8}), 0);    // slower than serial: clamped
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 4}), 100);  // faster than either alone: clamped
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({0, 5, 5}), 0);
}

TEST(FeedArithmetic, FedRatioAndCrossover) {
  EXPECT_DOUBLE_EQ(scenarios::fed_ratio({2, 5, 10}), 0.5);
  EXPECT_DOUBLE_EQ(scenarios::fed_ratio({2, 5, 0}), 0);
  // 60 TFLOP/s against a 55 GB/s link: about 1091 FLOP per byte.
  EXPECT_NEAR(scenarios::crossover_flop_per_byte(60e12, 55e9), 1090.9, 0.1);
  EXPECT_DOUBLE_EQ(scenarios::crossover_flop_per_byte(60e12, 0), 0);
}

TEST(FeedArithmetic, PredictedFedTimeWithAndWithoutOverlap) {
  const FeedTimes alone{8, 4, 0};  // 8 batches: 1 s copy and 0.5 s compute each
  EXPECT_DOUBLE_EQ(scenarios::predicted_fed_s(alone, 8, false), 12);
  EXPECT_DOUBLE_EQ(scenarios::predicted_fed_s(alone, 8, true), 8.5);  // the last batch's compute sticks out
}

BenchResult result(const std::string& family, nlohmann::json params, std::map<std::string, double> figures) {
  BenchResult r;
  r.family = family;
  r.suite = "scenarios";
  r.name = family;
  for (const auto& [axis, value] : params.items()) r.name += "/" + axis + ":" + (value.is_string() ? value.get<std::string>() : value.dump());
  r.params = std::move(params);
  for (const auto& [metric, value] : figures) r.metrics[metric].values = {value, value, value};
  r.primary_metric = figures.begin()->first;
  return r;
}

BenchResult occupancy(const std::string& kind, int block, int smem_kib, double occupancy_pct, double rate) {
  return result("scenarios/occupancy", {{"kind", kind}, {"block", block}, {"smem_kib", smem_kib}, {"gpu", "gpu0"}},
                {{kind == "memory" ? "bandwidth_gbps" : "tflops", rate}, {"predicted_occupancy_pct", occupancy_pct}});
}

TEST(ScenarioFindings, OccupancyFromWhichEachKernelReachesNinetyPercentOfItsBest) {
  const std::vector<BenchResult> results = {
      occupancy("memory", 1024, 0, 100, 4000), occupancy("memory", 256, 64, 37.5, 3700),
      occupancy("memory", 256, 200, 12.5, 2500), occupancy("memory", 64, 200, 3.125, 600),
      occupancy("compute", 1024, 0, 100, 30), occupancy("compute", 256, 100, 25, 29),
      occupancy("compute", 64, 200, 3.125, 4),
  };
  const std::vector<std::string> lines = findings_of(results);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "gpu0 memory copy: 90 % of its best 4000 GB/s from 37.5 % predicted occupancy (block 256, 64 KiB "
            "shared) up; at 3.12 % predicted occupancy (block 64, 200 KiB shared) 600 GB/s");
  EXPECT_EQ(lines[1], "gpu0 compute FMA chain: 90 % of its best 30 TFLOP/s from 25 % predicted occupancy (block 256, 100 KiB "
                           "shared) up; at 3.12 % predicted occupancy (block 64, 200 KiB shared) 4 TFLOP/s");
}

BenchResult feed(int buffers, int flop_per_byte, double fed_ratio) {
  return result("scenarios/host_feed",
                {{"host", "pinned"}, {"buffers", buffers}, {"flop_per_byte", flop_per_byte}, {"gpu", "gpu0"}},
                {{"tflops", 1}, {"fed_ratio", fed_ratio}, {"link_gbps", 55}, {"compute_alone_tflops", 60},
                 {"crossover_flop_per_byte", 1091}});
}

TEST(ScenarioFindings, HostFeedNamesTheIntensityBelowWhichTheLinkSetsThePace) {
  const std::vector<BenchResult> results = {feed(2, 1024, 0.9), feed(2, 64, 0.06), feed(2, 4096, 0.97)};
  const std::vector<std::string> lines = findings_of(results);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "gpu0 pinned 2 buffers: below 1091 FLOP per byte copied, the host link (55 GB/s) and not the GPU "
            "(60 TFLOP/s) sets the pace; fed 0.06 of compute alone at 64 FLOP/B, 0.97 of compute alone at 4096 FLOP/B");
}

TEST(ScenarioFindings, TheTablePrintsThemUnderTheResultsAndFailedResultsAreLeftOut) {
  std::ostringstream out;
  auto reporter = table_reporter(out);
  BenchResult failed = feed(4, 64, 0.01);
  failed.status = Status::kFailed;
  failed.error = "boom";
  for (const BenchResult& r : {feed(2, 64, 0.06), feed(2, 4096, 0.97), failed}) reporter->result(r);
  reporter->finish(RunDocument{});
  const std::string text = out.str();
  const auto at = text.find("\n\nfindings:\n  gpu0 pinned 2 buffers: below 1091 FLOP per byte");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.find("4 buffers", at), std::string::npos) << text;
  EXPECT_EQ(findings_of({}), std::vector<std::string>{});
}

}  // namespace
}  // namespace gpubench
