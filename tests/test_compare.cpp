// compare: verdicts, direction, significance, the thresholds tolerances set, context
// differences and renderings.
#include <gtest/gtest.h>

#include "harness/analysis/compare.h"
#include "harness/analysis/mann_whitney.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::expect_bad_input;
using testing::ResultBuilder;
using testing::samples;

const char* kTriad = "memory/stream/op:triad/type:fp32/array_bytes:1073741824";
const char* kCopy = "memory/stream/op:copy/type:fp32/array_bytes:1073741824";
const char* kLaunch = "launch/empty/mode:sync";

const MetricComparison& row_for(const Comparison& c, const std::string& benchmark,
                                const std::string& metric = "") {
  for (const auto& r : c.rows)
    if (r.benchmark == benchmark && (metric.empty() || r.metric == metric)) return r;
  throw std::runtime_error("no row for " + benchmark);
}

Comparison compare_one(double base_center, double new_center, double spread_pct, int n,
                       bool higher = true, CompareOptions options = {}) {
  ResultBuilder base, now;
  const char* metric = higher ? "bandwidth_gbps" : "latency_us";
  base.bench(kTriad, metric, samples(base_center, spread_pct, n), higher);
  now.bench(kTriad, metric, samples(new_center, spread_pct, n), higher);
  return compare_runs(base.parse("base.json"), now.parse("new.json"), options);
}

TEST(Compare, IdenticalRunsAreSame) {
  const Comparison c = compare_one(4000, 4000, 1, 20);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kSame);
  EXPECT_FALSE(c.failed());
  EXPECT_TRUE(c.context.empty());
}

TEST(Compare, SignificantDropOfHigherIsBetterRegresses) {
  const Comparison c = compare_one(4000, 3600, 1, 20);
  const auto& r = c.rows[0];
  EXPECT_EQ(r.verdict, Verdict::kRegressed);
  EXPECT_NEAR(r.change_pct, -10.0, 1e-9);
  ASSERT_TRUE(r.p_value);
  EXPECT_LT(*r.p_value, 0.05);
  EXPECT_TRUE(c.failed());
}

TEST(Compare, SignificantRiseOfHigherIsBetterImproves) {
  const Comparison c = compare_one(4000, 4400, 1, 20);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kImproved);
  EXPECT_FALSE(c.failed());
}

TEST(Compare, LowerIsBetterMetricsRegressUpwards) {
  EXPECT_EQ(compare_one(5.0, 5.5, 1, 20, false).rows[0].verdict, Verdict::kRegressed);
  EXPECT_EQ(compare_one(5.0, 4.5, 1, 20, false).rows[0].verdict, Verdict::kImproved);
}

TEST(Compare, ChangeWithinThresholdIsSameEvenWhenSignificant) {
  const Comparison c = compare_one(4000, 3920, 0.1, 20);  // -2 %, far outside the noise
  EXPECT_EQ(c.rows[0].verdict, Verdict::kSame);
  EXPECT_NEAR(c.rows[0].threshold_pct, 3.0, 1e-12);
}

TEST(Compare, LargeChangeInsideNoiseIsNoisy) {
  // Medians 6 % apart, but each run spreads +-40 %: the U test finds no evidence.
  const Comparison c = compare_one(4000, 3760, 40, 10);
  const auto& r = c.rows[0];
  EXPECT_EQ(r.verdict, Verdict::kNoisy);
  ASSERT_TRUE(r.p_value);
  EXPECT_GE(*r.p_value, 0.05);
  EXPECT_FALSE(c.failed());
}

TEST(Compare, FewSamplesFallBackToNoiseBands) {
  // 3 samples each: no U test. Non-overlapping bands decide.
  const Comparison apart = compare_one(4000, 3600, 1, 3);
  EXPECT_EQ(apart.rows[0].verdict, Verdict::kRegressed);
  EXPECT_FALSE(apart.rows[0].p_value);
  const Comparison overlapping = compare_one(4000, 3600, 10, 3);
  EXPECT_EQ(overlapping.rows[0].verdict, Verdict::kNoisy);
}

TEST(Compare, MissingBenchmarksFailUnlessAllowed) {
  ResultBuilder base, now;
  base.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  base.bench(kCopy, "bandwidth_gbps", samples(4000, 1, 10));
  now.bench(kCopy, "bandwidth_gbps", samples(4000, 1, 10));
  now.bench(kLaunch, "latency_us", samples(4, 1, 10), false);
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  EXPECT_EQ(row_for(c, kTriad).verdict, Verdict::kMissing);
  EXPECT_EQ(row_for(c, kLaunch).verdict, Verdict::kNew);
  EXPECT_TRUE(c.failed());
  CompareOptions allow;
  allow.allow_missing = true;
  EXPECT_FALSE(compare_runs(base.parse(), now.parse(), allow).failed());
}

TEST(Compare, NothingInCommonIsBadInput) {
  ResultBuilder base, disjoint, empty, renamed;
  base.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  disjoint.bench(kLaunch, "latency_us", samples(4, 1, 10), false);
  renamed.bench("memory/stream2/op:add/type:fp16", "bandwidth_gbps", samples(4000, 1, 10));
  for (const ResultBuilder* now : {&disjoint, &empty, &renamed})
    expect_bad_input([&] { compare_runs(base.parse("base.json"), now->parse("new.json"), {}); },
                     "base.json, new.json: BASE and NEW have no benchmark in common (1 in BASE, ");
}

TEST(Compare, BenchmarkNotOkInNewFails) {
  ResultBuilder base, now;
  base.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  now.bench(kTriad, "bandwidth_gbps", {}).status_of_last("failed", "verification failed: 3 mismatches");
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  const auto& r = row_for(c, kTriad);
  EXPECT_EQ(r.verdict, Verdict::kNotOk);
  EXPECT_EQ(r.status, "failed");
  EXPECT_NE(r.note.find("3 mismatches"), std::string::npos);
  EXPECT_TRUE(c.failed());
  EXPECT_NE(render_comparison(c, "table").find("failed"), std::string::npos);
}

TEST(Compare, NotOkOnlyInBaseIsNotAFailure) {
  ResultBuilder base, now;
  base.bench(kTriad, "bandwidth_gbps", {}).status_of_last("timeout", "over 60 s");
  now.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  EXPECT_EQ(row_for(c, kTriad).verdict, Verdict::kNew);
  EXPECT_FALSE(c.failed());
}

TEST(Compare, SkippedInBothIsSame) {
  ResultBuilder base, now;
  base.bench(kLaunch, "latency_us", {}).status_of_last("skipped", "needs 2 GPUs");
  now.bench(kLaunch, "latency_us", {}).status_of_last("skipped", "needs 2 GPUs");
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  EXPECT_EQ(row_for(c, kLaunch).verdict, Verdict::kSame);
  EXPECT_FALSE(c.failed());
}

TEST(Compare, MatchesByParametersWhenTheNameChanged) {
  ResultBuilder base, now;
  base.bench("memory/stream/op:triad/type:fp32", "bandwidth_gbps", samples(4000, 1, 10));
  now.bench("memory/stream/type:fp32/op:triad", "bandwidth_gbps", samples(3000, 1, 10));
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kRegressed);
  EXPECT_EQ(c.rows[0].base_name, "memory/stream/op:triad/type:fp32");
}

TEST(Compare, EveryMetricIsCompared) {
  ResultBuilder base, now;
  base.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10)).metric_of_last("d2h_gbps", samples(100, 1, 10), true);
  now.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10)).metric_of_last("d2h_gbps", samples(80, 1, 10), true);
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  EXPECT_EQ(row_for(c, kTriad, "bandwidth_gbps").verdict, Verdict::kSame);
  EXPECT_EQ(row_for(c, kTriad, "d2h_gbps").verdict, Verdict::kRegressed);
}

TEST(Compare, TimeBehindThePrimaryMetricIsNotComparedTwice) {
  ResultBuilder base, now;
  base.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10)).metric_of_last("time_us", samples(100, 1, 10), false);
  now.bench(kTriad, "bandwidth_gbps", samples(3000, 1, 10)).metric_of_last("time_us", samples(133, 1, 10), false);
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  EXPECT_EQ(row_for(c, kTriad, "bandwidth_gbps").verdict, Verdict::kRegressed);
  for (const auto& row : c.rows) EXPECT_NE(row.metric, "time_us");
}

// A node figure's solo_ratio divides it by a solo figure that compare judges on its own.
TEST(Compare, TheSoloRatioOfANodeFigureIsNotComparedAgain) {
  const std::string node = std::string(kTriad) + "/mode:node/gpu:gpu0";
  ResultBuilder base, now;
  base.bench(node, "bandwidth_gbps", samples(4000, 1, 10)).metric_of_last("solo_ratio", {1.0}, true);
  now.bench(node, "bandwidth_gbps", samples(4000, 1, 10)).metric_of_last("solo_ratio", {0.6}, true);
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  EXPECT_EQ(row_for(c, node, "bandwidth_gbps").verdict, Verdict::kSame);
  for (const auto& row : c.rows) EXPECT_NE(row.metric, "solo_ratio");
}

TEST(Compare, RepetitionsUseTheMedianOfMediansAndPoolSamples) {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(100, 1, 5), true, 0, 3);
  b.bench(kTriad, "bandwidth_gbps", samples(130, 1, 5), true, 1, 3);
  b.bench(kTriad, "bandwidth_gbps", samples(110, 1, 5), true, 2, 3);
  const ResultFile run = b.parse();
  ASSERT_EQ(run.benchmarks.size(), 1u);
  const MetricResult& m = run.benchmarks[0].metrics.at("bandwidth_gbps");
  EXPECT_DOUBLE_EQ(m.median, 110);
  EXPECT_EQ(m.values.size(), 15u);
  EXPECT_EQ(run.benchmarks[0].repetitions, 3);
}

TEST(Compare, PercentageMetricsChangeByPoints) {
  ResultBuilder base, now;
  base.bench(kLaunch, "latency_us", samples(4, 0.1, 10), false)
      .metric_of_last("gpu_reduction_pct", samples(10, 1, 10))
      .metric_of_last("cpu_busy_pct", samples(50, 0.1, 10), false);
  now.bench(kLaunch, "latency_us", samples(4, 0.1, 10), false)
      .metric_of_last("gpu_reduction_pct", samples(-3.125, 1, 10))
      .metric_of_last("cpu_busy_pct", samples(52, 0.1, 10), false);
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  const auto& reduction = row_for(c, kLaunch, "gpu_reduction_pct");
  EXPECT_TRUE(reduction.change_in_points);
  EXPECT_NEAR(reduction.change_pct, -13.125, 1e-9);  // not -131 %
  EXPECT_EQ(reduction.verdict, Verdict::kRegressed);
  const auto& busy = row_for(c, kLaunch, "cpu_busy_pct");
  EXPECT_NEAR(busy.change_pct, 2.0, 1e-9);  // 2 points (4 % relative) is under 3
  EXPECT_EQ(busy.verdict, Verdict::kSame);
  EXPECT_NE(render_comparison(c, "table").find("-13.1 pt"), std::string::npos);
}

TEST(Compare, EnoughRepetitionsAreTestedByTheirMedians) {
  // Five repetitions a side whose medians scatter by +-10 % while each repetition's samples
  // are tight: only the repetition medians show how much a figure moves from run to run.
  ResultBuilder base, now;
  const double base_reps[] = {100, 110, 90, 105, 95}, new_reps[] = {92, 102, 82, 97, 87};
  for (int r = 0; r < 5; ++r) {
    base.bench(kTriad, "bandwidth_gbps", samples(base_reps[r], 0.1, 10), true, r, 5);
    now.bench(kTriad, "bandwidth_gbps", samples(new_reps[r], 0.1, 10), true, r, 5);
  }
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  const auto& r = c.rows[0];
  EXPECT_TRUE(r.repetitions_tested);
  EXPECT_NEAR(r.change_pct, -8.0, 1e-9);
  ASSERT_TRUE(r.p_value);
  EXPECT_NEAR(*r.p_value, mann_whitney_u({100, 110, 90, 105, 95}, {92, 102, 82, 97, 87}).p_value, 1e-12);
  EXPECT_EQ(r.verdict, Verdict::kNoisy);
  // With fewer repetitions the pooled samples are tested.
  EXPECT_FALSE(compare_one(4000, 3600, 1, 20).rows[0].repetitions_tested);
}

TEST(Compare, ToleranceFileOverridesTheThreshold) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/tol.json", R"({"description": "collectives are noisy",
    "default_pct": 2, "families": {"memory/stream": {"pct": 15}}, "metrics": {"latency_us": 20}})");
  CompareOptions options;
  options.tolerances = load_tolerances(dir + "/tol.json");
  EXPECT_EQ(compare_one(4000, 3600, 1, 20, true, options).rows[0].verdict, Verdict::kSame);
  EXPECT_NEAR(compare_one(4000, 3600, 1, 20, true, options).rows[0].threshold_pct, 15, 1e-12);
  // A baseline file's compare_tolerance member works as well.
  testing::write_file(dir + "/base.json", R"({"gpubench_baseline": 1, "applies_to": {"gpu_model": "X"},
    "benchmarks": [], "compare_tolerance": {"suites": {"memory": 12}}})");
  EXPECT_EQ(*load_tolerances(dir + "/base.json").suites.at("memory").pct, 12);
}

// A host-side cost that healthy runs find at 0.17 or at 0.35 us: no percentage keeps that pair
// quiet and still catches a doubled cost, but a smallest change of 1.5 x the healthy spread does.
TEST(Compare, MinChangeKeepsAHealthyPairQuietAndCatchesADoubledCost) {
  CompareOptions options;
  options.tolerances.default_pct = 3;
  options.tolerances.names["launch/event/op:record/gpu:*"].min_change["record_us"] = 0.278;
  auto verdict = [&](double base, double now) {
    ResultBuilder b, n;
    b.bench("launch/event/op:record/gpu:gpu1", "record_us", samples(base, 2, 20), false);
    n.bench("launch/event/op:record/gpu:gpu1", "record_us", samples(now, 2, 20), false);
    return compare_runs(b.parse("base.json"), n.parse("new.json"), options).rows[0];
  };
  EXPECT_EQ(verdict(0.168, 0.353).verdict, Verdict::kSame);  // +110 %, within the healthy spread
  EXPECT_NEAR(verdict(0.168, 0.353).threshold_pct, 100 * 0.278 / 0.168, 1e-9);
  EXPECT_EQ(verdict(0.32, 0.64).verdict, Verdict::kRegressed);  // doubled: beyond any healthy figure
  EXPECT_EQ(verdict(0.353, 0.64).verdict, Verdict::kRegressed);
}

TEST(Compare, ControlCharactersInNamesArePrintedEscaped) {
  ResultBuilder base, now;
  const std::string name = "memory/stream/op:triad\n\x1b[2Jcompare: 0 regressed -> ok";
  base.bench(name, "bandwidth_gbps", samples(4000, 1, 10));
  now.bench(name, "bandwidth_gbps", samples(3000, 1, 10));
  const std::string table = render_comparison(compare_runs(base.parse(), now.parse(), {}), "table");
  EXPECT_EQ(table.find('\x1b'), std::string::npos);
  EXPECT_NE(table.find("op:triad\\n\\x1b[2Jcompare"), std::string::npos) << table;
}

TEST(Compare, ContextDifferencesExplainChanges) {
  ResultBuilder base, now;
  now.host("node02");
  now.gpubench_context()["driver_version"] = "570.86.10";
  now.gpubench_context()["cublas"] = "12.8.3";
  now.gpu(3)["power_limit_w"] = 600;
  now.gpu(3)["pcie"]["gen"] = 4;
  now.gpu(5)["nvlink"]["links_active"] = 17;
  now.gpu(0)["uuid"] = "GPU-other";
  const ResultFile a = base.parse(), b = now.parse();
  const auto diffs = context_differences({&a, &b});
  std::map<std::string, std::vector<std::string>> by_field;
  for (const auto& d : diffs) by_field[d.field] = d.values;
  EXPECT_EQ(by_field["driver"], (std::vector<std::string>{"560.35.03", "570.86.10"}));
  EXPECT_EQ(by_field["host"], (std::vector<std::string>{"node01", "node02"}));
  EXPECT_TRUE(by_field.count("cuBLAS"));
  EXPECT_TRUE(by_field.count("gpu3 power limit"));
  EXPECT_EQ(by_field["gpu3 PCIe"][1], "gen4 x16 (max gen5 x16)");
  EXPECT_TRUE(by_field.count("gpu5 NVLink"));
  EXPECT_TRUE(by_field.count("gpu0 uuid"));
  EXPECT_FALSE(by_field.count("CUDA runtime"));
  EXPECT_EQ(diffs.size(), 7u);
  ResultBuilder other_model(8, "NVIDIA H100 80GB HBM3");
  const ResultFile c = other_model.parse();
  const auto model = context_differences({&a, &c});
  EXPECT_EQ(model[0].field, "gpu0 model");
}

TEST(Compare, EnvironmentVariablesSetInEitherRunAreContext) {
  ResultBuilder base, now;
  base.gpubench_context()["environment"] = {{"NCCL_NVLS_ENABLE", "0"}};
  now.gpubench_context()["environment"] = {{"NCCL_NVLS_ENABLE", "0"}, {"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  const ResultFile a = base.parse(), b = now.parse();
  EXPECT_EQ(b.environment.at("CUDA_DEVICE_MAX_CONNECTIONS"), "1");
  const auto diffs = context_differences({&a, &b});
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].field, "env CUDA_DEVICE_MAX_CONNECTIONS");
  EXPECT_EQ(diffs[0].values, (std::vector<std::string>{"-", "1"}));
}

TEST(Compare, RenderingsShowChangedLinesFirst) {
  ResultBuilder base, now;
  base.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  base.bench(kLaunch, "latency_us", samples(4, 1, 10), false);
  now.bench(kTriad, "bandwidth_gbps", samples(3000, 1, 10));
  now.bench(kLaunch, "latency_us", samples(4, 1, 10), false);
  now.gpubench_context()["driver_version"] = "570.86.10";
  const Comparison c = compare_runs(base.parse("base.json"), now.parse("new.json"), {});
  const std::string table = render_comparison(c, "table");
  EXPECT_NE(table.find("Context differences"), std::string::npos);
  EXPECT_NE(table.find("570.86.10"), std::string::npos);
  EXPECT_NE(table.find("regressed"), std::string::npos);
  EXPECT_EQ(table.find(kLaunch), std::string::npos);  // unchanged: counted, not listed
  EXPECT_NE(table.find("1 unchanged"), std::string::npos);
  EXPECT_NE(table.find("compare: 1 regressed"), std::string::npos);
  const std::string md = render_comparison(c, "md");
  EXPECT_NE(md.find("| benchmark |"), std::string::npos);
  const auto json = nlohmann::json::parse(render_comparison(c, "json"));
  EXPECT_EQ(json["summary"]["regressed"], 1);
  EXPECT_EQ(json["summary"]["same"], 1);
  EXPECT_EQ(json["rows"].size(), 2u);  // JSON lists every line
  EXPECT_EQ(json["context_differences"][0]["new"], "570.86.10");
  EXPECT_TRUE(json["failed"].get<bool>());
}

}  // namespace
}  // namespace gpubench
