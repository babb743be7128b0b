// Tolerance files (configs/tolerance.json): the most specific threshold wins, min_change widens a
// threshold by the figure's own noise, malformed files and entries that name nothing are bad input
// naming the file and the place, and the shipped file is derived, right and used by default.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
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
}

Tolerances tolerances_of(const std::string& text) {
  return parse_tolerances(JsonAt(nlohmann::json::parse(text), "t.json"));
}

BenchmarkResult benchmark(const std::string& name) {
  BenchmarkResult b;
  b.name = name;
  b.suite = name.substr(0, name.find('/'));
  b.family = name.substr(0, name.find('/', b.suite.size() + 1));
  return b;
}

// gpu:* in a pattern stands for every GPU, as in baselines; an exact name means that benchmark
// only; the most specific entry wins: exact name, placeholder name, longest glob.
TEST(Tolerances, PatternsByNameWithGpuPlaceholdersAndGlobs) {
  const Tolerances t = tolerances_of(R"({"default_pct": 3, "families": {"launch/event": 50},
      "patterns": {"launch/event/op:record/gpu:*": 10, "launch/event/op:record/gpu:gpu2": 20,
                   "launch/event/*": 30, "launch/*": 40, "transfer/peer/src:*/dst:*/bytes:4": 5}})");
  EXPECT_EQ(t.names.size(), 3u);
  EXPECT_EQ(t.patterns.size(), 2u);
  EXPECT_EQ(t.pct_for(benchmark("launch/event/op:record/gpu:gpu0"), "record_us", 3), 10);
  EXPECT_EQ(t.pct_for(benchmark("launch/event/op:record/gpu:gpu7"), "record_us", 3), 10);
  EXPECT_EQ(t.pct_for(benchmark("launch/event/op:record/gpu:gpu2"), "record_us", 3), 20);
  EXPECT_EQ(t.pct_for(benchmark("launch/event/op:record_timing/gpu:gpu1"), "record_us", 3), 30);
  EXPECT_EQ(t.pct_for(benchmark("launch/sync/gpu:gpu1"), "round_trip_us", 3), 40);
  EXPECT_EQ(t.pct_for(benchmark("transfer/peer/src:gpu3/dst:gpu1/bytes:4"), "bandwidth_gbps", 3), 5);
  // A glob's gpu:* is fnmatch's: node totals (gpu:all) too; a placeholder stands for GPUs only.
  EXPECT_EQ(t.pct_for(benchmark("launch/event/op:record/gpu:all"), "record_us", 3), 30);
  expect_bad_input([] { tolerances_of(R"({"patterns": {"launch/[event/*": 5}})"); }, "bad pattern");
}

// min_change: a change must exceed the percentage and the figure's smallest counted change, so
// a figure whose healthy value moves by a fixed amount is quiet yet a doubled cost is caught.
TEST(Tolerances, MinChangeWidensTheThresholdByTheFiguresNoise) {
  const Tolerances t = tolerances_of(R"({"default_pct": 3,
      "families": {"launch/graph": {"min_change": {"gpu_reduction_pct": 12}}},
      "patterns": {"launch/event/op:record/gpu:*": {"pct": 3, "min_change": {"record_us": 0.278}}}})");
  const BenchmarkResult record = benchmark("launch/event/op:record/gpu:gpu4");
  EXPECT_DOUBLE_EQ(t.min_change_for(record, "record_us"), 0.278);
  EXPECT_EQ(t.min_change_for(record, "time_us"), 0);
  // From 0.168 us a healthy run may read 0.353 us: +110 %, under 0.278 / 0.168 = 165 %.
  EXPECT_NEAR(t.threshold_for(record, "record_us", 0.168, false, 3), 165.476, 1e-3);
  // From 0.32 us a doubled cost (+100 %) exceeds 0.278 / 0.32 = 87 %.
  EXPECT_NEAR(t.threshold_for(record, "record_us", 0.32, false, 3), 86.875, 1e-3);
  // A large figure keeps the percentage: 0.278 is 0.03 % of 1000.
  EXPECT_EQ(t.threshold_for(record, "record_us", 1000, false, 3), 3);
  EXPECT_EQ(t.threshold_for(record, "record_us", 0, false, 3), 3);
  EXPECT_EQ(t.threshold_for(benchmark("launch/graph/nodes:1/gpu:gpu0"), "gpu_reduction_pct", 40, true, 3), 12);
  expect_bad_input([] { tolerances_of(R"({"families": {"launch/graph": {"min_change": {"x_us": -1}}}})"); },
                   "/families/launch~1graph/min_change/x_us: a min_change is a change >= 0");
}

// A node-mode figure measures what its solo figure does: without an entry of its own it takes
// the solo entry; a node total, whose sum spreads up to N times as far, its min_change times N.
TEST(Tolerances, NodeFiguresBorrowTheirSoloFiguresEntry) {
  const Tolerances t = tolerances_of(R"({"default_pct": 3,
      "patterns": {"launch/event/op:record/gpu:*": {"pct": 4, "min_change": {"record_us": 0.278}},
                   "memory/stream/op:triad/gpu:*": {"pct": 2, "min_change": {"bandwidth_gbps": 50}},
                   "memory/stream/op:triad/mode:node/gpu:gpu3": 9}})");
  EXPECT_EQ(t.pct_for(benchmark("launch/event/op:record/mode:node/gpu:gpu5"), "record_us", 3), 4);
  EXPECT_DOUBLE_EQ(t.min_change_for(benchmark("launch/event/op:record/mode:node/gpu:gpu5"), "record_us"), 0.278);
  EXPECT_EQ(t.pct_for(benchmark("memory/stream/op:triad/mode:node/gpu:gpu3"), "bandwidth_gbps", 3), 9);
  BenchmarkResult total = benchmark("memory/stream/op:triad/mode:node/gpu:all");
  total.node_gpus = 8;
  EXPECT_EQ(t.pct_for(total, "bandwidth_gbps", 3), 2);
  EXPECT_DOUBLE_EQ(t.min_change_for(total, "bandwidth_gbps"), 400);
  EXPECT_EQ(t.pct_for(benchmark("memory/stream/op:copy/mode:node/gpu:gpu0"), "bandwidth_gbps", 3), 3);
}

TEST(Tolerances, DerivedFromRecordsTheRunsAndRoundTrips) {
  const Tolerances t = tolerances_of(R"({"description": "d", "derived_from": {"runs": 2, "files": [
      {"file": "results/h200/a.json", "date": "2026-12-01T12:42:59+0000", "git_commit": "4bd851f0c753",
       "gpu": "NVIDIA H200", "command": "--suite memory"}, {"file": "results/h200/b.json"}]},
      "patterns": {"memory/stream/op:triad/gpu:*": {"pct": 3, "min_change": {"bandwidth_gbps": 60}}}})");
  ASSERT_TRUE(t.derived_from);
  EXPECT_EQ(t.derived_from->size(), 2u);
  EXPECT_EQ((*t.derived_from)[0].git_commit, "4bd851f0c753");
  const Tolerances again = parse_tolerances(JsonAt(to_json(t), "again.json"));
  EXPECT_EQ(again.derived_from->size(), 2u);
  EXPECT_DOUBLE_EQ(again.names.at("memory/stream/op:triad/gpu:*").min_change.at("bandwidth_gbps"), 60);
  expect_bad_input([] { tolerances_of(R"({"derived_from": {"runs": 3, "files": [{"file": "a"}]}})"); },
                   "/derived_from/runs: says 3 runs, \"files\" lists 1");
  expect_bad_input([] { tolerances_of(R"({"derived_from": {"runs": 1, "files": [{"date": "x"}]}})"); },
                   "/derived_from/files/0: missing");
}

// Within the suites the files hold, every entry must name something of them; a suite they lack
// is not applied (one file serves partial runs), and a derived file's patterns for benchmarks of
// other sweeps are not applied either.
TEST(Tolerances, EntriesWithinThePresentSuitesMustMatch) {
  ResultBuilder run;
  run.bench("launch/event/op:record/gpu:gpu0", "record_us", samples(0.3, 1, 10), false);
  run.bench("launch/event/op:record/gpu:gpu1", "record_us", samples(0.3, 1, 10), false);
  run.bench("launch/sync/wait:stream_sync/gpu:gpu0", "round_trip_us", samples(9, 1, 10), false);
  run.bench("launch/graph/nodes:1/gpu:gpu0", "graph_us", {}, false).status_of_last("failed", "boom");
  run.bench("launch/stream/figure:enqueue/gpu:gpu0", "host_enqueue_us", samples(2, 1, 10), false);
  run.bench("launch/stream/figure:round_trip/gpu:gpu0", "round_trip_us", {}, false).status_of_last("timeout", "60 s");
  const ResultFile r = run.parse();
  auto bad = [&](const std::string& text, const std::string& fragment) {
    expect_bad_input([&] { validate_tolerances(tolerances_of(text), "t.json", {&r}); }, fragment);
  };
  auto good = [&](const std::string& text) { EXPECT_NO_THROW(validate_tolerances(tolerances_of(text), "t.json", {&r})); };
  bad(R"({"patterns": {"launch/event/op:recrd/gpu:*": 5}})",
      "t.json: /patterns/launch/event/op:recrd/gpu:*: matches no benchmark of the compared files");
  bad(R"({"patterns": {"launch/event/opp:record/gpu:*": 5}})", "no axis \"opp\" in launch/event (its axes: gpu, op)");
  bad(R"({"patterns": {"launch/event/op:record/*": {"min_change": {"record_s": 1}}}})",
      "/patterns/launch/event/op:record/*/min_change/record_s: no benchmark");
  bad(R"({"patterns": {"*/op:recrd/*": 5}})", "/patterns/*/op:recrd/*: matches no benchmark");
  bad(R"({"families": {"launch/sync": {"metrics": {"record_us": 5}}}})", "(they have: round_trip_us)");
  // A family with a failed benchmark: which metrics that one would have had is unknown.
  good(R"({"patterns": {"launch/event/op:record/gpu:*": {"pct": 3, "min_change": {"record_us": 0.2}},
                        "launch/event/op:record/gpu:gpu1": 9, "*/op:record/*": 5},
           "families": {"launch/graph": {"metrics": {"anything_us": 5}}, "launch/stream": {"metrics": {"round_trip_us": 5}}},
           "suites": {"memory": {"metrics": {"bandwidth_gbps": 4}}, "collective": 20}})");
  const std::string derived = R"("derived_from": {"runs": 1, "files": [{"file": "x.json"}]})";
  good("{" + derived + R"(, "families": {"launch/graph_update": 5},
        "patterns": {"launch/event/op:record_timing/gpu:*": 5, "launch/multi_stream/streams:1/gpu:*": 5}})");
  bad("{" + derived + R"(, "patterns": {"launch/event/opp:record/gpu:*": 5}})", "no axis \"opp\"");
  bad("{" + derived + R"(, "patterns": {"launch/event/op:record/gpu:*": {"min_change": {"record_s": 1}}}})",
      "min_change/record_s");
}

std::string source_path(const std::string& relative) { return std::string(GPUBENCH_SOURCE_DIR) + "/" + relative; }

// The shipped file is derived from same-build runs committed in the tree, every entry of it names
// a benchmark and metric of those runs, it serves every GPU of a node, and the nightly compare of
// an acceptance run holds against it.
// The derivation reads the gzipped runs of results/ too; the loader reads plain JSON.
ResultFile load_committed_run(const std::string& file) {
  const std::string path = source_path(file);
  if (file.size() < 3 || file.compare(file.size() - 3, 3, ".gz") != 0) return load_result_file(path);
  const std::string plain = testing::temp_dir() + "/run.json";
  if (std::system(("gzip -dc '" + path + "' > '" + plain + "'").c_str()) != 0)
    throw std::runtime_error("gzip -dc " + path + " failed");
  return load_result_file(plain);
}

TEST(ShippedTolerance, IsDerivedFromCommittedRunsAndNamesOnlyWhatTheyHold) {
  Tolerances shipped = load_tolerances(source_path("configs/tolerance.json"));
  ASSERT_TRUE(shipped.derived_from);
  std::vector<ResultFile> runs;
  std::set<std::string> sets;
  for (const Tolerances::Source& source : *shipped.derived_from) {
    runs.push_back(load_committed_run(source.file));
    EXPECT_EQ(runs.back().versions["git_commit"], source.git_commit) << source.file;
    sets.insert(source.git_commit + " " + source.command);
  }
  EXPECT_GE(sets.size(), 4u);  // memory, launch, transfer and collective, at least
  for (const auto& [name, scope] : shipped.names)
    EXPECT_EQ(name.find("gpu:gpu"), std::string::npos) << name << ": write gpu:*, so every GPU is covered";
  std::vector<const ResultFile*> all;
  for (const ResultFile& run : runs) all.push_back(&run);
  shipped.derived_from.reset();  // held as if written by hand: every entry must name something
  EXPECT_NO_THROW(validate_tolerances(shipped, "configs/tolerance.json", all));

  const ResultFile acceptance = load_result_file(source_path("results/h200/2026-12-01-acceptance.json"));
  EXPECT_NO_THROW(tolerances_for(source_path("configs/tolerance.json"), {&acceptance, &acceptance}));
}

TEST(ShippedTolerance, IsTheDefaultAndNoneSwitchesItOff) {
  ResultBuilder run;
  run.bench("launch/event/op:record/gpu:gpu3", "record_us", samples(0.3, 1, 10), false);
  const ResultFile r = run.parse();
  // The user wrote none of the shipped entries: those that name nothing here are not applied.
  const Tolerances by_default = tolerances_for("", {&r});
  EXPECT_TRUE(by_default.derived_from);
  EXPECT_GT(by_default.min_change_for(r.benchmarks[0], "record_us"), 0);
  EXPECT_TRUE(tolerances_for("none", {&r}).names.empty());
  expect_bad_input([&] { tolerances_for("/nonexistent/t.json", {&r}); }, "cannot read");
}

}  // namespace
}  // namespace gpubench
