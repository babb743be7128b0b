// The collective suite's CPU side: nccl-tests' bus factors and sizes, rank to GPU mapping, the
// lockstep driver over thread ranks with a fake engine (gathering, a failing rank, a hang).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "benches/collective/bootstrap.h"
#include "benches/collective/collective_model.h"
#include "benches/collective/driver.h"
#include "harness/core/family.h"
#include "tests/collective_fake.h"

namespace gpubench::collective {
namespace {

TEST(CollectiveModel, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Kind::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::kReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::kAllToAll, 2), 0.5);
  for (Kind k : {Kind::kBroadcast, Kind::kReduce, Kind::kSendRecv}) EXPECT_DOUBLE_EQ(bus_factor(k, 8), 1);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::kAllReduce, 1), 0);
}

TEST(CollectiveModel, OneRankHasNoBusBandwidth) {
  for (const auto& name : kind_names()) EXPECT_FALSE(bus_bandwidth_meaningful(kind_from_name(name), 1)) << name;
  EXPECT_TRUE(bus_bandwidth_meaningful(Kind::kAllReduce, 2));
}

TEST(CollectiveModel, OneRankSaysWhyThereIsNoBusBandwidth) {
  for (const auto& name : kind_names()) EXPECT_EQ(bus_bandwidth_absent_reason(kind_from_name(name), 1), "1 rank") << name;
  EXPECT_EQ(bus_bandwidth_absent_reason(Kind::kBroadcast, 2), "");
}

TEST(CollectiveModel, OneRankInPlaceMovesNoData) {
  EXPECT_FALSE(moves_data(1, true));
  EXPECT_TRUE(moves_data(1, false));
  EXPECT_TRUE(moves_data(2, true));
  EXPECT_TRUE(moves_data(8, false));
}

TEST(CollectiveModel, HostTimedUpTo64MiBAndWhereverNoDataMoves) {
  EXPECT_TRUE(host_timed(1024, true));
  EXPECT_TRUE(host_timed(std::int64_t{64} << 20, true));
  EXPECT_FALSE(host_timed(std::int64_t{256} << 20, true));
  EXPECT_TRUE(host_timed(std::int64_t{4} << 30, false));
}

TEST(CollectiveModel, BlocksAreWholeSixteenBytesAsInNcclTests) {
  const Counts alltoall = counts(Kind::kAllToAll, 1 << 20, 4, 3);  // 262144 elements, 87381 a rank
  EXPECT_EQ(alltoall.chunk, 87380u);
  EXPECT_EQ(alltoall.send, 3 * 87380u);
  EXPECT_EQ(alltoall.bytes, 3 * 87380u * 4);
  EXPECT_EQ(counts(Kind::kAllGather, 1 << 20, 2, 6).chunk, 87376u);  // 87381 rounded to 8 halves
  EXPECT_EQ(counts(Kind::kAllReduce, 1000, 4, 3).send, 250u);         // not blocked: unchanged
  EXPECT_EQ(counts(Kind::kAllGather, 8, 4, 1).chunk, 2u);             // under 16 B: kept, not emptied
}

TEST(CollectiveModel, KindNamesRoundTrip) {
  for (const auto& name : kind_names()) EXPECT_EQ(kind_name(kind_from_name(name)), name);
  EXPECT_THROW(kind_from_name("allreduce"), std::invalid_argument);
}

TEST(CollectiveModel, CountsFollowNcclTestsSizes) {
  const Counts gather = counts(Kind::kAllGather, 1024, 4, 8);
  EXPECT_EQ(gather.chunk, 32u);
  EXPECT_EQ(gather.send, 32u);
  EXPECT_EQ(gather.recv, 256u);
  EXPECT_EQ(gather.bytes, 1024u);
  const Counts scatter = counts(Kind::kReduceScatter, 1024, 2, 3);  // 512 elements, 170 a rank, 168 aligned
  EXPECT_EQ(scatter.send, 504u);
  EXPECT_EQ(scatter.recv, 168u);
  EXPECT_EQ(scatter.bytes, 1008u);
  const Counts reduce = counts(Kind::kAllReduce, 4096, 2, 8);
  EXPECT_EQ(reduce.send, 2048u);
  EXPECT_EQ(reduce.recv, 2048u);
  EXPECT_THROW(counts(Kind::kAllGather, 8, 4, 8), std::invalid_argument);  // no element per rank
  EXPECT_THROW(counts(Kind::kAllReduce, 4, 4, 1), std::invalid_argument);
  EXPECT_THROW(counts(Kind::kAllReduce, (std::int64_t{8} << 30) + 4, 4, 1), std::invalid_argument);
}

TEST(CollectiveModel, ParsesSizes) {
  EXPECT_EQ(parse_size("8"), 8);
  EXPECT_EQ(parse_size("1024"), 1024);
  EXPECT_EQ(parse_size("4K"), 4096);
  EXPECT_EQ(parse_size("1KiB"), 1024);
  EXPECT_EQ(parse_size("16MiB"), 16 << 20);
  EXPECT_EQ(parse_size("8GiB"), std::int64_t{8} << 30);
  EXPECT_EQ(parse_size("64B"), 64);
  for (const char* bad : {"", "K", "4", "9G", "12X", "-8", "1.5K", "4 K"}) EXPECT_THROW(parse_size(bad), std::invalid_argument) << bad;
}

TEST(CollectiveModel, DefaultSweepIsPowersOfFour) {
  const auto sizes = default_sizes();
  ASSERT_EQ(sizes.size(), 12u);
  EXPECT_EQ(sizes.front(), 1024);
  EXPECT_EQ(sizes.back(), std::int64_t{4} << 30);
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], sizes[i - 1] * 4);
  EXPECT_LT(quick_sizes().size(), 5u);
}

TEST(CollectiveFamilies, AreQuietHost) {
  // The small sizes' time is NCCL's host enqueue cost: no NVML polling thread beside it.
  for (const auto& name : kind_names()) {
    const Family* f = find_family("collective/" + name);
    if (!f) GTEST_SKIP() << "the collective suite is not built here (no nccl.h)";
    EXPECT_TRUE(f->is_quiet_host()) << name;
  }
}

TEST(CollectiveModel, ElementBytes) {
  EXPECT_EQ(element_bytes("fp32"), 4u);
  EXPECT_EQ(element_bytes("bf16"), 2u);
  EXPECT_EQ(element_bytes("fp16"), 2u);
  EXPECT_THROW(element_bytes("fp64"), std::invalid_argument);
}

TEST(CollectiveModel, RankToDevice) {
  EXPECT_EQ(rank_device(0, {0, 1, 2, 3}), 0);
  EXPECT_EQ(rank_device(3, {0, 1, 2, 3}), 3);
  EXPECT_EQ(rank_device(1, {4, 6}), 6);
  EXPECT_THROW(rank_device(2, {0, 1}), std::invalid_argument);
  EXPECT_THROW(rank_device(-1, {0}), std::invalid_argument);
}

// srun --gpus-per-task=1: each rank's CUDA_VISIBLE_DEVICES holds its own GPU, device 0 to it,
// whatever its local rank.
TEST(CollectiveModel, ARankSeeingOneGpuDrivesIt) {
  for (int local_rank = 0; local_rank < 8; ++local_rank) EXPECT_EQ(rank_device(local_rank, {0}), 0);
  EXPECT_EQ(rank_device(5, {3}), 3);  // the one GPU it may use, whatever its ordinal
}

TEST(CollectiveModel, RotationSpansTwiceTheL2) {
  const std::size_t l2 = 50u << 20;
  EXPECT_EQ(rotation_slots(2048, l2), (100u << 20) / 2048);
  EXPECT_EQ(rotation_slots(3 << 20, l2), 34u);  // ceil(100 / 3)
  EXPECT_EQ(rotation_slots(100u << 20, l2), 1u);
  EXPECT_EQ(rotation_slots(std::size_t{8} << 30, l2), 1u);
  EXPECT_GE(rotation_slots(3 << 20, l2) * (3u << 20), 2 * l2);
}

TEST(CollectiveBootstrap, LauncherWorldSize) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_EQ(launcher_world_size(env({})), 1);
  EXPECT_EQ(launcher_world_size(env({{"OMPI_COMM_WORLD_SIZE", "16"}})), 16);
  EXPECT_EQ(launcher_world_size(env({{"SLURM_NTASKS", "4"}})), 4);
  EXPECT_EQ(launcher_world_size(env({{"PMI_SIZE", "x"}})), 1);
}

// Runs `drive` on `ranks` thread ranks, rank r's engine set up by `setup(r, engine)`.
struct WorldRun {
  std::vector<DriveOutcome> outcomes;
  std::vector<std::string> errors;
  std::vector<double> samples;  // rank 0's measured samples
  std::vector<int> runs;
  std::vector<int> aborts;
};
WorldRun run_world(int ranks, const std::function<void(int, testing::FakeEngine&)>& setup) {
  testing::ThreadWorld world(ranks);
  WorldRun out;
  out.outcomes.resize(ranks);
  out.errors.resize(ranks);
  out.runs.resize(ranks);
  out.aborts.resize(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      testing::ThreadBootstrap bootstrap(world, r);
      testing::FakeEngine engine;
      setup(r, engine);
      std::vector<double> seen;
      try {
        out.outcomes[r] = drive(bootstrap, engine, DriveSettings{}, [](double, int, double) {}, testing::fixed_samples(4, seen));
      } catch (const std::exception& e) {
        out.errors[r] = e.what();
      }
      out.runs[r] = engine.runs;
      out.aborts[r] = engine.aborts;
      if (r == 0) out.samples = seen;
    });
  for (auto& t : threads) t.join();
  return out;
}

TEST(CollectiveDriver, SlowestRankCountsAndWrongElementsAreGathered) {
  const WorldRun run = run_world(3, [](int r, testing::FakeEngine& e) {
    e.op_s = (r == 1 ? 4e-5 : 1e-5);
    e.wrong = r;
  });
  for (const auto& e : run.errors) EXPECT_EQ(e, "");
  EXPECT_EQ(run.outcomes[0].ops_per_sample, 25);  // 1 ms over the slowest rank's 40 us
  ASSERT_EQ(run.samples.size(), 4u);
  for (double s : run.samples) EXPECT_DOUBLE_EQ(s, 25 * 4e-5);
  EXPECT_EQ(run.outcomes[0].wrong, 0 + 1 + 2);
  EXPECT_EQ(run.outcomes[0].wrong_by_rank, (std::vector<long long>{0, 1, 2}));
  EXPECT_TRUE(run.outcomes[1].wrong_by_rank.empty());
  // Followers ran exactly the leader's samples: the first run, three batch probes, the warm-up, four samples.
  for (int r = 0; r < 3; ++r) EXPECT_EQ(run.runs[r], 1 + 3 + 1 + 4) << r;
}

TEST(CollectiveDriver, EveryCallIsAlsoHostTimedAsNcclTestsDoesWhateverItsBatch) {
  testing::ThreadWorld world(1);
  testing::ThreadBootstrap bootstrap(world, 0);
  std::vector<double> seen, host;
  std::vector<int> ops_seen;
  auto on_sample = [&](double, int ops, double h) {
    ops_seen.push_back(ops);
    host.push_back(h);
  };
  // 10 us, then 100 us a collective: 100 and 10 a sample; both host-time 20 after every call, the
  // three single-collective probes included (their figures the harness drops), so that whether a
  // run has the host figure never depends on the batch its timing chose.
  for (double op_s : {1e-5, 1e-4}) {
    testing::FakeEngine engine;
    engine.op_s = op_s;
    ops_seen.clear();
    host.clear();
    drive(bootstrap, engine, DriveSettings{}, on_sample, testing::fixed_samples(3, seen));
    const int batch = op_s == 1e-5 ? 100 : 10;
    EXPECT_EQ(ops_seen, (std::vector<int>{1, 1, 1, batch, batch, batch, batch})) << op_s;
    ASSERT_EQ(host.size(), ops_seen.size());
    for (double h : host) EXPECT_DOUBLE_EQ(h, op_s + 5e-6 / 20) << op_s;
    EXPECT_EQ(engine.host_runs, 7) << op_s;
  }
  DriveSettings untimed;
  untimed.host_ops = 0;
  testing::FakeEngine engine;
  host.clear();
  drive(bootstrap, engine, untimed, on_sample, testing::fixed_samples(3, seen));
  for (double h : host) EXPECT_EQ(h, 0);
  EXPECT_EQ(engine.host_runs, 0);
}

TEST(CollectiveDriver, OneRankFailingFailsEveryRankWithItsReason) {
  const WorldRun run = run_world(4, [](int r, testing::FakeEngine& e) {
    if (r == 2) e.fail_in = "prepare";
  });
  for (const auto& e : run.errors) EXPECT_EQ(e, "set-up: rank 2: out of memory");
}

TEST(CollectiveDriver, AFailedCheckFailsEveryRank) {
  const WorldRun run = run_world(2, [](int r, testing::FakeEngine& e) {
    if (r == 1) e.fail_in = "check";
  });
  for (const auto& e : run.errors) EXPECT_EQ(e, "verification: rank 1: check failed to launch");
}

TEST(CollectiveDriver, AFailedCollectiveFailsEveryRankBeforeSampling) {
  const WorldRun run = run_world(3, [](int r, testing::FakeEngine& e) {
    if (r == 1) e.fail_in = "run";
  });
  for (const auto& e : run.errors) EXPECT_EQ(e, "first collective: rank 1: NCCL error");
  for (int r = 0; r < 3; ++r) EXPECT_LE(run.runs[r], 1 + 3) << "rank " << r << " went on to sample";
}

TEST(CollectiveDriver, ARankThatHangsIsAbortedAndEndsEveryRank) {
  const WorldRun run = run_world(2, [](int r, testing::FakeEngine& e) {
    if (r == 1) e.fail_in = "hang";
  });
  for (const auto& e : run.errors) {
    EXPECT_EQ(e.rfind("first collective: rank 1: the collective did not complete", 0), 0u) << e;
    EXPECT_NE(e.find("aborted"), std::string::npos) << e;
  }
  EXPECT_EQ(run.aborts, (std::vector<int>{0, 1}));
}

TEST(CollectiveDriver, SingleRankNeedsNoPeers) {
  LocalBootstrap local;
  testing::FakeEngine engine;
  engine.wrong = 7;
  std::vector<double> seen;
  const DriveOutcome outcome = drive(local, engine, DriveSettings{}, [](double, int, double) {}, testing::fixed_samples(3, seen));
  EXPECT_EQ(outcome.wrong, 7);
  EXPECT_EQ(seen.size(), 3u);
}

TEST(CollectiveDriver, AHangIsAbortedAndReported) {
  std::atomic<int> aborts{0};
  try {
    wait_or_abort([] { return false; }, 0.05, [&] { ++aborts; });
    FAIL() << "a collective that never completes must throw";
  } catch (const CollectiveHung& hung) {
    EXPECT_NE(std::string(hung.what()).find("aborted"), std::string::npos);
  }
  EXPECT_EQ(aborts, 1);
}

TEST(CollectiveDriver, ACompletedCollectiveIsNotAborted) {
  int polls = 0, aborts = 0;
  wait_or_abort([&] { return ++polls == 3; }, 5, [&] { ++aborts; });
  EXPECT_EQ(polls, 3);
  EXPECT_EQ(aborts, 0);
}

}  // namespace
}  // namespace gpubench::collective
