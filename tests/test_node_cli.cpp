// Node mode through the built binary (--concurrent, --solo-reference, the config's keys) with
// the CPU-only selftest/cpu_node_faults family: a node group whose worker hangs or crashes is
// stopped with its reason, the run goes on, and the exit code is 1. Nothing here needs a GPU.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace gpubench {
namespace {

using namespace gpubench::testing;
using nlohmann::json;

TEST(NodeCli, AGroupThatHangsOrCrashesIsStoppedAndTheRunGoesOn) {
  const std::string path = temp_dir() + "/node.json";
  const CommandResult r =
      run_gpubench("--suite selftest --filter 'cpu_node_faults/fault:(none|hang|crash|none_after)/' --devices 0 "
                   "--concurrent --timeout 2 --out " + path);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const json doc = json::parse(read_file(path));
  const auto& benchmarks = doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 4u) << doc.dump(2);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"selftest/cpu_node_faults/fault:none/mode:node/gpu:gpu0", "ok"},
      {"selftest/cpu_node_faults/fault:hang/mode:node/gpu:gpu0", "timeout"},
      {"selftest/cpu_node_faults/fault:crash/mode:node/gpu:gpu0", "failed"},
      {"selftest/cpu_node_faults/fault:none_after/mode:node/gpu:gpu0", "ok"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(benchmarks[i].at("name"), expected[i].first);
    EXPECT_EQ(benchmarks[i].at("gpubench").at("status"), expected[i].second) << benchmarks[i].dump(2);
  }
  EXPECT_EQ(benchmarks[0].at("gpubench").at("params").at("mode"), "node");
  EXPECT_EQ(benchmarks[0].at("gpubench").at("notes").at("node").at("gpus"), json({"gpu0"}));
  EXPECT_NE(benchmarks[2].at("gpubench").at("error").get<std::string>().find("signal 11"), std::string::npos);
}

// Three simulated GPUs (CPU-only lanes; without a GPU --devices is taken as given): gpu1's lane
// crashes, then hangs, in the middle of its samples while gpu0's and gpu2's sample beside it.
// Every GPU of the group is stopped with the worker's end, and the next benchmark runs on all three.
TEST(NodeCli, ALaneThatDiesOrHangsMidRunStopsItsGroupAndTheRunGoesOn) {
  const std::string path = temp_dir() + "/node.json";
  const CommandResult r = run_gpubench(
      "--suite selftest --filter 'cpu_node_faults/fault:(gpu1_crash_mid|gpu1_hang_mid|none_after)/' "
      "--devices 0,1,2 --concurrent --timeout 2 --out " + path);
  if (r.exit_code == 2 && r.err.find("--devices: no GPU") != std::string::npos)
    GTEST_SKIP() << "this machine has GPUs, but not three: " << r.err;
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const json doc = json::parse(read_file(path));
  std::map<std::string, json> by_name;
  for (const json& b : doc.at("benchmarks")) by_name[b.at("name")] = b.at("gpubench");
  ASSERT_EQ(by_name.size(), 9u) << doc.dump(2);
  for (const char* gpu : {"gpu0", "gpu1", "gpu2"}) {
    const std::string point = std::string("/mode:node/gpu:") + gpu;
    const json& crashed = by_name.at("selftest/cpu_node_faults/fault:gpu1_crash_mid" + point);
    EXPECT_EQ(crashed.at("status"), "failed") << crashed.dump(2);
    EXPECT_NE(crashed.at("error").get<std::string>().find("signal 11"), std::string::npos) << crashed.dump(2);
    const json& hung = by_name.at("selftest/cpu_node_faults/fault:gpu1_hang_mid" + point);
    EXPECT_NE(hung.at("status"), "ok") << hung.dump(2);
    const std::string why = hung.at("error");
    EXPECT_TRUE(why.find("no result within 2 s") != std::string::npos ||
                why.find("gpu1 did not reach the sample barrier") != std::string::npos) << why;
    const json& after = by_name.at("selftest/cpu_node_faults/fault:none_after" + point);
    EXPECT_EQ(after.at("status"), "ok") << after.dump(2);
    EXPECT_EQ(after.at("notes").at("node").at("gpus"), json({"gpu0", "gpu1", "gpu2"}));
  }
}

TEST(NodeCli, TheSoloReferenceRunsFirstAndGivesEachGpuItsRatio) {
  const std::string path = temp_dir() + "/node.json";
  const CommandResult r = run_gpubench(
      "--suite selftest --filter 'cpu_node_faults/fault:none/' --devices 0 --concurrent --solo-reference every --out " +
      path);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  const json doc = json::parse(read_file(path));
  const auto& benchmarks = doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 2u) << doc.dump(2);
  EXPECT_EQ(benchmarks[0].at("name"), "selftest/cpu_node_faults/fault:none/gpu:gpu0");
  EXPECT_EQ(benchmarks[1].at("name"), "selftest/cpu_node_faults/fault:none/mode:node/gpu:gpu0");
  const auto& node = benchmarks[1].at("gpubench");
  EXPECT_EQ(node.at("notes").at("node").at("solo_reference"), "selftest/cpu_node_faults/fault:none/gpu:gpu0");
  // One GPU in node mode is the solo run again: its ratio is near 1 (host sleeps of 100 us).
  const double ratio = node.at("metrics").at("solo_ratio").at("median");
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 2);
}

TEST(NodeCli, BadSoloReferenceIsBadUsage) {
  const CommandResult flag = run_gpubench("--suite selftest --filter cpu_node_faults --concurrent --solo-reference all");
  EXPECT_EQ(flag.exit_code, 2) << describe(flag);
  EXPECT_NE(flag.err.find("'all' is not a solo reference"), std::string::npos) << describe(flag);
  const std::string config = temp_dir() + "/node.json";
  write_file(config, R"({"suites": ["selftest"], "concurrent": "yes"})");
  const CommandResult key = run_gpubench("--config " + config);
  EXPECT_EQ(key.exit_code, 2) << describe(key);
  EXPECT_NE(key.err.find("/concurrent: expected true or false"), std::string::npos) << describe(key);
}

}  // namespace
}  // namespace gpubench
