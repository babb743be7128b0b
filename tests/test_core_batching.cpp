// batch_size: operations per sample for a target sample time, as State::measure sizes its
// samples; probe_batch: how State::measure_batched probes a family's work, on fake work whose
// time the test chooses.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "harness/core/batching.h"

namespace gpubench {
namespace {

TEST(CoreBatching, OperationsFillTheTargetTime) {
  EXPECT_EQ(batch_size(1e-5, 1e-3, 1000), 100);
  EXPECT_EQ(batch_size(1e-3, 2e-3, 100), 2);
  EXPECT_EQ(batch_size(3e-4, 1e-3, 1000), 4);  // rounded up: a sample at least the target
}

TEST(CoreBatching, AtLeastOneAtMostTheLimit) {
  EXPECT_EQ(batch_size(5e-3, 1e-3, 1000), 1);
  EXPECT_EQ(batch_size(20e-3, 2e-3, 100), 1);
  EXPECT_EQ(batch_size(1e-9, 1e-3, 1000), 1000);
  EXPECT_EQ(batch_size(1e-6, 2e-3, 100), 100);
  EXPECT_EQ(batch_size(1e-6, 2e-3, 0), 1);  // a limit below one still batches one
}

TEST(CoreBatching, UnknownTimeIsOneOperation) {
  EXPECT_EQ(batch_size(0, 1e-3, 1000), 1);
  EXPECT_EQ(batch_size(0, 2e-3, 100), 1);
  EXPECT_EQ(batch_size(-1, 1e-3, 1000), 1);
  EXPECT_EQ(batch_size(std::nan(""), 1e-3, 1000), 1);
}

// Fake work: `op_s` per operation, the first call `cold_s` slower; every call's ops kept.
struct FakeWork {
  double op_s = 1e-5;
  double cold_s = 0;
  std::vector<int> calls;
  double operator()(int ops) {
    calls.push_back(ops);
    return ops * op_s + (calls.size() == 1 ? cold_s : 0);
  }
};

TEST(CoreBatching, TheFastestProbeSizesTheBatchForTheRulesTarget) {
  FakeWork work;
  work.cold_s = 1e-3;  // loading: the first probe is 100 x slower
  BatchRule rule;
  rule.target_s = 1e-3;
  rule.probes = 3;
  EXPECT_EQ(probe_batch(std::ref(work), rule, 5.0), 100);
  EXPECT_EQ(work.calls, (std::vector<int>{1, 1, 1}));
}

TEST(CoreBatching, TheFamilysTargetAppliesWhereTheRuleSetsNone) {
  FakeWork work;
  EXPECT_EQ(probe_batch(std::ref(work), BatchRule{}, 2e-4), 20);  // RunSettings' 200 us
}

TEST(CoreBatching, ProbesOfSeveralOperationsAreDividedAndTheLimitHolds) {
  FakeWork work;
  work.op_s = 1e-6;
  BatchRule rule;
  rule.target_s = 1e-3;
  rule.max_ops = 400;
  rule.probes = 2;
  rule.probe_ops = 20;
  EXPECT_EQ(probe_batch(std::ref(work), rule, 0), 400);  // 1000 wanted, at most 400
  EXPECT_EQ(work.calls, (std::vector<int>{20, 20}));
}

TEST(CoreBatching, ARefinedBatchIsSizedAgainFromASampleOfTheFirstGuess) {
  FakeWork work;
  work.cold_s = 3e-5;  // an unheld first call's enqueue: 40 us where a held op takes 10 us
  BatchRule rule;
  rule.target_s = 2e-3;
  rule.refine = true;
  EXPECT_EQ(probe_batch(std::ref(work), rule, 0), 200);
  EXPECT_EQ(work.calls, (std::vector<int>{1, 50}));  // 2 ms / 40 us, then 2 ms / 10 us
}

TEST(CoreBatching, WorkOfUnknownTimeIsNotBatched) {
  BatchRule rule;
  rule.target_s = 1e-3;
  EXPECT_EQ(probe_batch([](int) { return 0.0; }, rule, 0), 1);
  EXPECT_EQ(probe_batch([](int) { return std::nan(""); }, rule, 0), 1);
}

}  // namespace
}  // namespace gpubench
