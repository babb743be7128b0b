// `gpubench show`: a saved run renders as the live run it was written by rendered (table, CSV,
// markdown, Prometheus), through the same reporters; a filter selects benchmarks; a damaged or
// absent file is exit 2 with one line naming it.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/report_fixtures.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::run_gpubench;

const std::string kResults = std::string(GPUBENCH_SOURCE_DIR) + "/results/h200/";

TEST(ShowCommand, SavedRunRendersAsTheLiveRunDid) {
  const RunDocument live = testing::document_of(testing::one_gpu_context(), testing::mixed_results(), "gpubench");
  const std::string dir = testing::temp_dir(), saved = dir + "/run.json";
  testing::write_file(saved, to_json(live).dump(2));
  for (const auto& [name, format] : {std::pair{"table", Format::kTable}, {"csv", Format::kCsv},
                                     {"md", Format::kMarkdown}, {"prometheus", Format::kPrometheus}}) {
    const auto shown = run_gpubench(std::string("show ") + saved + " --format " + name);
    EXPECT_EQ(shown.exit_code, 0) << name << ": " << shown.err;
    EXPECT_EQ(shown.out, testing::render(live, format)) << name;
  }
}

TEST(ShowCommand, FilterSelectsBenchmarks) {
  const auto shown = run_gpubench("show " + kResults + "2026-12-02-acceptance-run1.json --filter 'memory/stream/op:triad'");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("memory/stream/op:triad"), std::string::npos);
  EXPECT_EQ(shown.out.find("gemm/"), std::string::npos);
}

TEST(ShowCommand, HtmlIsOnePage) {
  const auto shown = run_gpubench("show " + kResults + "2026-12-01-gemm.json --format html");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out.rfind("<!DOCTYPE html>", 0), 0u) << shown.out.substr(0, 80);
}

TEST(ShowCommand, BadInputIsExitTwoInOneLine) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/broken.json", "{\"context\": ");
  for (const std::string& args : {"show " + dir + "/absent.json", "show " + dir + "/broken.json",
                                  "show " + kResults + "2026-12-01-gemm.json --filter '('",
                                  "show " + kResults + "2026-12-01-gemm.json --format yaml"}) {
    const auto r = run_gpubench(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace gpubench
