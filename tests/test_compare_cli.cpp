// The compare command: its exit codes, its arguments and the shipped tolerance as the default.
#include <gtest/gtest.h>

#include "harness/cli/commands.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::expect_bad_input;
using testing::ResultBuilder;
using testing::samples;

const char* kTriad = "memory/stream/op:triad/type:fp32/array_bytes:1073741824";

testing::CliResult run_compare(std::vector<std::string> args) {
  args.insert(args.begin(), "compare");
  return testing::run_cli(add_compare_command, args);
}

std::string write_run(const ResultBuilder& b, const std::string& name) {
  const std::string path = testing::temp_dir() + "/" + name;
  testing::write_file(path, b.doc().dump());
  return path;
}

TEST(CompareCli, ExitCodes) {
  ResultBuilder base, same, worse;
  base.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  same.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  worse.bench(kTriad, "bandwidth_gbps", samples(3000, 1, 10));
  const std::string b = write_run(base, "base.json"), s = write_run(same, "same.json"),
                    w = write_run(worse, "worse.json");
  EXPECT_EQ(run_compare({b, s}).exit_code, kExitOk);
  const testing::CliResult regressed = run_compare({b, w, "--format", "json"});
  EXPECT_EQ(regressed.exit_code, kExitFailure);
  EXPECT_EQ(nlohmann::json::parse(regressed.out)["summary"]["regressed"], 1);
  EXPECT_EQ(run_compare({b, w, "--threshold", "30"}).exit_code, kExitOk);
  expect_bad_input([&] { run_compare({b}); }, "exactly two result files");
  expect_bad_input([&] { run_compare({b, b, b}); }, "exactly two result files");
  expect_bad_input([&] { run_compare({b, "/nonexistent/new.json"}); }, "/nonexistent/new.json: cannot read");
  expect_bad_input([&] { run_compare({b, s, "--tolerance", "/nonexistent/t.json"}); }, "cannot read");
  EXPECT_THROW(run_compare({b, s, "--format", "xml"}), CLI::ValidationError);
}

// compare uses the shipped configs/tolerance.json unless told otherwise: --tolerance none or a
// --threshold alone ask for one threshold everywhere; with a file, --threshold is its fallback.
TEST(CompareCli, TheShippedToleranceIsTheDefault) {
  ResultBuilder low, high;
  low.bench("launch/event/op:record/gpu:gpu3", "record_us", samples(0.168, 2, 16), false);
  high.bench("launch/event/op:record/gpu:gpu3", "record_us", samples(0.353, 2, 16), false);
  const std::string l = write_run(low, "low.json"), h = write_run(high, "high.json");
  const testing::CliResult shipped = run_compare({l, h, "--format", "json"});
  EXPECT_EQ(shipped.exit_code, kExitOk) << shipped.out;
  EXPECT_GT(nlohmann::json::parse(shipped.out)["rows"][0]["threshold_pct"].get<double>(), 110);
  EXPECT_EQ(run_compare({l, h, "--tolerance", "none"}).exit_code, kExitFailure);
  EXPECT_EQ(run_compare({l, h, "--threshold", "50"}).exit_code, kExitFailure);
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/memory.json", R"({"suites": {"memory": 4}})");
  EXPECT_EQ(run_compare({l, h, "--tolerance", dir + "/memory.json", "--threshold", "150"}).exit_code, kExitOk);
  testing::write_file(dir + "/misspelt.json", R"({"patterns": {"launch/event/op:recrd/gpu:*": 150}})");
  expect_bad_input([&] { run_compare({l, h, "--tolerance", dir + "/misspelt.json"}); },
                   "misspelt.json: /patterns/launch/event/op:recrd/gpu:*: matches no benchmark");
}

}  // namespace
}  // namespace gpubench
