// `gpubench report` end to end: its exit codes and bad input (one line on stderr, exit 2, the
// output file never half-written or replaced), and the pages of real H200 runs from results/
// rendered in headless Chromium (Debian's chromium; skipped with a message where it is absent,
// CI installs it through scripts/setup.sh): the inline script ran without an error and every
// chart the data allows is on the page.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

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

// The DOM after the page's script ran, as headless Chromium dumps it.
std::string dumped_dom(const std::string& html_path, const std::string& profile_dir) {
  const std::string command = "timeout 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir=" +
                              profile_dir + " --dump-dom file://" + html_path + " 2>/dev/null";
  std::string dom;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[65536];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) dom.append(buffer, n);
    pclose(pipe);
  }
  return dom;
}

struct BrowserCase {
  std::string args;
  std::vector<std::string> charts;  // every chart the data allows
};

TEST(ReportCommand, RealH200RunsRenderInHeadlessChromium) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs Debian's chromium): the report's "
                    "browser test is skipped";
  const std::vector<BrowserCase> cases = {
      {kResults + "2026-12-01-transfer.json",
       {"transfer-h2d", "transfer-d2h", "transfer-bidir", "transfer-device-local"}},
      {kResults + "2026-12-01-transfer.json " + kResults + "2026-12-01-transfer-run2.json --tolerance " +
           GPUBENCH_SOURCE_DIR + "/configs/tolerance.json",
       {"transfer-h2d", "transfer-d2h", "transfer-bidir", "transfer-device-local"}},
      {kResults + "2026-12-01-gemm.json", {"gemm-precision", "gemm-sustained-clock", "gemm-sustained-power"}},
      {kResults + "2026-12-01-acceptance.json",
       {"memory-stream-fp64", "memory-latency", "transfer-h2d", "transfer-d2h", "transfer-bidir",
        "transfer-device-local", "launch-host", "launch-gpu", "gemm-precision", "gemm-sustained-clock",
        "gemm-sustained-power"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string dir = testing::temp_dir(), html = dir + "/report.html";
    const CommandResult r = run_gpubench("report " + cases[i].args + " -o " + html);
    ASSERT_EQ(r.exit_code, 0) << cases[i].args << ": " << r.err;
    const std::string dom = dumped_dom(html, dir + "/profile");
    ASSERT_FALSE(dom.empty()) << "chromium printed no DOM for " << html;
    EXPECT_NE(dom.find("data-report=\"ready\""), std::string::npos) << cases[i].args << ": the script did not finish";
    EXPECT_EQ(dom.find("data-script-error=\""), std::string::npos) << cases[i].args;
    EXPECT_NE(dom.find("data-charts=\"" + std::to_string(cases[i].charts.size()) + "\""), std::string::npos)
        << cases[i].args;
    for (const std::string& id : cases[i].charts)
      EXPECT_NE(dom.find("id=\"chart-" + id + "\""), std::string::npos) << cases[i].args << ": " << id;
    if (i == 1) {
      EXPECT_NE(dom.find("id=\"verdicts\""), std::string::npos);
      EXPECT_NE(dom.find("(base)"), std::string::npos) << "the base run's curves";
    }
  }
}

}  // namespace
}  // namespace gpubench
