// compare --fleet: the fleet median, each run's deviation, outliers by percentage and by MAD,
// direction, missing and failed benchmarks, context differences, and the exit codes.
#include <gtest/gtest.h>

#include "harness/cli/commands.h"
#include "harness/analysis/fleet.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::ResultBuilder;
using testing::samples;

const char* kTriad = "memory/stream/op:triad/type:fp32";
const char* kLaunch = "launch/empty/mode:sync";

// Eight nodes whose triad bandwidths are the given figures; launch latency 4 us everywhere.
std::vector<ResultFile> fleet_of(const std::vector<double>& triad, double odd_latency = 4.0) {
  std::vector<ResultFile> runs;
  for (std::size_t i = 0; i < triad.size(); ++i) {
    ResultBuilder b;
    b.host("node" + std::to_string(i));
    b.bench(kTriad, "bandwidth_gbps", samples(triad[i], 0.2, 10));
    b.bench(kLaunch, "latency_us", samples(i == 0 ? odd_latency : 4.0, 0.2, 10), false);
    runs.push_back(b.parse("node" + std::to_string(i) + ".json"));
  }
  return runs;
}

const FleetRow& row_for(const FleetReport& r, const std::string& benchmark) {
  for (const auto& row : r.rows)
    if (row.benchmark == benchmark) return row;
  throw std::runtime_error("no row for " + benchmark);
}

std::vector<int> flagged_runs(const FleetRow& row) {
  std::vector<int> out;
  for (std::size_t i = 0; i < row.cells.size(); ++i)
    if (row.cells[i].flag != FleetFlag::kOk) out.push_back(static_cast<int>(i));
  return out;
}

TEST(Fleet, HealthyFleetHasNoOutliers) {
  const FleetReport r = compare_fleet(fleet_of({4400, 4410, 4395, 4402, 4398, 4405, 4401, 4399}), {});
  EXPECT_FALSE(r.failed());
  EXPECT_NEAR(row_for(r, kTriad).median, 4400.5, 1e-9);
  EXPECT_TRUE(r.context.size() == 1 && r.context[0].field == "host");
}

TEST(Fleet, OneSlowGpuIsFlaggedByPercentage) {
  const FleetReport r = compare_fleet(fleet_of({4400, 4410, 4395, 3900, 4398, 4405, 4401, 4399}), {});
  const FleetRow& row = row_for(r, kTriad);
  EXPECT_EQ(flagged_runs(row), std::vector<int>{3});
  EXPECT_EQ(row.cells[3].flag, FleetFlag::kOutlier);
  EXPECT_NEAR(row.cells[3].deviation_pct, 100.0 * (3900 - 4399.5) / 4399.5, 1e-9);
  EXPECT_TRUE(r.failed());
  const std::string text = render_fleet(r, "table");
  EXPECT_NE(text.find("node3.json"), std::string::npos);
  EXPECT_NE(text.find("outlier"), std::string::npos);
}

TEST(Fleet, NothingInsideTheThresholdIsFlagged) {
  // The fleet agrees within 0.1 %; a node 3 % slow is many MADs out but inside the 5 % threshold.
  EXPECT_FALSE(compare_fleet(fleet_of({4400, 4402, 4398, 4268, 4401, 4399, 4400, 4403}), {}).failed());
  // A spread-out fleet (MAD 100): 6 % slow is past the threshold but within 3 MADs: noise.
  const FleetReport loose = compare_fleet(fleet_of({4400, 4300, 4500, 4150, 4350, 4450, 4250, 4550}), {});
  EXPECT_FALSE(loose.failed());
  // Three healthy runs of one machine, 2 % apart: nothing to flag.
  EXPECT_FALSE(compare_fleet(fleet_of({4400, 4312, 4360}), {}).failed());
}

TEST(Fleet, OnlyTheBadDirectionIsFlagged) {
  // Node 0 is 10 % faster in bandwidth: fine.
  EXPECT_FALSE(compare_fleet(fleet_of({4840, 4400, 4400, 4400}), {}).failed());
  // Node 0's launch latency is 25 % higher (worse for a lower-is-better metric): flagged.
  const FleetReport slow = compare_fleet(fleet_of({4400, 4400, 4400, 4400}, 5.0), {});
  EXPECT_EQ(flagged_runs(row_for(slow, kLaunch)), std::vector<int>{0});
  // 25 % lower latency is better: not flagged.
  EXPECT_FALSE(compare_fleet(fleet_of({4400, 4400, 4400, 4400}, 3.0), {}).failed());
}

TEST(Fleet, TwoRunsUseOnlyThePercentageRule) {
  EXPECT_FALSE(compare_fleet(fleet_of({4400, 4300}), {}).failed());  // 1.1 % from the midpoint
  EXPECT_TRUE(compare_fleet(fleet_of({4400, 3600}), {}).failed());
}

TEST(Fleet, ThresholdAndToleranceOverrides) {
  // A spread-out fleet (median 4325, MAD 150): node 3 is 12 % slow and beyond 3 MADs.
  const std::vector<double> spread = {4400, 4250, 4500, 3800, 4200, 4600, 4150, 4450};
  EXPECT_EQ(flagged_runs(row_for(compare_fleet(fleet_of(spread), {}), kTriad)), std::vector<int>{3});
  FleetOptions loose;
  loose.threshold_pct = 15;
  EXPECT_FALSE(compare_fleet(fleet_of(spread), loose).failed());
  FleetOptions per_family;
  per_family.tolerances.families["memory/stream"].pct = 15;
  EXPECT_FALSE(compare_fleet(fleet_of(spread), per_family).failed());
  // The threshold holds in a tight fleet too: an 11 % drop is inside a 15 % threshold.
  EXPECT_FALSE(compare_fleet(fleet_of({4400, 4410, 4395, 3900, 4398, 4405, 4401, 4399}), loose).failed());
}

// min_change counts against the fleet median: a spread that healthy runs show is no outlier.
TEST(Fleet, MinChangeCountsFromTheFleetMedian) {
  const std::vector<double> l2_sized = {302, 296, 308, 285.5, 301, 303};  // node 3: 5.5 % slow
  EXPECT_EQ(flagged_runs(row_for(compare_fleet(fleet_of(l2_sized), {}), kTriad)), std::vector<int>{3});
  FleetOptions derived;
  derived.tolerances.names[kTriad].min_change["bandwidth_gbps"] = 29;
  const FleetReport r = compare_fleet(fleet_of(l2_sized), derived);
  EXPECT_FALSE(r.failed());
  EXPECT_NEAR(row_for(r, kTriad).threshold_pct, 100 * 29 / 301.5, 1e-9);
}

// Five healthy same-build memory runs of an H200 (results/h200): a fleet of them passes with
// compare --fleet's defaults.
TEST(FleetCli, FiveHealthyMemoryRunsPass) {
  std::vector<std::string> args = {"compare", "--fleet"};
  for (const char* run : {"", "-run2", "-run3", "-run4", "-run5"})
    args.push_back(std::string(GPUBENCH_SOURCE_DIR) + "/results/h200/2026-12-01-memory" + run + ".json");
  const testing::CliResult r = testing::run_cli(add_compare_command, args);
  EXPECT_EQ(r.exit_code, kExitOk) << r.out;
  EXPECT_NE(r.out.find("0 outlier, 0 missing, 0 not ok"), std::string::npos) << r.out;
}

TEST(Fleet, MissingAndFailedBenchmarks) {
  std::vector<ResultFile> runs = fleet_of({4400, 4400, 4400});
  ResultBuilder lacking, failing;
  lacking.bench(kLaunch, "latency_us", samples(4, 0.2, 10), false);
  failing.bench(kTriad, "bandwidth_gbps", {}).status_of_last("timeout", "no progress in 60 s");
  failing.bench(kLaunch, "latency_us", samples(4, 0.2, 10), false);
  runs.push_back(lacking.parse("lacking.json"));
  runs.push_back(failing.parse("failing.json"));
  const FleetReport r = compare_fleet(runs, {});
  const FleetRow& row = row_for(r, kTriad);
  EXPECT_EQ(row.cells[3].flag, FleetFlag::kMissing);
  EXPECT_EQ(row.cells[4].flag, FleetFlag::kNotOk);
  EXPECT_NE(row.cells[4].note.find("timeout"), std::string::npos);
  EXPECT_EQ(r.count(FleetFlag::kMissing), 1);
  EXPECT_EQ(r.count(FleetFlag::kNotOk), 1);
  EXPECT_TRUE(r.failed());
}

TEST(Fleet, SkippedEverywhereIsNotAFlag) {
  std::vector<ResultFile> runs;
  for (int i = 0; i < 3; ++i) {
    ResultBuilder b(1);
    b.bench("collective/allreduce/bytes:1048576", "busbw_gbps", {}).status_of_last("skipped", "needs 2 GPUs");
    runs.push_back(b.parse());
  }
  EXPECT_FALSE(compare_fleet(runs, {}).failed());
}

TEST(Fleet, ContextDifferencesGroupRuns) {
  std::vector<ResultFile> runs;
  for (int i = 0; i < 4; ++i) {
    ResultBuilder b;
    b.bench(kTriad, "bandwidth_gbps", samples(4400, 0.2, 10));
    if (i == 2) b.gpubench_context()["driver_version"] = "550.54.15";
    runs.push_back(b.parse("n" + std::to_string(i) + ".json"));
  }
  const FleetReport r = compare_fleet(runs, {});
  ASSERT_EQ(r.context.size(), 1u);
  EXPECT_EQ(r.context[0].field, "driver");
  const std::string text = render_fleet(r, "table");
  EXPECT_NE(text.find("560.35.03 (n0.json, n1.json, n3.json); 550.54.15 (n2.json)"), std::string::npos) << text;
  const auto json = nlohmann::json::parse(render_fleet(r, "json"));
  EXPECT_EQ(json["runs"].size(), 4u);
  EXPECT_EQ(json["rows"][0]["runs"].size(), 4u);
  EXPECT_NE(render_fleet(r, "md").find("| run |"), std::string::npos);
}

TEST(FleetCli, ExitCodes) {
  const std::string dir = testing::temp_dir();
  std::vector<std::string> paths;
  const std::vector<double> triad = {4400, 4410, 4395, 3900};
  for (std::size_t i = 0; i < triad.size(); ++i) {
    ResultBuilder b;
    b.bench(kTriad, "bandwidth_gbps", samples(triad[i], 0.2, 10));
    paths.push_back(dir + "/n" + std::to_string(i) + ".json");
    testing::write_file(paths.back(), b.doc().dump());
  }
  auto run = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"compare", "--fleet"});
    return testing::run_cli(add_compare_command, args).exit_code;
  };
  EXPECT_EQ(run({paths[0], paths[1], paths[2]}), kExitOk);
  EXPECT_EQ(run(paths), kExitFailure);
  EXPECT_EQ(run({paths[0], paths[1], paths[2], "--format", "json"}), kExitOk);
  EXPECT_THROW(run({paths[0]}), UsageError);
}

}  // namespace
}  // namespace gpubench
