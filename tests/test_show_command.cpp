// `gpubench show`: a saved run renders as the live run it was written by rendered (table, CSV,
// markdown, Prometheus), through the same reporters; a saved comparison as compare rendered it;
// a filter selects benchmarks; a damaged or absent file, or one that is neither, is exit 2 with
// one line naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

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

// The renders committed beside the H200 acceptance run are what this build's show prints.
TEST(ShowCommand, TheCommittedRendersAreWhatShowPrints) {
  const std::string run = kResults + "2026-12-02-acceptance-run1";
  for (const auto& [format, ext] : {std::pair{"csv", "csv"}, {"prometheus", "prom"}, {"md", "md"}, {"html", "html"}}) {
    const auto shown = run_gpubench("show " + run + ".json --format " + format);
    ASSERT_EQ(shown.exit_code, 0) << format << ": " << shown.err;
    EXPECT_TRUE(shown.out == testing::read_file(run + "." + ext))
        << run << "." << ext << " is not what show prints; regenerate it (docs/outputs.md, \"Committed renders\")";
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

// Runs gpubench in `dir`, so that the files it names (and so its output) are the same on every
// machine.
testing::CommandResult run_in(const std::string& dir, const std::string& args) {
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  const auto result = run_gpubench(args);
  std::filesystem::current_path(before);
  return result;
}

// BASE and NEW with a line of every kind: regressed, improved, same, not ok, skipped in both,
// missing and new.
std::string write_compared_pair() {
  const std::string dir = testing::temp_dir();
  std::vector<BenchResult> base = testing::mixed_results(), now = testing::mixed_results();
  now[0].metrics["bandwidth_gbps"].values = {3000, 3010, 2990};  // triad: 25 % slower
  now[1].metrics["bandwidth_gbps"].values = {3500, 3510, 3490};  // dot: faster
  now[2] = testing::ok_result(now[2].name, 4000);                // copy: ok now, failed before
  now[3] = testing::bad_result(base[0].name + "x", Status::kFailed, "new and broken");
  base.push_back(testing::ok_result("memory/stream/op:add/gpu:gpu0", 4000));  // missing from NEW
  for (const auto& [name, results] : {std::pair{"base.json", &base}, {"new.json", &now}})
    testing::write_file(dir + "/" + name,
                        to_json(testing::document_of(testing::one_gpu_context(), *results, "gpubench")).dump(2));
  return dir;
}

TEST(ShowCommand, SavedComparisonRendersAsCompareDid) {
  const std::string corpus = std::string(GPUBENCH_SOURCE_DIR) + "/tests/corpus/choice_gemm_all_changed";
  for (const std::string& dir : {write_compared_pair(), corpus}) {
    const std::string saved = testing::temp_dir() + "/compare.json";
    testing::write_file(saved, run_in(dir, "compare base.json new.json --format json").out);
    for (const std::string format : {"table", "md", "json", "csv", "html"}) {
      const auto live = run_in(dir, "compare base.json new.json --format " + format);
      ASSERT_TRUE(live.exit_code == 0 || live.exit_code == 1) << format << ": " << live.err;
      const auto shown = run_gpubench("show " + saved + " --format " + format);
      EXPECT_EQ(shown.exit_code, 0) << format << ": " << shown.err;
      EXPECT_EQ(shown.out, live.out) << dir << " " << format;
      if (dir != corpus && format != "html") testing::expect_golden(shown.out, "compare." + format);
    }
  }
}

TEST(ShowCommand, SavedComparisonIsFilteredByBenchmark) {
  const std::string dir = write_compared_pair();
  testing::write_file(dir + "/compare.json", run_in(dir, "compare base.json new.json --format json").out);
  const auto shown = run_gpubench("show " + dir + "/compare.json --format csv --filter op:triad");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("op:triad"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("op:dot"), std::string::npos) << shown.out;
}

TEST(ShowCommand, AFileThatIsNeitherARunNorAComparisonIsExitTwo) {
  const std::string dir = write_compared_pair();
  nlohmann::json comparison = nlohmann::json::parse(run_in(dir, "compare base.json new.json --format json").out);
  comparison["failed"] = !comparison["failed"].get<bool>();
  testing::write_file(dir + "/lying.json", comparison.dump());
  comparison["schema"] = "gpubench-compare/9";
  testing::write_file(dir + "/future.json", comparison.dump());
  testing::write_file(dir + "/list.json", "[1, 2]");
  const std::string baseline = std::string(GPUBENCH_SOURCE_DIR) + "/configs/baselines/h200.json";
  for (const auto& [file, says] : {std::pair{baseline, "neither a run"}, {dir + "/list.json", "neither a run"},
                                   {dir + "/lying.json", "/failed: says"}, {dir + "/future.json", "unsupported schema"}}) {
    const auto r = run_gpubench("show " + file);
    EXPECT_EQ(r.exit_code, 2) << file << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << file;
    EXPECT_NE(r.err.find(says), std::string::npos) << file << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << file << ": " << r.err;
  }
  testing::write_file(dir + "/compare.json", run_in(dir, "compare base.json new.json --format json").out);
  const auto prometheus = run_gpubench("show " + dir + "/compare.json --format prometheus");
  EXPECT_EQ(prometheus.exit_code, 2) << prometheus.err;
  EXPECT_NE(prometheus.err.find("a comparison renders as"), std::string::npos) << prometheus.err;
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
