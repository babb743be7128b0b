// Baseline files: the format and its errors, placeholder entries for any GPU count, the
// baseline writer and its command, and where the files a baseline names are found.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/analysis/check.h"
#include "tests/check_support.h"

namespace gpubench {
namespace {

using namespace testing::check;
using testing::expect_bad_input;
using testing::ResultBuilder;
using testing::samples;

TEST(Baseline, BadBaselinesNameFileAndPlace) {
  auto bad = [&](nlohmann::json doc, const std::string& fragment) {
    expect_bad_input([&] { parse_baseline(doc, "b.json"); }, fragment);
  };
  nlohmann::json doc = baseline_doc(any_entry());
  doc["aplies_to"] = 1;
  bad(doc, "b.json: /aplies_to: unknown field \"aplies_to\"");
  bad(baseline_doc({{{"name", kTriad}, {"flor", 1}}}), "b.json: /benchmarks/0/flor: unknown field");
  bad(baseline_doc({{{"pattern", "memory/[abc"}, {"floor", 1}}}), "/benchmarks/0/pattern: bad pattern");
  bad(baseline_doc({{{"pattern", "memory/[]"}, {"floor", 1}}}), "bad pattern");
  bad(baseline_doc({{{"pattern", "memory\\"}, {"floor", 1}}}), "trailing backslash");
  bad(baseline_doc({{{"name", "memory/*"}, {"floor", 1}}}), "use \"pattern\"");
  bad(baseline_doc({{{"name", "transfer/x/src:*/dst:*/gpu:*"}, {"floor", 1}}}), "at most two GPU placeholders");
  bad(baseline_doc({{{"name", "memory/x/gpu:*"}, {"floor", 1}, {"pairs", "unordered"}}}), "/benchmarks/0/pairs");
  bad(baseline_doc({{{"name", kTriad}, {"floor", 1}, {"min_gpus", 0}}}), "/benchmarks/0/min_gpus");
  bad(baseline_doc({{{"name", kTriad}, {"pattern", "x"}, {"floor", 1}}}), "exactly one of \"name\" and \"pattern\"");
  bad(baseline_doc({{{"name", kTriad}}}), "/benchmarks/0: give exactly one of \"floor\"");
  bad(baseline_doc({{{"name", kTriad}, {"floor", 1}, {"ceiling", 2}}}), "exactly one of \"floor\"");
  bad(baseline_doc({{{"name", kTriad}, {"floor", 1}, {"tolerance_pct", 2}}}), "goes with \"reference\"");
  bad(baseline_doc({{{"name", kTriad}, {"floor", "1"}}}), "/benchmarks/0/floor: expected a number");
  doc = baseline_doc(any_entry());
  doc["health"] = {{"ecc", "maybe"}};
  bad(doc, "/health/ecc: expected \"off\", \"warn\" or \"fail\"");
  doc = baseline_doc(any_entry());
  doc["gpubench_baseline"] = 2;
  bad(doc, "/gpubench_baseline: unsupported");
  doc = baseline_doc(any_entry());
  doc["run"] = {{"filter", "("}};
  bad(doc, "/run/filter: bad regex");
  doc = baseline_doc(any_entry());
  doc["applies_to"].erase("gpu_model");
  bad(doc, "/applies_to: missing required field \"gpu_model\"");
  expect_bad_input([] { parse_baseline_text("{\"gpubench_baseline\": 1,", "t.json"); }, "t.json: byte 25: ");
}

TEST(Baseline, WrittenFromRunsAndRoundTrips) {
  ResultBuilder a = healthy_run(), b, c;
  b.bench(kTriad, "bandwidth_gbps", samples(4500, 0.5, 10));
  b.bench(kLaunch, "latency_us", samples(5, 0.5, 10), false);
  b.bench(kCopy, "bandwidth_gbps", {}).status_of_last("failed", "mismatch");
  c.bench(kTriad, "bandwidth_gbps", samples(4300, 0.5, 10));
  c.bench(kLaunch, "latency_us", samples(4.5, 0.5, 10), false);
  c.bench("launch/event/op:cross_stream_wait", "wait_latency_us", {0.02, -0.01, 0.05}, false);
  c.last()["gpubench"]["metrics"]["wait_latency_us"]["difference"] = true;
  int skipped = 0;
  const Baseline made = make_baseline({a.parse(), b.parse(), c.parse()}, 10, "", &skipped);
  EXPECT_EQ(skipped, 2);  // copy failed in one run; wait_latency_us is a difference
  EXPECT_EQ(made.applies_to.gpu_model, "NVIDIA H200");
  EXPECT_EQ(made.applies_to.nvlinks_per_gpu, 18);
  EXPECT_EQ(made.applies_to.pcie_gen, 5);
  EXPECT_EQ(made.run.suites, (std::vector<std::string>{"launch", "memory"}));
  EXPECT_FALSE(made.run.quick);
  ResultBuilder quick = healthy_run();
  quick.gpubench_context()["command_line"] = "gpubench --suite memory --quick --out x.json";
  EXPECT_TRUE(make_baseline({quick.parse()}, 5, "").run.quick);
  ASSERT_EQ(made.expectations.size(), 2u);
  EXPECT_EQ(made.expectations[0].name, kLaunch);  // sorted by name
  EXPECT_EQ(made.expectations[0].bound, Bound::kCeiling);
  EXPECT_NEAR(made.expectations[0].value, 4.5 / 0.9, 1e-9);
  EXPECT_EQ(made.expectations[1].bound, Bound::kFloor);
  EXPECT_NEAR(made.expectations[1].value, 4400 * 0.9, 1e-9);
  const Baseline again = parse_baseline(to_json(made), "again.json");
  EXPECT_EQ(to_json(again), to_json(made));
  // A run holds against a baseline made from it.
  EXPECT_FALSE(check_run(again, a.parse()).failed());

  EXPECT_EQ(made.expectations[0].min_gpus, 8);  // a node-wide figure of an 8-GPU run
  EXPECT_EQ(make_baseline({a.parse()}, 5, "launch").expectations.size(), 1u);
  expect_bad_input([&] { make_baseline({a.parse()}, 5, "^gemm/"); }, "--filter \"^gemm/\" matches no benchmark");
  expect_bad_input([&] { make_baseline({a.parse()}, 5, "[unclosed"); }, "--filter: bad regex");
  expect_bad_input([&] { make_baseline({a.parse("h200.json"), ResultBuilder(8, "NVIDIA H100").parse("h100.json")}, 5, ""); },
                   "h100.json: GPU model \"NVIDIA H100\" differs from \"NVIDIA H200\" of h200.json");
}


TEST(Baseline, EmptyBaselinesAndNonPositiveBoundsAreBadInput) {
  expect_bad_input([] { baseline_of(nlohmann::json::array()); },
                   "h200.json: /benchmarks: no benchmarks: a baseline that expects nothing passes any node");
  expect_bad_input([] { baseline_of({{{"name", kTriad}, {"floor", 0}}}); },
                   "h200.json: /benchmarks/0/floor: a floor must be > 0 (found 0)");
  expect_bad_input([] { baseline_of({{{"name", kTriad}, {"floor", 1}}, {{"name", kLaunch}, {"ceiling", -2}}}); },
                   "h200.json: /benchmarks/1/ceiling: a ceiling must be > 0");
  expect_bad_input([] { baseline_of({{{"name", kTriad}, {"reference", -1}}}); }, "/benchmarks/0/reference");
}

// Per-GPU figures of an 8-GPU node (GPU 5 the slowest), pair figures both ways, one
// bidirectional figure per pair, and a node-wide figure.
ResultBuilder node_of(int gpus) {
  ResultBuilder run(gpus);
  for (int i = 0; i < gpus; ++i) {
    const std::string gpu = "gpu" + std::to_string(i);
    run.bench("memory/stream/op:triad/gpu:" + gpu, "bandwidth_gbps", samples(i == 5 ? 4300 : 4400, 0.5, 10));
    for (int j = 0; j < gpus; ++j) {
      if (i == j) continue;
      const std::string pair = "src:" + gpu + "/dst:gpu" + std::to_string(j);
      run.bench("transfer/peer/" + pair + "/dir:uni", "bandwidth_gbps", samples(360, 0.5, 10));
      if (i < j) run.bench("transfer/peer/" + pair + "/dir:bidir", "bandwidth_gbps", samples(700, 0.5, 10));
    }
  }
  if (gpus > 1) run.bench("transfer/all_to_all/bytes:1024", "bandwidth_gbps", samples(650, 0.5, 10));
  return run;
}

const Expectation& entry_named(const Baseline& b, const std::string& name) {
  for (const Expectation& e : b.expectations)
    if (e.name == name) return e;
  throw std::runtime_error("no entry " + name);
}

TEST(Baseline, PerGpuAndPairFiguresBecomePlaceholderEntries) {
  const Baseline made = make_baseline({node_of(8).parse()}, 10, "");
  ASSERT_EQ(made.expectations.size(), 4u);
  const Expectation& triad = entry_named(made, "memory/stream/op:triad/gpu:*");
  EXPECT_NEAR(triad.value, 4300 * 0.9, 1e-9);  // the slowest GPU sets the floor
  EXPECT_EQ(triad.gpus_needed(), 1);
  EXPECT_EQ(triad.note, "lowest of 8 medians, 4300.0 gbps over 1 run(s)");
  const Expectation& uni = entry_named(made, "transfer/peer/src:*/dst:*/dir:uni");
  EXPECT_FALSE(uni.unordered_pairs);
  EXPECT_EQ(uni.gpus_needed(), 2);
  EXPECT_TRUE(entry_named(made, "transfer/peer/src:*/dst:*/dir:bidir").unordered_pairs);
  EXPECT_EQ(entry_named(made, "transfer/all_to_all/bytes:1024").gpus_needed(), 8);
  const nlohmann::json written = to_json(made);
  EXPECT_EQ(to_json(parse_baseline(written, "again.json")), written);
  EXPECT_FALSE(written["applies_to"].contains("gpu_count"));

  // One baseline for every GPU count: a 1-GPU and a 2-GPU node pass it, every GPU checked.
  const CheckReport one = check_run(made, node_of(1).parse());
  EXPECT_FALSE(one.failed()) << render_check(one, "table");
  EXPECT_EQ(one.count(LineResult::kMissing), 0);
  const CheckReport two = check_run(made, node_of(2).parse());
  EXPECT_FALSE(two.failed()) << render_check(two, "table");
  // triad per GPU, uni per ordered pair, bidir, health, and the warning that no error counters were recorded
  EXPECT_EQ(two.lines.size(), 2u + 2u + 1u + 5u + 1u);
}

TEST(Baseline, LocatesNamedFilesBesideTheBaselineNotTheWorkingDirectory) {
  const std::string dir = ::gpubench::testing::temp_dir();
  std::filesystem::create_directories(dir + "/configs/baselines");
  std::filesystem::create_directories(dir + "/configs/acceptance");
  ::gpubench::testing::write_file(dir + "/configs/acceptance/h200.json", "{}");
  Baseline b = baseline_of(any_entry());
  b.path = dir + "/configs/baselines/h200.json";
  EXPECT_EQ(locate_baseline_file(b, "../acceptance/h200.json", {}), dir + "/configs/acceptance/h200.json");
  // The installation's configs/, with or without the leading "configs/".
  EXPECT_EQ(locate_baseline_file(b, "configs/acceptance/h200.json", {dir + "/configs"}),
            dir + "/configs/acceptance/h200.json");
  EXPECT_EQ(locate_baseline_file(b, dir + "/configs/acceptance/h200.json", {}), dir + "/configs/acceptance/h200.json");
  expect_bad_input([&] { locate_baseline_file(b, "configs/acceptance/h200.json", {}); },
                   "/run/config: cannot find \"configs/acceptance/h200.json\"");
}

TEST(BaselineCli, WritesALoadableBaseline) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/run.json", healthy_run().doc().dump());
  EXPECT_EQ(run_cli({"baseline", dir + "/run.json", "--tolerance", "5", "--out", dir + "/b.json"}), kExitOk);
  const Baseline b = load_baseline(dir + "/b.json");
  EXPECT_EQ(b.expectations.size(), 3u);
  EXPECT_EQ(run_cli({"check", "--baseline", dir + "/b.json", dir + "/run.json"}), kExitOk);
  EXPECT_THROW(run_cli({"baseline", dir + "/run.json"}), CLI::RequiredError);  // --tolerance
  expect_bad_input([&] { run_cli({"baseline", dir + "/absent.json", "--tolerance", "5"}); }, "cannot read");
  expect_bad_input([&] { run_cli({"baseline", dir + "/run.json", "--tolerance", "5", "--filter", "nothing"}); },
                   "matches no benchmark");
}

}  // namespace
}  // namespace gpubench
