// Which results go into which chart and series (harness/report/chart_data.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "harness/report/chart_rules.h"
#include "tests/chart_fixtures.h"
#include "tests/test_support.h"
#if GPUBENCH_HAVE_CUDA
#include "harness/core/family.h"
#endif

namespace gpubench {
namespace {

using testing::ChartRunFixture;
using testing::find_chart;
using testing::ResultBuilder;
using testing::samples;

const ChartSeries* find_series(const Chart& chart, const std::string& label) {
  for (const ChartSeries& s : chart.series)
    if (s.label == label) return &s;
  return nullptr;
}

TEST(ChartData, TransferSeriesPerEngineInSizeOrderWithTheFailedSizeCrossed) {
  const ChartRunFixture run(testing::small_run().doc(), "run.json");
  const auto charts = report_charts(run.view(), nullptr);
  const Chart* h2d = find_chart(charts, "transfer-h2d");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->x_format, AxisFormat::kBytes);
  EXPECT_EQ(h2d->y_label, "bandwidth (GB/s)");
  ASSERT_EQ(h2d->series.size(), 2u);
  const ChartSeries* ce = find_series(*h2d, "host:pinned, engine:ce");
  const ChartSeries* sm = find_series(*h2d, "host:pinned, engine:sm");
  ASSERT_TRUE(ce && sm);
  ASSERT_EQ(ce->points.size(), 3u);
  EXPECT_EQ(ce->points[0].x, 4096);
  EXPECT_EQ(ce->points[2].x, 268435456);
  EXPECT_NEAR(ce->points[1].y, 40, 1e-9);
  ASSERT_EQ(sm->points.size(), 3u);
  EXPECT_EQ(sm->points[2].mark, PointMark::kFailed) << "the failed size is a cross, no figure";
  EXPECT_EQ(sm->points[1].mark, PointMark::kMeasured);
  EXPECT_NE(ce->colour, sm->colour);
}

TEST(ChartData, AChartWithoutFiguresIsLeftOut) {
  const ChartRunFixture run(testing::small_run().doc(), "run.json");
  const auto charts = report_charts(run.view(), nullptr);
  EXPECT_EQ(find_chart(charts, "transfer-d2h"), nullptr);
  EXPECT_EQ(find_chart(charts, "transfer-peer"), nullptr) << "peer was skipped";
  EXPECT_EQ(find_chart(charts, "memory-stream"), nullptr);

  ResultBuilder failed_only(1);
  failed_only.bench("transfer/host_device/host:pinned/dir:h2d/engine:ce/numa:local/bytes:4096/gpu:gpu0",
                    "bandwidth_gbps", {}).status_of_last("failed", "exceeds the physical peak");
  const ChartRunFixture nothing(failed_only.doc(), "failed.json");
  EXPECT_TRUE(report_charts(nothing.view(), nullptr).empty());
}

TEST(ChartData, BaseRunAddsDashedCurvesInTheSameColoursAndNoChartOfItsOwn) {
  const ChartRunFixture run(testing::small_run().doc(), "new.json");
  ResultBuilder other(1);
  testing::add_h2d(other, "ce", 1.1);
  other.bench("transfer/host_device/host:pinned/dir:d2h/engine:ce/numa:local/bytes:4096/gpu:gpu0",
              "bandwidth_gbps", samples(3, 1, 5));
  const ChartRunFixture base(other.doc(), "base.json");
  const ChartRun base_view = base.view();
  const auto charts = report_charts(
      run.view(), &base_view, {{"transfer/host_device/host:pinned/dir:h2d/engine:ce/numa:local/bytes:4096/gpu:gpu0", "regressed"}});
  EXPECT_EQ(find_chart(charts, "transfer-d2h"), nullptr) << "only the base run has d2h figures";
  const Chart* h2d = find_chart(charts, "transfer-h2d");
  ASSERT_NE(h2d, nullptr);
  const ChartSeries* ce = find_series(*h2d, "host:pinned, engine:ce");
  const ChartSeries* ce_base = find_series(*h2d, "host:pinned, engine:ce (base)");
  ASSERT_TRUE(ce && ce_base);
  EXPECT_TRUE(ce_base->base_run);
  EXPECT_FALSE(ce->base_run);
  EXPECT_EQ(ce_base->colour, ce->colour);
  EXPECT_NEAR(ce_base->points[1].y, 44, 1e-9);
  EXPECT_EQ(ce->points[0].verdict, "regressed");
  EXPECT_EQ(ce->points[1].verdict, "");
  EXPECT_EQ(ce_base->points[0].verdict, "") << "only the run's own points are ringed";
}

TEST(ChartData, HbmChartPerTypeSliceWithTheL2AndTheKindOfPeakMarked) {
  ResultBuilder b(1);
  for (const char* type : {"fp32", "fp64"})
    for (long long bytes : {1048576LL, 4294967296LL}) {
      b.bench(std::string("memory/stream/op:triad/type:") + type + "/array_bytes:" + std::to_string(bytes) +
                  "/gpu:gpu0",
              "bandwidth_gbps", samples(bytes > 1e8 ? 4300 : 2000, 1, 5));
      if (bytes > 1e8) {
        b.last()["gpubench"]["peak"] = 4814.3;
        b.last()["gpubench"]["peak_source"] = "HBM: 2 x 3201 MHz x 6016 bit";
      }
    }
  const ChartRunFixture run(b.doc(), "memory.json");
  const auto charts = report_charts(run.view(), nullptr);
  const Chart* fp64 = find_chart(charts, "memory-stream-fp64");
  ASSERT_NE(fp64, nullptr);
  ASSERT_NE(find_chart(charts, "memory-stream-fp32"), nullptr);
  EXPECT_EQ(fp64->title, "HBM bandwidth against working set");
  EXPECT_EQ(fp64->subtitle, "type fp64");
  ASSERT_EQ(fp64->series.size(), 1u);
  EXPECT_EQ(fp64->series[0].label, "op:triad");
  ASSERT_EQ(fp64->x_markers.size(), 1u);
  EXPECT_EQ(fp64->x_markers[0].value, 62914560);
  EXPECT_EQ(fp64->x_markers[0].label, "L2 60 MiB");
  ASSERT_EQ(fp64->y_markers.size(), 1u);
  EXPECT_EQ(fp64->y_markers[0].label, "HBM peak 4814 gbps");
}

TEST(ChartData, LaunchStreamAgainstGraphHoldsTheOtherAxesFixed) {
  ResultBuilder b(1);
  for (int nodes : {1, 10, 1000})
    for (int streams : {1, 2}) {
      b.bench("launch/graph/process_streams:" + std::to_string(streams) + "/build:capture/nodes:" +
                  std::to_string(nodes) + "/arg_bytes:0/work:none/gpu:gpu0",
              "graph_host_launch_per_node_us", samples(nodes == 1 ? 2.5 : 0.6, 1, 5), false);
      b.metric_of_last("stream_host_enqueue_us", samples(2.2, 1, 5), false);
    }
  const ChartRunFixture run(b.doc(), "launch.json");
  const auto charts = report_charts(run.view(), nullptr);
  const Chart* host = find_chart(charts, "launch-host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->x_format, AxisFormat::kNumber);
  ASSERT_EQ(host->series.size(), 2u) << "process_streams:2 is held out";
  EXPECT_EQ(host->series[0].label, "stream enqueue");
  EXPECT_EQ(host->series[1].label, "graph launch");
  EXPECT_EQ(host->series[1].points.size(), 3u);
  EXPECT_NEAR(host->series[1].points[2].y, 0.6, 1e-9);
}

TEST(ChartData, GemmBestShapePerPrecisionBesideItsPeakAndFailedPrecisionsNamed) {
  const ChartRunFixture run(testing::small_run().doc(), "run.json");
  const auto charts = report_charts(run.view(), nullptr);
  const Chart* gemm = find_chart(charts, "gemm-precision");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, ChartKind::kBar);
  ASSERT_EQ(gemm->categories, (std::vector<std::string>{"bf16", "fp8_e4m3"}));
  ASSERT_EQ(gemm->category_notes, (std::vector<std::string>{"", "no figure: not ok"}));
  ASSERT_EQ(gemm->series.size(), 2u);
  ASSERT_EQ(gemm->series[0].points.size(), 1u);
  EXPECT_NEAR(gemm->series[0].points[0].y, 850, 1e-9) << "the best of the two shapes";
  EXPECT_NE(gemm->series[0].points[0].name.find("m:8192"), std::string::npos);
  EXPECT_EQ(gemm->series[1].label, "datasheet peak");
  ASSERT_EQ(gemm->series[1].points.size(), 1u);
  EXPECT_EQ(gemm->series[1].points[0].y, 989.4);
}

TEST(ChartData, ConvPeakFromTheContextsDatasheetTableWhereResultsCarryNone) {
  ResultBuilder b(1);
  b.gpubench_context()["peak"]["gpu0"] = {{"tflops", {{"fp16", 989.5}, {"fp32", 67.0}}}, {"tflops_source", "datasheet"}};
  for (const char* pass : {"fwd", "fwd_bwd"})
    b.bench(std::string("conv/network/net:resnet50/n:128/type:fp16/layout:nhwc/pass:") + pass + "/gpu:gpu0", "tflops",
            samples(330, 1, 5));
  const ChartRunFixture run(b.doc(), "conv.json");
  const auto charts = report_charts(run.view(), nullptr);
  const Chart* conv = find_chart(charts, "conv-network");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->series.size(), 3u);
  EXPECT_EQ(conv->series[0].label, "pass:fwd");
  EXPECT_EQ(conv->series[1].label, "pass:fwd_bwd");
  ASSERT_EQ(conv->series[2].points.size(), 1u);
  EXPECT_EQ(conv->series[2].points[0].y, 989.5);
}

TEST(ChartData, SustainedGemmClockAndPowerTraceFromItsSlices) {
  const ChartRunFixture run(testing::small_run().doc(), "run.json");
  const auto charts = report_charts(run.view(), nullptr);
  const Chart* clock = find_chart(charts, "gemm-sustained-clock");
  const Chart* power = find_chart(charts, "gemm-sustained-power");
  ASSERT_TRUE(clock && power);
  EXPECT_FALSE(clock->log_x);
  EXPECT_FALSE(clock->log_y);
  ASSERT_EQ(clock->series.size(), 1u);
  ASSERT_EQ(clock->series[0].points.size(), 3u);
  EXPECT_EQ(clock->series[0].points[1].x, 2.2);
  EXPECT_EQ(clock->series[0].points[1].y, 1635);
  EXPECT_EQ(power->series[0].points[0].y, 698.4);
  ASSERT_EQ(power->y_markers.size(), 1u);
  EXPECT_EQ(power->y_markers[0].label, "power limit 700 W");
  EXPECT_EQ(clock->y_markers[0].value, 1980);
}

TEST(ChartData, CollectiveBusBandwidthOrTheAlgorithmBandwidthOfOneRank) {
  ResultBuilder one_rank(1), two_ranks(2);
  for (long long bytes : {1024LL, 1048576LL}) {
    one_rank.bench("collective/all_reduce/type:fp32/redop:sum/place:out/bytes:" + std::to_string(bytes),
                   "algbw_gbps", samples(bytes / 1e4, 1, 5));
    two_ranks.bench("collective/all_reduce/type:fp32/redop:sum/place:out/bytes:" + std::to_string(bytes),
                    "busbw_gbps", samples(bytes / 1e4, 1, 5));
    two_ranks.metric_of_last("algbw_gbps", samples(bytes / 2e4, 1, 5));
    two_ranks.bench("collective/all_reduce/type:fp32/redop:max/place:out/bytes:" + std::to_string(bytes),
                    "busbw_gbps", samples(1, 1, 5));
  }
  const ChartRunFixture one(one_rank.doc(), "one.json"), two(two_ranks.doc(), "two.json");
  const auto one_charts = report_charts(one.view(), nullptr), two_charts = report_charts(two.view(), nullptr);
  EXPECT_EQ(find_chart(one_charts, "collective-all_reduce"), nullptr);
  ASSERT_NE(find_chart(one_charts, "collective-all_reduce-algbw"), nullptr);
  const Chart* bus = find_chart(two_charts, "collective-all_reduce");
  ASSERT_NE(bus, nullptr);
  EXPECT_EQ(find_chart(two_charts, "collective-all_reduce-algbw"), nullptr);
  ASSERT_EQ(bus->series.size(), 1u) << "redop:max is held out";
  EXPECT_EQ(bus->series[0].label, "type:fp32");
  EXPECT_EQ(bus->series[0].points.size(), 2u);
}

// Attention's many parameters: one small chart per model, type, causal and batch, with the
// implementations as its few series, never two dozen curves in one.
TEST(ChartData, OneSmallChartPerParameterSliceWithAFewSeries) {
  ResultBuilder b(1);
  for (const char* model : {"gpt2", "llama3_8b"})
    for (const char* causal : {"0", "1"})
      for (const char* impl : {"cudnn", "unfused"})
        for (int seq : {1024, 4096}) {
          b.bench(std::string("attention/forward/model:") + model + "/batch:4/seq:" + std::to_string(seq) +
                      "/causal:" + causal + "/impl:" + impl + "/type:bf16/gpu:gpu0",
                  "tflops", samples(impl[0] == 'c' ? 500 : 100, 1, 5));
          if (seq == 4096 && impl[0] == 'c') b.last()["gpubench"]["telemetry"]["throttled"] = true;
        }
  const ChartRunFixture run(b.doc(), "attention.json");
  const auto charts = report_charts(run.view(), nullptr);
  ASSERT_EQ(charts.size(), 4u) << "model x causal";
  const Chart* chart = find_chart(charts, "attention-1-llama3_8b");
  ASSERT_NE(chart, nullptr);
  EXPECT_EQ(chart->subtitle, "causal 1, model llama3_8b");
  ASSERT_EQ(chart->series.size(), 2u);
  EXPECT_EQ(chart->series[0].label, "impl:cudnn");
  ASSERT_EQ(chart->series[0].points.size(), 2u);
  EXPECT_EQ(chart->series[0].points[0].mark, PointMark::kMeasured);
  EXPECT_EQ(chart->series[0].points[1].mark, PointMark::kThrottled);
}

// Every family, axis and metric a chart rule names exists: families and axes in the registry
// where the build has the benches, and in every build each name quoted in its suite's sources
// (benches/<suite>/, and State's derived metrics), where families are registered and metrics
// declared (families declare no metrics to the registry).
std::vector<const CurveRule*> every_curve_rule() {
  std::vector<const CurveRule*> out;
  for (const CurveRule& r : curve_rules()) out.push_back(&r);
  return out;
}

std::string suite_sources(const std::string& family) {
  std::string text;
  const std::string dir = std::string(GPUBENCH_SOURCE_DIR) + "/benches/" + family.substr(0, family.find('/'));
  if (!std::filesystem::is_directory(dir)) return text;
  // suite.cpp, the declaration that holds the rules, quotes every name: the families' files must.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename() != "suite.cpp") text += testing::read_file(entry.path().string());
  // The metrics State derives for every family (bandwidth_gbps, tflops).
  return text + testing::read_file(std::string(GPUBENCH_SOURCE_DIR) + "/harness/core/state.cpp");
}

// A family is registered by its full name, or (collectives) by its suite and its quoted kind.
bool registers(const std::string& sources, const std::string& family) {
  return sources.find("\"" + family + "\"") != std::string::npos ||
         sources.find("\"" + family.substr(family.find('/') + 1) + "\"") != std::string::npos;
}

TEST(ChartRules, NameFamiliesAxesAndMetricsThatTheSuitesDeclare) {
  auto expect_quoted = [](const std::string& sources, const std::string& name, const std::string& rule) {
    EXPECT_NE(sources.find("\"" + name + "\""), std::string::npos) << rule << ": " << name;
  };
  for (const CurveRule* rule : every_curve_rule()) {
    const std::string sources = suite_sources(rule->family);
    EXPECT_TRUE(registers(sources, rule->family)) << rule->id;
    for (const SeriesMetric& m : rule->metrics) expect_quoted(sources, m.metric, rule->id);
    expect_quoted(sources, rule->x_param, rule->id);
    for (const std::string& axis : rule->series) expect_quoted(sources, axis, rule->id);
    for (const auto& [axis, value] : rule->fixed) expect_quoted(sources, axis, rule->id);
  }
  for (const BarRule& rule : bar_rules()) {
    const std::string sources = suite_sources(rule.family);
    EXPECT_TRUE(registers(sources, rule.family)) << rule.id;
    for (const std::string& name : {rule.metric, rule.category, rule.series_param})
      if (!name.empty()) expect_quoted(sources, name, rule.id);
  }
  for (const TraceRule& rule : trace_rules()) {
    const std::string sources = suite_sources(rule.family);
    EXPECT_TRUE(registers(sources, rule.family)) << rule.id;
    expect_quoted(sources, rule.quantity, rule.id);
  }
  EXPECT_FALSE(curve_rules().empty() || bar_rules().empty() || trace_rules().empty()) << "no suite declaration linked";
}

#if GPUBENCH_HAVE_CUDA
bool has_axis(const Family& family, const std::string& axis) {
  if (axis == "gpu" && family.is_per_device()) return true;
  return std::any_of(family.axes().begin(), family.axes().end(), [&](const Axis& a) { return a.name == axis; });
}

TEST(ChartRules, NameFamiliesAndAxesOfTheRegistry) {
  for (const CurveRule* rule : every_curve_rule()) {
    const Family* family = find_family(rule->family);
    ASSERT_NE(family, nullptr) << rule->id << ": " << rule->family;
    std::vector<std::string> axes = rule->series;
    axes.push_back(rule->x_param);
    for (const auto& [axis, value] : rule->fixed) axes.push_back(axis);
    for (const std::string& axis : axes) EXPECT_TRUE(has_axis(*family, axis)) << rule->id << ": " << axis;
  }
  for (const BarRule& rule : bar_rules()) {
    const Family* family = find_family(rule.family);
    ASSERT_NE(family, nullptr) << rule.id << ": " << rule.family;
    for (const std::string& axis : {rule.category, rule.series_param})
      if (!axis.empty()) EXPECT_TRUE(has_axis(*family, axis)) << rule.id << ": " << axis;
  }
  for (const TraceRule& rule : trace_rules()) EXPECT_NE(find_family(rule.family), nullptr) << rule.id;
}

// Every suite with families declares itself (benches/<suite>/suite.cpp), and every declaration
// is of a suite whose families this build has or leaves out for a missing library.
TEST(SuiteDeclarations, ComeWithTheSuitesOfTheRegistry) {
  const std::vector<std::string> declared = declared_suite_names();
  for (const std::string& suite : known_suites()) {
    // The tests' own hidden families (unittest/...) are not a suite of benches/.
    const bool of_benches = std::filesystem::exists(std::string(GPUBENCH_SOURCE_DIR) + "/benches/" + suite);
    if (of_benches) EXPECT_NE(std::find(declared.begin(), declared.end(), suite), declared.end()) << suite;
  }
  for (const SuiteDeclaration& suite : declared_suites())
    for (const auto& family : registered_families())
      if (family->suite() == suite.name) EXPECT_EQ(family->is_hidden(), suite.hidden) << family->name();
}
#endif

// A declaration per suite folder, in rank order, the hidden selftest left out of what `all` runs.
TEST(SuiteDeclarations, OnePerSuiteFolderInRankOrder) {
  std::vector<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GPUBENCH_SOURCE_DIR) + "/benches"))
    if (std::filesystem::exists(entry.path() / "suite.cpp")) folders.push_back(entry.path().filename().string());
  std::vector<std::string> declared = declared_suite_names();
  EXPECT_EQ(declared, (std::vector<std::string>{"memory", "transfer", "launch", "gemm", "conv", "attention", "collective",
                                                "scenarios", "selftest"}));
  std::sort(declared.begin(), declared.end());
  std::sort(folders.begin(), folders.end());
  EXPECT_EQ(declared, folders);
  EXPECT_EQ(report_suite_order().back(), "scenarios");
}

TEST(ChartData, ChartsComeSuiteBySuite) {
  const ChartRunFixture run(testing::small_run().doc(), "run.json");
  std::vector<std::string> ids;
  for (const ReportChart& c : report_charts(run.view(), nullptr)) ids.push_back(c.suite + ":" + c.chart.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"transfer:transfer-h2d", "gemm:gemm-precision", "gemm:gemm-sustained-clock",
                                           "gemm:gemm-sustained-power"}));
}

}  // namespace
}  // namespace gpubench
