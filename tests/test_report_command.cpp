// `gpubench report` end to end: its exit codes and bad input (one line on stderr, exit 2, the
// output file never half-written or replaced), and the pages of real H200 runs from results/
// rendered in headless Chromium (Debian's chromium; skipped with a message where it is absent,
// CI installs it through scripts/setup.sh) at 1280 px: the inline script ran without an error,
// every chart the data allows is on the page, every ok figure is in its table, and nothing is
// wider than the window.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "harness/model/result_file.h"
#include "harness/report/svg_chart.h"
#include "harness/model/text_table.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::CommandResult;
using testing::ResultBuilder;
using testing::run_gpubench;
using testing::samples;

const std::string kResults = std::string(GPUBENCH_SOURCE_DIR) + "/results/h200/";

void expect_one_line_bad_input(const CommandResult& r, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(ReportCommand, BadInputIsExitTwoAndWritesNothing) {
  const std::string dir = testing::temp_dir(), out = dir + "/report.html";
  expect_one_line_bad_input(run_gpubench("report " + dir + "/absent.json -o " + out), "absent.json");
  testing::write_file(dir + "/broken.json", "{\"context\": ");
  expect_one_line_bad_input(run_gpubench("report " + dir + "/broken.json -o " + out), "broken.json");
  EXPECT_FALSE(std::filesystem::exists(out));

  const std::string run = kResults + "2026-12-01-gemm.json";
  expect_one_line_bad_input(run_gpubench("report " + run + " " + run + " " + run + " -o " + out), "at most one");
  expect_one_line_bad_input(run_gpubench("report " + run + " " + run + " --baseline " + run + " -o " + out),
                            "at most one");
  expect_one_line_bad_input(run_gpubench("report " + run), "--out");
  expect_one_line_bad_input(run_gpubench("report " + run + " -o " + dir + "/no/such/dir/report.html"),
                            "cannot write");
  EXPECT_FALSE(std::filesystem::exists(out));
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(ReportCommand, AnEarlierReportStaysWhenTheInputIsBad) {
  const std::string dir = testing::temp_dir(), out = dir + "/report.html";
  testing::write_file(out, "earlier report");
  testing::write_file(dir + "/base.json", "[]");
  EXPECT_EQ(run_gpubench("report " + kResults + "2026-12-01-gemm.json --baseline " + dir + "/base.json -o " + out)
                .exit_code, 2);
  EXPECT_EQ(testing::read_file(out), "earlier report");
}

TEST(ReportCommand, ExitOneWhenTheComparisonItShowsFails) {
  const std::string dir = testing::temp_dir();
  ResultBuilder base(1), now(1);
  base.bench("memory/stream/op:triad/gpu:gpu0", "bandwidth_gbps", samples(4000, 0.5, 10));
  now.bench("memory/stream/op:triad/gpu:gpu0", "bandwidth_gbps", samples(3000, 0.5, 10));
  testing::write_file(dir + "/base.json", base.doc().dump());
  testing::write_file(dir + "/new.json", now.doc().dump());
  const CommandResult by_option =
      run_gpubench("report " + dir + "/new.json --baseline " + dir + "/base.json -o " + dir + "/a.html");
  EXPECT_EQ(by_option.exit_code, 1) << by_option.err;
  const CommandResult by_order = run_gpubench("report " + dir + "/base.json " + dir + "/new.json -o " + dir + "/b.html");
  EXPECT_EQ(by_order.exit_code, 1) << by_order.err;
  EXPECT_EQ(testing::read_file(dir + "/a.html"), testing::read_file(dir + "/b.html"));
  EXPECT_NE(testing::read_file(dir + "/a.html").find(">regressed</td>"), std::string::npos);
  EXPECT_EQ(run_gpubench("report " + dir + "/new.json --baseline " + dir + "/new.json -o " + dir + "/c.html").exit_code,
            0);
}

TEST(ReportCommand, BaselineFileOfAnotherModelIsExitTwo) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/h100.json", R"({"gpubench_baseline": 1, "applies_to": {"gpu_model": "NVIDIA H100"},
      "benchmarks": [{"pattern": "memory/stream/*", "floor": 1}]})");
  expect_one_line_bad_input(
      run_gpubench("report " + kResults + "2026-12-01-gemm.json --baseline " + dir + "/h100.json -o " + dir + "/r.html"),
      "NVIDIA H100");
}

// The DOM after the page's script ran, as headless Chromium dumps it, in a 1280 px wide window.
std::string dumped_dom(const std::string& html_path, const std::string& profile_dir) {
  const std::string command = "timeout 60 chromium --headless --no-sandbox --disable-gpu --window-size=1280,900 "
                              "--user-data-dir=" + profile_dir + " --dump-dom file://" + html_path + " 2>/dev/null";
  std::string dom;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[65536];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) dom.append(buffer, n);
    pclose(pipe);
  }
  return dom;
}

// The number in the root element's attribute, as the page's script wrote it; -1 when absent.
long root_number(const std::string& dom, const std::string& attribute) {
  const auto at = dom.find(attribute + "=\"");
  return at == std::string::npos ? -1 : std::strtol(dom.c_str() + at + attribute.size() + 2, nullptr, 10);
}

// Every ok figure of the run is in the table the browser shows: its row, not hidden, with the
// primary metric's median as the page prints it.
void expect_every_ok_figure(const std::string& dom, const std::string& run_path) {
  const ResultFile run = load_result_file(run_path);
  int checked = 0;
  for (const BenchmarkResult& b : run.benchmarks) {
    if (!b.ok()) continue;
    const auto row = dom.find("<tr data-name=\"" + xml_escape(b.name) + "\">");
    ASSERT_NE(row, std::string::npos) << run_path << ": no visible row for " << b.name;
    const std::string cells = dom.substr(row, dom.find("</tr>", row) - row);
    const double median = b.metrics.at(b.primary_metric).median;
    EXPECT_NE(cells.find("\">" + format_number(median) + "</td>"), std::string::npos) << b.name << ": " << cells;
    ++checked;
  }
  EXPECT_GT(checked, 0) << run_path;
}

struct BrowserCase {
  std::string args;
  std::vector<std::string> charts;  // every chart the data allows, or some where chart_count says more
  std::string figures_of;           // the run whose every ok figure the page must show
  std::size_t chart_count = 0;      // 0: as many as `charts`
};

TEST(ReportCommand, RealH200RunsRenderInHeadlessChromium) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs Debian's chromium): the report's "
                    "browser test is skipped";
  const std::string transfer[] = {"transfer-h2d", "transfer-d2h", "transfer-bidir", "transfer-device-local",
                                  "transfer-memcpy-latency-h2d", "transfer-memcpy-latency-d2h"};
  const std::vector<BrowserCase> cases = {
      {kResults + "2026-12-01-transfer.json", {std::begin(transfer), std::end(transfer)}, ""},
      {kResults + "2026-12-01-transfer.json " + kResults + "2026-12-01-transfer-run2.json --tolerance " +
           GPUBENCH_SOURCE_DIR + "/configs/tolerance.json",
       {std::begin(transfer), std::end(transfer)}, kResults + "2026-12-01-transfer-run2.json"},
      {kResults + "2026-12-01-gemm.json", {"gemm-precision", "gemm-sustained-clock", "gemm-sustained-power"}, ""},
      {kResults + "2026-12-02-acceptance-run1.json",
       {"memory-stream", "memory-latency", "transfer-h2d", "transfer-d2h", "transfer-bidir", "transfer-device-local",
        "transfer-memcpy-latency-h2d", "transfer-memcpy-latency-d2h", "launch-host", "launch-gpu", "launch-streams",
        "gemm-precision", "gemm-sustained-clock", "gemm-sustained-power"},
       kResults + "2026-12-02-acceptance-run1.json"},
      {kResults + "2026-12-01-memory.json", {"memory-stream-fp32", "memory-stream-fp64", "memory-latency"},
       kResults + "2026-12-01-memory.json"},
      {kResults + "2026-12-01-attention.json", {"attention-4-1-gpt2-bf16", "attention-16-0-llama3_8b-fp16"},
       kResults + "2026-12-01-attention.json", 24},  // a chart per model, batch, causal and type
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string dir = testing::temp_dir(), html = dir + "/report.html";
    const CommandResult r = run_gpubench("report " + cases[i].args + " -o " + html);
    ASSERT_EQ(r.exit_code, 0) << cases[i].args << ": " << r.err;
    const std::string page = testing::read_file(html);
    const std::string dom = dumped_dom(html, dir + "/profile");
    ASSERT_FALSE(dom.empty()) << "chromium printed no DOM for " << html;
    EXPECT_NE(dom.find("data-report=\"ready\""), std::string::npos) << cases[i].args << ": the script did not finish";
    EXPECT_EQ(dom.find("data-script-error=\""), std::string::npos) << cases[i].args;
    const std::size_t charts = cases[i].chart_count ? cases[i].chart_count : cases[i].charts.size();
    EXPECT_EQ(root_number(dom, "data-charts"), static_cast<long>(charts)) << cases[i].args;
    for (const std::string& id : cases[i].charts)
      EXPECT_NE(dom.find("id=\"chart-" + id + "\""), std::string::npos) << cases[i].args << ": " << id;
    // Nothing wider than the window: no table or chart runs off the page at 1280 px.
    const long viewport = root_number(dom, "data-viewport-width"), scroll = root_number(dom, "data-scroll-width");
    EXPECT_GT(viewport, 1000) << cases[i].args;
    EXPECT_LE(scroll, viewport) << cases[i].args << ": the page overflows horizontally";
    EXPECT_NE(dom.find("results</span>"), std::string::npos) << "the filter's count, written by the script";
    if (!cases[i].figures_of.empty()) expect_every_ok_figure(dom, cases[i].figures_of);
    if (i == 1) {
      EXPECT_NE(dom.find("id=\"verdicts\""), std::string::npos);
      EXPECT_NE(dom.find("(base)"), std::string::npos) << "the base run's curves";
      EXPECT_NE(dom.find("<th class=\" sortable\">vs base</th>"), std::string::npos);
    }
    EXPECT_EQ(page.find("data-report="), std::string::npos) << "the markers are the script's, not the file's";
  }
}

}  // namespace
}  // namespace gpubench
