// Tolerance files (configs/tolerance.json): the most specific threshold wins, malformed files and
// entries that name nothing are bad input naming the file and the place.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "harness/analysis/tolerances.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::expect_bad_input;
using testing::ResultBuilder;
using testing::samples;

const char* kTriad = "memory/stream/op:triad/type:fp32/array_bytes:1073741824";
const char* kLaunch = "launch/empty/mode:sync";

TEST(Tolerances, ToleranceLookupMostSpecificFirst) {
  Tolerances t;
  t.default_pct = 4;
  t.metrics["latency_us"] = 6;
  t.suites["memory"].pct = 7;
  t.suites["memory"].metrics["time_us"] = 8;
  t.families["memory/stream"].pct = 9;
  t.families["memory/stream"].metrics["bandwidth_gbps"] = 10;
  BenchmarkResult stream, copy, launch, gemm;
  stream.suite = copy.suite = "memory";
  stream.family = "memory/stream";
  copy.family = "memory/copy";
  launch.suite = "launch";
  launch.family = "launch/empty";
  EXPECT_EQ(t.pct_for(stream, "bandwidth_gbps", 3), 10);  // family's metric
  EXPECT_EQ(t.pct_for(stream, "time_us", 3), 9);          // family
  EXPECT_EQ(t.pct_for(copy, "time_us", 3), 8);            // suite's metric
  EXPECT_EQ(t.pct_for(copy, "bandwidth_gbps", 3), 7);     // suite
  EXPECT_EQ(t.pct_for(launch, "latency_us", 3), 6);       // metric
  EXPECT_EQ(t.pct_for(launch, "time_us", 3), 4);          // file default
  EXPECT_EQ(Tolerances{}.pct_for(launch, "time_us", 3), 3);  // command line
}

TEST(Tolerances, BadToleranceFilesNameFileAndPlace) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/a.json", R"({"suits": {"memory": 5}})");
  expect_bad_input([&] { load_tolerances(dir + "/a.json"); }, dir + "/a.json: /suits: unknown field");
  testing::write_file(dir + "/b.json", R"({"families": {"gemm/matmul": {"pct": -1}}})");
  expect_bad_input([&] { load_tolerances(dir + "/b.json"); }, "/families/gemm~1matmul/pct");
  testing::write_file(dir + "/c.json", R"({"metrics": {"tflops": "5"}})");
  expect_bad_input([&] { load_tolerances(dir + "/c.json"); }, "/metrics/tflops: expected a number");
}

TEST(Tolerances, ToleranceEntriesThatNameNothingAreBadInput) {
  ResultBuilder run;
  run.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  run.bench(kLaunch, "latency_us", samples(4, 1, 10), false);
  const ResultFile r = run.parse();
  auto tolerances = [](const std::string& text) { return parse_tolerances(JsonAt(nlohmann::json::parse(text), "t.json")); };
  auto bad = [&](const std::string& text, const std::string& fragment) {
    expect_bad_input([&] { validate_tolerances(tolerances(text), "t.json", {&r}); }, fragment);
  };
  bad(R"({"suites": {"memroy": 5}})", "t.json: /suites/memroy: no suite \"memroy\"");
  bad(R"({"families": {"memory/strem": 5}})", "t.json: /families/memory/strem: no family");
  bad(R"({"patterns": {"memory/strem/op:triad/*": 5}})", "/patterns/memory/strem/op:triad/*: no family");
  bad(R"({"patterns": {"memroy/*": 5}})", "/patterns/memroy/*: no suite \"memroy\"");
  bad(R"({"metrics": {"bandwith_gbps": 5}})", "/metrics/bandwith_gbps: no benchmark of the compared files");
  bad(R"({"families": {"memory/stream": {"metrics": {"tflops": 5}}}})", "/families/memory/stream/metrics/tflops");
  // Suites the files do not hold may still be named: one tolerance file serves partial runs.
  EXPECT_NO_THROW(validate_tolerances(
      tolerances(R"({"suites": {"launch": 15, "gemm": 5}, "families": {"transfer/peer": 4},
                     "patterns": {"transfer/host_device/host:pageable/*": 25, "memory/stream/*": 4}})"),
      "t.json", {&r}));
  // The shipped file holds against a memory run of its own names.
  EXPECT_NO_THROW(validate_tolerances(load_tolerances(std::string(GPUBENCH_SOURCE_DIR) + "/configs/tolerance.json"),
                                      "configs/tolerance.json", {}));
}

}  // namespace
}  // namespace gpubench
