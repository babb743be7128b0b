// Node mode's engine on simulated GPUs: CPU-only per-GPU families run as node groups in this
// process, one thread per "GPU", through the barrier every sample passes; the plan's names and
// order; the barrier itself with lanes that finish, fail or never arrive.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "harness/core/node_barrier.h"
#include "harness/model/node_figures.h"
#include "harness/run/node_accounting.h"
#include "harness/run/node_plan.h"
#include "harness/run/runner.h"

namespace gpubench {
namespace {

// "gpu1" misbehaves in the faulty cases; every lane's sample is a host sleep, so the lanes'
// spans overlap only as far as the barrier starts them together.
const Family& node_family = family("unittest/node")
                                .axis_str("case", {"healthy", "throws", "hangs", "healthy_after"})
                                .per_device()
                                .cpu_only()
                                .hidden()
                                .run([](State& s) {
                                  const bool misbehaves = s.device() == 1;
                                  if (misbehaves && s.get_str("case") == "throws") throw std::runtime_error("boom");
                                  if (misbehaves && s.get_str("case") == "hangs")
                                    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                                  s.declare_metric("ops_per_s", "1/s", true);
                                  s.measure_host([&] {
                                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                                    s.record("ops_per_s", 500.0 * (s.device() + 1));
                                  });
                                  s.verify(true, "nothing to check");
                                });

struct Recorded : ResultSink {
  std::vector<std::string> names_started;
  std::vector<BenchResult> results;
  void started(const std::string& name, int) override { names_started.push_back(name); }
  void finished(const BenchResult& result) override { results.push_back(result); }
};

struct NodeModeTest : ::testing::Test {
  NodeModeTest() {
    ExpandOptions expand;
    expand.devices = {0, 1, 2};
    solo = node_family.expand(expand);
    settings.devices = expand.devices;
    settings.stop.max_time_s = 0.1;
    settings.stop.min_samples = 5;
    settings.warmup_s = 0.001;
    settings.timeout_s = 0.5;  // the barrier's wait for a peer
  }
  // The node instances of one case, in GPU order.
  std::vector<const Instance*> node_case(const std::string& which) {
    plan = node_mode_plan(solo, SoloReference::kNone, 0);
    std::vector<const Instance*> out;
    for (const Instance& instance : plan)
      if (instance.params.str("case") == which) out.push_back(&instance);
    return out;
  }
  std::vector<Instance> solo, plan;
  RunSettings settings;
  Context context;
};

TEST_F(NodeModeTest, PlanNamesNodeFiguresAndPutsEachPointsSoloReferenceFirst) {
  const auto first = node_mode_plan(solo, SoloReference::kFirst, 0);
  ASSERT_EQ(first.size(), 4u + 12u);  // per point: a solo run on gpu0, then every GPU in node mode
  EXPECT_EQ(first[0].name, "unittest/node/case:healthy/gpu:gpu0");
  EXPECT_EQ(first[1].name, "unittest/node/case:healthy/mode:node/gpu:gpu0");
  EXPECT_EQ(first[1].params.to_json().dump(), R"({"case":"healthy","gpu":"gpu0","mode":"node"})");
  EXPECT_EQ(first[1].params.values[1].first, "mode");  // before the GPU axis, as in the name
  EXPECT_EQ(first[3].device, 2);
  EXPECT_EQ(first[4].name, "unittest/node/case:throws/gpu:gpu0");
  EXPECT_EQ(node_mode_plan(solo, SoloReference::kEvery, 0).size(), 12u + 12u);
  EXPECT_EQ(node_mode_plan(solo, SoloReference::kNone, 0).size(), 12u);
  std::vector<const Instance*> pointers;
  for (const Instance& instance : first) pointers.push_back(&instance);
  const auto groups = node_groups(pointers);
  ASSERT_EQ(groups.size(), 4u + 4u);  // each solo instance alone, each node point its 3 GPUs
  EXPECT_EQ(groups[0].size(), 1u);
  EXPECT_EQ(groups[1].size(), 3u);
  EXPECT_EQ(groups[1][2]->name, "unittest/node/case:healthy/mode:node/gpu:gpu2");
  EXPECT_THROW(solo_reference_from("all", "solo_reference"), UsageError);
}

// Launch's process_streams:1 points need a worker that has made one stream: they come before the
// :2 points in the family, and node mode keeps that order for the solo and the node runs.
TEST_F(NodeModeTest, EveryReferenceKeepsTheFamilysPointOrder) {
  const auto every = node_mode_plan(solo, SoloReference::kEvery, 0);
  std::vector<std::string> cases;
  for (const Instance& instance : every)
    if (cases.empty() || cases.back() != instance.params.str("case")) cases.push_back(instance.params.str("case"));
  EXPECT_EQ(cases, (std::vector<std::string>{"healthy", "throws", "hangs", "healthy_after"}));
  EXPECT_FALSE(is_node_instance(every[2]));
  EXPECT_TRUE(is_node_instance(every[3]));
}

TEST_F(NodeModeTest, AFamilyWhoseRequirementIsUnmetStaysOneSkippedInstance) {
  Instance skipped{solo.front().family, "unittest/node", {}, 0, {}};
  skipped.skip_reason = "needs 2 GPUs, 1 selected";
  const auto plan_of_skipped = node_mode_plan({skipped}, SoloReference::kEvery, 0);
  ASSERT_EQ(plan_of_skipped.size(), 1u);
  EXPECT_EQ(plan_of_skipped[0].name, "unittest/node");
  EXPECT_EQ(plan_of_skipped[0].skip_reason, skipped.skip_reason);
}

TEST_F(NodeModeTest, SamplesStartTogetherStopTogetherAndOverlap) {
  bool poisoned = true;
  const auto results = run_node_group(node_case("healthy"), settings, context, 0, poisoned);
  EXPECT_FALSE(poisoned);
  ASSERT_EQ(results.size(), 3u);
  const std::size_t samples = results[0].metrics.at("time_us").values.size();
  EXPECT_GE(samples, 5u);
  for (const BenchResult& result : results) {
    EXPECT_EQ(result.status, Status::kOk) << result.error;
    // The stopping rule is the node's: no GPU stops while another samples.
    EXPECT_EQ(result.metrics.at("time_us").values.size(), samples) << result.name;
    const auto& node = result.notes.at("node");
    EXPECT_EQ(node.at("gpus"), nlohmann::json({"gpu0", "gpu1", "gpu2"}));
    // 2 ms sleeps released together: most of each span has every peer sampling beside it.
    EXPECT_GT(node.at("overlap_pct").get<double>(), 50) << node.dump();
    EXPECT_LE(node.at("overlap_pct").get<double>(), 100);
    EXPECT_NE(node.at("overlap_method").get<std::string>().find("host steady clock"), std::string::npos);
  }
}

TEST_F(NodeModeTest, ALaneThatFailsStopsTheOthersWithItsReason) {
  bool poisoned = true;
  const auto results = run_node_group(node_case("throws"), settings, context, 0, poisoned);
  EXPECT_FALSE(poisoned);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[1].status, Status::kFailed);
  EXPECT_EQ(results[1].error, "boom");
  for (std::size_t lane : {0u, 2u}) {
    EXPECT_EQ(results[lane].status, Status::kFailed);
    EXPECT_EQ(results[lane].error, "node run stopped: gpu1 failed: boom");
    EXPECT_FALSE(results[lane].notes.at("node").contains("overlap_pct"));
  }
}

TEST_F(NodeModeTest, ALaneThatHangsIsWaitedForOnlyUntilTheTimeout) {
  bool poisoned = true;
  const auto start = std::chrono::steady_clock::now();
  const auto results = run_node_group(node_case("hangs"), settings, context, 0, poisoned);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
  ASSERT_EQ(results.size(), 3u);
  for (const BenchResult& result : results) EXPECT_EQ(result.status, Status::kFailed) << result.name;
  EXPECT_EQ(results[0].error, "node run stopped: gpu1 did not reach the sample barrier within 0.5 s");
  EXPECT_EQ(results[2].error, results[0].error);
  EXPECT_EQ(results[1].error, results[0].error);  // it arrives late to a broken barrier
}

TEST_F(NodeModeTest, InProcessRunGoesOnPastAFailedGroup) {
  plan = node_mode_plan(solo, SoloReference::kNone, 0);
  std::vector<const Instance*> pointers;
  for (const Instance& instance : plan)
    if (instance.params.str("case") != "hangs") pointers.push_back(&instance);
  Recorded sink;
  EXPECT_EQ(run_in_process(pointers, settings, context, sink), InProcessEnd::kCompleted);
  ASSERT_EQ(sink.results.size(), 9u);
  EXPECT_EQ(sink.names_started.size(), 9u);
  EXPECT_EQ(sink.results[4].status, Status::kFailed);
  for (std::size_t i : {6u, 7u, 8u}) EXPECT_EQ(sink.results[i].status, Status::kOk) << sink.results[i].name;
}

TEST_F(NodeModeTest, AccountingAddsRatiosBridgesAndTheNodeTotal) {
  context.gpus.resize(3);
  for (int i = 0; i < 3; ++i) context.gpus[i].index = i;
  context.gpus[0].pcie_path = {"0000:10:00.0", "0000:00:01.0"};  // a switch port, then the root port
  context.gpus[1].pcie_path = {"0000:10:00.0", "0000:00:01.0"};  // a switch port, then the root port
  context.gpus[2].pcie_path = {"0000:00:02.0"};
  NodeAccounting accounting(context, {0, 1, 2});
  Recorded sink;
  plan = node_mode_plan(solo, SoloReference::kFirst, 0);
  std::vector<const Instance*> pointers = {&plan[0], &plan[1], &plan[2], &plan[3]};
  ASSERT_EQ(run_in_process(pointers, settings, context, sink), InProcessEnd::kCompleted);
  std::vector<BenchResult> totals;
  for (BenchResult& result : sink.results) {
    accounting.annotate(result);
    if (auto total = accounting.total_after(result)) totals.push_back(*total);
  }
  ASSERT_EQ(totals.size(), 1u);
  const BenchResult& total = totals[0];
  EXPECT_EQ(total.name, "unittest/node/case:healthy/mode:node/gpu:all");
  EXPECT_EQ(total.status, Status::kOk);
  // 500, 1000 and 1500 ops/s on the three GPUs; time_us is not a rate: the slowest GPU's.
  EXPECT_DOUBLE_EQ(total.metrics.at("ops_per_s").summary().median, 3000);
  EXPECT_GE(total.metrics.at("time_us").summary().median, 2000);
  const auto& gpu1 = sink.results[2].notes.at("node");
  EXPECT_EQ(gpu1.at("solo_reference"), "unittest/node/case:healthy/gpu:gpu0");
  ASSERT_TRUE(sink.results[2].metrics.count("solo_ratio"));
  EXPECT_GT(sink.results[2].metrics.at("solo_ratio").summary().median, 0.5);  // 2 ms sleeps alone and together
  EXPECT_EQ(gpu1.at("shares_pcie_bridge_with"), nlohmann::json({{"gpu0", "0000:10:00.0"}}));
  EXPECT_FALSE(sink.results[3].notes.at("node").contains("shares_pcie_bridge_with"));
}

TEST(NodeBarrier, EveryLaneWaitsForTheLastAndTheVoteIsAnyLanes) {
  NodeBarrier barrier({"gpu0", "gpu1"}, 5);
  std::atomic<bool> other_returned{false};
  bool other_vote = false;
  std::thread other([&] {
    other_vote = barrier.arrive(1, false);
    other_returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(other_returned);  // held until gpu0 arrives
  EXPECT_TRUE(barrier.arrive(0, true));
  other.join();
  EXPECT_TRUE(other_vote);  // gpu0 wanted another sample: both take it
}

TEST(NodeBarrier, ALaneThatLeavesIsNotWaitedFor) {
  NodeBarrier barrier({"gpu0", "gpu1", "gpu2"}, 5);
  std::thread waiting([&] { EXPECT_FALSE(barrier.arrive(0, false)); });
  barrier.leave(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(barrier.arrive(1, false));
  waiting.join();
  NodeBarrier pair({"gpu0", "gpu1"}, 5);
  std::thread alone([&] { EXPECT_TRUE(pair.arrive(0, true)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  pair.leave(1);  // the one waiting is now all there is
  alone.join();
}

TEST(NodeBarrier, AFailureOrATimeoutStopsEveryLane) {
  NodeBarrier failing({"gpu0", "gpu1"}, 5);
  std::thread waiting([&] { EXPECT_THROW(failing.arrive(0, true), NodeStopped); });
  failing.fail(1, "verification failed");
  waiting.join();
  try {
    failing.arrive(0, true);
    FAIL() << "a broken barrier let a lane through";
  } catch (const NodeStopped& stopped) {
    EXPECT_STREQ(stopped.what(), "node run stopped: gpu1 failed: verification failed");
  }
  NodeBarrier slow({"gpu0", "gpu1", "gpu2"}, 0.2);
  std::thread late([&] { EXPECT_THROW(slow.arrive(2, true), NodeStopped); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  try {
    slow.arrive(0, true);
    FAIL() << "no timeout";
  } catch (const NodeStopped& stopped) {
    EXPECT_STREQ(stopped.what(), "node run stopped: gpu1 did not reach the sample barrier within 0.2 s");
  }
  late.join();
}

}  // namespace
}  // namespace gpubench
