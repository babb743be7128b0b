// The HTML report (harness/report/html_report.h) and the verdict tables it shows
// (harness/report/report_verdicts.h). The page of a small fixed run is compared byte for byte
// with tests/golden/report.html; GPUBENCH_UPDATE_GOLDEN=1 rewrites it (then review the diff,
// and look at it in a browser).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "harness/report/report_verdicts.h"
#include "harness/report/html_report.h"
#include "tests/chart_fixtures.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::ChartRunFixture;
using testing::ResultBuilder;
using testing::samples;

// The fixture run with everything a real run takes from the host fixed.
ResultBuilder golden_builder() {
  ResultBuilder b = testing::small_run();
  nlohmann::json& g = b.gpubench_context();
  g["command_line"] = "gpubench --suite transfer,gemm --out run.json";
  g["complete"] = true;
  return b;
}

std::string page_of(const ChartRunFixture& run, const std::optional<VerdictTable>& verdicts = std::nullopt,
                    const ChartRun* base = nullptr, const std::map<std::string, std::string>& changed = {}) {
  HtmlReportInput in;
  in.document = &run.document;
  in.figures = &run.figures;
  in.label = "run.json";
  in.verdicts = verdicts;
  in.charts = report_charts(run.view(), base, changed);
  in.compared = base != nullptr || !changed.empty();
  in.changed = changed;
  return render_html_report(in);
}

TEST(HtmlReport, GoldenPage) {
  nlohmann::json doc = golden_builder().doc();
  doc["context"]["date"] = "2026-12-01T08:00:00+0000";
  const ChartRunFixture run(doc, "run.json");
  const std::string html = page_of(run);
  const std::string path = std::string(GPUBENCH_SOURCE_DIR) + "/tests/golden/report.html";
  const char* update = std::getenv("GPUBENCH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    testing::write_file(path, html);
    GTEST_SKIP() << "rewrote " << path;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; GPUBENCH_UPDATE_GOLDEN=1 writes it";
  // Where they part, not two whole pages: a page is tens of kilobytes.
  const std::string golden = testing::read_file(path);
  const auto at = std::mismatch(html.begin(), html.end(), golden.begin(), golden.end()).first - html.begin();
  EXPECT_TRUE(html == golden) << "differs from " << path << " at byte " << at << ": \""
                              << html.substr(at > 80 ? at - 80 : 0, 160) << "\" (GPUBENCH_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(HtmlReport, SelfContainedNothingFetched) {
  const ChartRunFixture run(golden_builder().doc(), "run.json");
  std::string html = page_of(run);
  // The SVG namespace is a name, not a fetch.
  for (auto at = html.find("http://www.w3.org/2000/svg"); at != std::string::npos;
       at = html.find("http://www.w3.org/2000/svg"))
    html.erase(at, 26);
  for (const char* fetch : {"http:", "https:", "src=", "<link", "@import", "url(", "@font-face"})
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_NE(html.find("<script>"), std::string::npos);
}

TEST(HtmlReport, ContextSuitesChartsAndResultsNotOk) {
  const ChartRunFixture run(golden_builder().doc(), "run.json");
  const std::string html = page_of(run);
  for (const char* part : {"id=\"context\"", ">NVIDIA H200<", ">GPU-1000<", ">560.35.03<", ">9.5.1<",
                           "Links (as nvidia-smi topo -m)", "Health (at capture)", "id=\"suite-transfer\"",
                           "id=\"suite-gemm\"", "id=\"chart-transfer-h2d\"", "id=\"chart-gemm-precision\"",
                           "id=\"chart-gemm-sustained-clock\"", "verification failed: element 7",
                           "every tuning candidate failed", "1 skipped", "needs 2 GPUs (1 selected)"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  EXPECT_EQ(html.find("id=\"verdicts\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"suite-memory\""), std::string::npos) << "no memory results, no memory section";
}

TEST(HtmlReport, TextFromTheFileIsEscapedAndHealthUnknownsShown) {
  ResultBuilder b = golden_builder();
  b.host("node\u202e01\x1b[2J");
  b.gpu(0)["ecc_enabled"] = nullptr;
  b.bench("memory/stream/op:triad\u2066/gpu:gpu0", "bandwidth_gbps", samples(4000, 0.5, 10))
      .status_of_last("failed", "bad <b>\u202e</b>");
  const ChartRunFixture run(b.doc(), "run.json");
  const std::string html = page_of(run);
  for (const char* raw : {"\u202e", "\u2066", "\x1b", "<b>"}) EXPECT_EQ(html.find(raw), std::string::npos) << raw;
  for (const char* shown : {"node\\u202e01\\x1b[2J", "op:triad\\u2066", "bad &lt;b&gt;\\u202e&lt;/<wbr>b&gt;",
                            "<td>ecc</td><td>unknown</td>"})
    EXPECT_NE(html.find(shown), std::string::npos) << shown;
}

TEST(HtmlReport, CompareVerdictsHighlightChangedLines) {
  ResultBuilder base(1), now(1);
  base.bench("memory/stream/op:triad/gpu:gpu0", "bandwidth_gbps", samples(4000, 0.5, 10));
  base.bench("memory/stream/op:copy/gpu:gpu0", "bandwidth_gbps", samples(4000, 0.5, 10));
  base.bench("memory/stream/op:dot/gpu:gpu0", "bandwidth_gbps", samples(4000, 0.5, 10));
  now.bench("memory/stream/op:triad/gpu:gpu0", "bandwidth_gbps", samples(3000, 0.5, 10));
  now.bench("memory/stream/op:copy/gpu:gpu0", "bandwidth_gbps", samples(4000, 0.5, 10));
  now.bench("memory/stream/op:dot/gpu:gpu0", "bandwidth_gbps", {}).status_of_last("failed", "verification failed");
  const Comparison c = compare_runs(base.parse("base.json"), now.parse("new.json"), {});
  const VerdictTable t = verdict_table(c);
  EXPECT_TRUE(t.failed);
  EXPECT_EQ(t.title, "Compare: base base.json, new new.json");
  EXPECT_NE(t.summary.find("regressed 1"), std::string::npos);
  EXPECT_NE(t.summary.find(": FAIL"), std::string::npos);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][0], "regressed");
  EXPECT_EQ(t.row_tone[0], "bad");
  EXPECT_EQ(t.rows[1][0], "failed");
  EXPECT_EQ(t.row_tone[1], "bad");
  EXPECT_EQ(t.unchanged, 1);
  EXPECT_EQ(changed_benchmarks(c), (std::map<std::string, std::string>{{"memory/stream/op:dot/gpu:gpu0", "not_ok"},
                                                                       {"memory/stream/op:triad/gpu:gpu0", "regressed"}}));

  const ChartRunFixture run(now.doc(), "new.json");
  const std::string html = page_of(run, t, nullptr, changed_benchmarks(c));
  EXPECT_NE(html.find("<tr class=\"bad\"><td>regressed</td>"), std::string::npos);
  // The table marks it too: its row, and a column of verdicts against the base run.
  EXPECT_NE(html.find("<th>vs base</th>"), std::string::npos);
  const auto row = html.find("<tr class=\"bad\" data-name=\"memory/stream/op:triad/gpu:gpu0\">");
  ASSERT_NE(row, std::string::npos);
  EXPECT_NE(html.substr(row, html.find("</tr>", row) - row).find("<td class=\"flag\">regressed</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr data-name=\"memory/stream/op:copy/gpu:gpu0\">"), std::string::npos) << "unchanged: no tone";
  EXPECT_NE(html.find("<p class=\"verdict fail\">"), std::string::npos);
  EXPECT_NE(html.find("1 unchanged lines not shown."), std::string::npos);
}

// Every benchmark has a row, ok or not; a figure's cell carries its full value for the sort.
TEST(HtmlReport, TableOfEveryResultReadsWithoutScripts) {
  const ChartRunFixture run(golden_builder().doc(), "run.json");
  const std::string html = page_of(run);
  for (const BenchmarkResult& b : run.figures.benchmarks)
    EXPECT_NE(html.find(" data-name=\"" + xml_escape(b.name) + "\">"), std::string::npos) << b.name;
  EXPECT_NE(html.find("<section id=\"results\">"), std::string::npos);
  EXPECT_EQ(html.find("<th>vs base</th>"), std::string::npos) << "no base run";
  EXPECT_NE(html.find("<p class=\"filter\" hidden>"), std::string::npos) << "the filter box shows only with scripts";
  const auto row = html.find("data-name=\"gemm/matmul/type:bf16/m:8192/n:8192/k:8192/layout:tn/algo:best/gpu:gpu0\"");
  ASSERT_NE(row, std::string::npos);
  const std::string cells = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(cells.find("<td class=\"num\" data-v=\"850\">850.0</td><td>tflops</td>"), std::string::npos) << cells;
  EXPECT_NE(cells.find("<td>ok</td><td>yes</td><td>no</td>"), std::string::npos) << cells;
  EXPECT_NE(html.find("<tr class=\"bad\" data-name=\"gemm/matmul/type:fp8_e4m3"), std::string::npos);
}

TEST(HtmlReport, CheckVerdictsListEveryLine) {
  ResultBuilder run(1);
  run.bench("memory/stream/op:triad/gpu:gpu0", "bandwidth_gbps", samples(4000, 0.5, 10));
  const Baseline baseline = parse_baseline_text(R"({"gpubench_baseline": 1, "applies_to": {"gpu_model": "NVIDIA H200"},
      "benchmarks": [{"name": "memory/stream/op:triad/gpu:*", "metric": "bandwidth_gbps", "floor": 4500}]})",
                                                "h200.json");
  const VerdictTable t = verdict_table(check_run(baseline, run.parse("run.json")));
  EXPECT_TRUE(t.failed);
  EXPECT_EQ(t.title, "Check: run.json against h200.json");
  ASSERT_FALSE(t.rows.empty());
  EXPECT_EQ(t.rows[0][0], "fail");
  EXPECT_EQ(t.row_tone[0], "bad");
  EXPECT_EQ(t.rows[0][4], ">= 4500");
  EXPECT_NE(t.summary.find("fail 1"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
