// GPU tests of the core measurement primitives (ctest label `gpu`): the blocking kernel's hold and
// its timeout, the L2 flush between samples, the timed region over several streams and devices,
// tune on a trivial kernel, how much queues behind a hold and what a hold that waits for the GPU
// does, and the device-side allclose. Without a GPU every test here skips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "harness/core/blocking_kernel.h"
#include "harness/core/captured_graph.h"
#include "harness/core/cuda_check.h"
#include "harness/core/state.h"
#include "harness/core/streams.h"
#include "harness/core/held_region.h"
#include "harness/system/capture.h"
#include "kernels/allclose.cuh"
#include "kernels/tiny.cuh"
#include "tests/test_support.h"

namespace gpubench {
namespace {

int gpu_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

TEST(GpuCore, BlockerHoldsTheStreamUntilReleased) {
  GPUBENCH_REQUIRE_GPU();
  StreamBlocker blocker(5.0);
  const OwnedStream stream;
  blocker.block(stream.get());
  kernels::launch_spin_for_ns(0, stream.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady);
  blocker.release();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  EXPECT_FALSE(blocker.timed_out());
}

TEST(GpuCore, BlockerReleasesItselfAfterItsTimeoutAndSaysSo) {
  GPUBENCH_REQUIRE_GPU();
  StreamBlocker blocker(0.05);
  const OwnedStream stream;
  const auto start = std::chrono::steady_clock::now();
  blocker.block(stream.get());
  GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(blocker.timed_out());
  EXPECT_GE(waited, 0.04);
  EXPECT_LT(waited, 2.0);
}

// Two lanes that each spin 2 ms, released together: each lane ~2 ms, the span well under 4 ms.
void expect_lanes_run_together(const std::vector<RegionLane>& lanes) {
  HeldRegion region(lanes, Hold::kBlocked);
  const auto spin = [](std::size_t, cudaStream_t stream) { kernels::launch_spin_for_ns(2'000'000, stream); };
  region.run(nullptr, spin);  // first pass
  const HeldRegion::Times t = region.run(nullptr, spin);
  ASSERT_EQ(t.lane_s.size(), lanes.size());
  for (double lane : t.lane_s) EXPECT_NEAR(lane, 2e-3, 1e-3);
  EXPECT_LT(t.span_s, 3.5e-3);
  EXPECT_GE(t.span_s, 1.9e-3);
}

TEST(GpuCore, HeldRegionReleasesLanesOnOneDeviceTogether) {
  GPUBENCH_REQUIRE_GPU();
  expect_lanes_run_together({{0, nullptr}, {0, nullptr}});
}

TEST(GpuCore, HeldRegionSpansSeveralDevices) {
  GPUBENCH_REQUIRE_GPU();
  if (gpu_count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  expect_lanes_run_together({{0, nullptr}, {1, nullptr}});
}

// The most launches (of `nodes` graph nodes each, 0 for plain kernel launches) among 256, 512,
// ... 8192 that queue behind a blocker without the host waiting for the GPU; the first count
// that waits (the blocker times out) ends the search.
int launches_queued_behind_a_hold(int nodes) {
  const OwnedStream capture;
  const CapturedGraph graph(capture.get(), std::max(nodes, 1),
                            [](cudaStream_t s) { kernels::launch_spin_for_ns(0, s); });
  int fits = 0;
  for (int count = 256; count <= 8192; count *= 2) {
    StreamBlocker blocker(0.5);
    const OwnedStream stream;
    blocker.block(stream.get());
    for (int i = 0; i < count / std::max(nodes, 1); ++i)
      if (nodes == 0)
        kernels::launch_spin_for_ns(0, stream.get());
      else
        graph.launch(stream.get());
    blocker.release();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
    if (blocker.timed_out()) break;
    fits = count;
  }
  return fits;
}

// Prints how much the launch queue takes behind a hold on this card (docs/measurement.md); the
// launch suite's back-to-back figure queues 256 kernels behind one.
TEST(GpuCore, TheLaunchQueueTakes256LaunchesBehindAHold) {
  GPUBENCH_REQUIRE_GPU();
  for (const int nodes : {0, 1, 32}) {
    const int fits = launches_queued_behind_a_hold(nodes);
    std::printf("behind a hold, %d launches queued without waiting (%s)\n", fits,
                nodes == 0 ? "kernels" : (std::to_string(nodes) + "-node graphs").c_str());
    EXPECT_GE(fits, 256) << nodes << "-node graphs (0: kernels)";
  }
}

const Family& gpu_core_family = family("unittest/gpu_core").axis_str("case", {"a"}).hidden().run([](State&) {});

class GpuCoreState : public ::testing::Test {
 protected:
  GpuCoreState() : instance_(gpu_core_family.expand(ExpandOptions{}).at(0)) {
    settings_.stop.max_time_s = 0.5;
    if (testing::gpu_present()) context_ = capture_context();
  }
  Instance instance_;
  RunSettings settings_;
  Context context_;
};

TEST_F(GpuCoreState, L2FlushBetweenSamplesWritesTwiceTheL2AndStopsBatching) {
  GPUBENCH_REQUIRE_GPU();
  State s(instance_, settings_, context_);
  s.flush_l2_between_samples();
  s.measure([](cudaStream_t stream) { kernels::launch_spin_for_ns(0, stream); });
  s.verify(true, "ran");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.notes.at("l2_flush_bytes").get<std::uint64_t>(), 2 * context_.gpus.at(0).l2_bytes);
  EXPECT_EQ(r.notes.at("batching"), "none (L2 flushed before each operation)");
  EXPECT_EQ(r.ops_per_sample, 1);
}

TEST_F(GpuCoreState, TuneChoosesTheFastestAndRecordsAFailedCandidate) {
  GPUBENCH_REQUIRE_GPU();
  State s(instance_, settings_, context_);
  std::vector<TuneCandidate> candidates = {
      {"spin 40 us", {{"ns", 40000}}, [](cudaStream_t st) { kernels::launch_spin_for_ns(40000, st); }},
      {"spin 10 us", {{"ns", 10000}}, [](cudaStream_t st) { kernels::launch_spin_for_ns(10000, st); }},
      {"fails", {{"ns", -1}}, [](cudaStream_t) { throw std::runtime_error("not supported"); }},
  };
  s.tune(candidates, 0);
  s.verify(true, "ran");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.choice.at("chosen_index"), 1);
  EXPECT_EQ(r.choice.at("chosen"), (nlohmann::json{{"ns", 10000}}));
  EXPECT_EQ(r.choice.at("heuristic"), (nlohmann::json{{"ns", 40000}}));
  EXPECT_EQ(r.choice.at("candidates").at(2).at("status"), "failed");
  EXPECT_NEAR(r.metrics.at("time_us").summary().median, 10, 3);
}

TEST_F(GpuCoreState, ASecondTuneUnderTheSameKeyMeasuresTheFirstOnesChoiceWithoutRanking) {
  GPUBENCH_REQUIRE_GPU();
  const nlohmann::json shape = {{"test", "cached"}, {"seed", static_cast<long long>(std::time(nullptr))}};
  int slow_calls = 0;
  const auto candidates = [&] {
    return std::vector<TuneCandidate>{
        {"spin 30 us", {{"ns", 30000}}, [&](cudaStream_t st) { ++slow_calls, kernels::launch_spin_for_ns(30000, st); }},
        {"spin 10 us", {{"ns", 10000}}, [](cudaStream_t st) { kernels::launch_spin_for_ns(10000, st); }},
    };
  };
  State first(instance_, settings_, context_);
  first.tune_cache_key(shape);
  EXPECT_FALSE(first.cached_choice());
  first.tune(candidates(), 0);
  first.verify(true, "ran");
  const BenchResult tuned = first.finish();
  ASSERT_EQ(tuned.status, Status::kOk) << tuned.error;
  EXPECT_FALSE(tuned.choice.contains("cached_from"));

  State second(instance_, settings_, context_);
  second.tune_cache_key(shape);
  EXPECT_EQ(second.cached_choice(), (nlohmann::json{{"ns", 10000}}));
  slow_calls = 0;
  second.tune(candidates(), 0);
  second.verify(true, "ran");
  const BenchResult cached = second.finish();
  ASSERT_EQ(cached.status, Status::kOk) << cached.error;
  EXPECT_EQ(slow_calls, 0) << "the cached tune ranked the candidates again";
  EXPECT_EQ(cached.choice.at("cached_from"), instance_.name);
  EXPECT_EQ(cached.choice.at("chosen"), (nlohmann::json{{"ns", 10000}}));
  EXPECT_NEAR(cached.metrics.at("time_us").summary().median, 10, 3);
}

TEST_F(GpuCoreState, APowerLimitedTuneBatchesShortCandidatesAsGraphsAndRestsBeforeMeasuring) {
  GPUBENCH_REQUIRE_GPU();
  settings_.settle_s = 0.02;
  settings_.rest_s = 0.2;
  State s(instance_, settings_, context_);
  std::vector<TuneCandidate> candidates = {
      {"spin 4 us", {{"ns", 4000}}, [](cudaStream_t st) { kernels::launch_spin_for_ns(4000, st); }},
      {"spin 2 us", {{"ns", 2000}}, [](cudaStream_t st) { kernels::launch_spin_for_ns(2000, st); }},
  };
  const auto start = std::chrono::steady_clock::now();
  s.tune(candidates, 0, Batching::kGraph);
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s.verify(true, "ran");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.notes.at("batching"), "graph");
  EXPECT_GT(r.ops_per_sample, 1);
  EXPECT_EQ(r.choice.at("chosen_index"), 1);
  EXPECT_TRUE(r.choice.contains("measured_alone_us"));
  EXPECT_GE(elapsed_s, 2 * 0.2);  // a rest before each of the two measurements
  EXPECT_GE(r.metrics.at("time_us").summary().median, 1.9);
  EXPECT_LT(r.metrics.at("time_us").summary().median, 4.0);  // a graph node adds under a microsecond
}

TEST_F(GpuCoreState, ACandidateThatThrowsWhileCapturedLeavesTheStreamToTheOthers) {
  GPUBENCH_REQUIRE_GPU();
  settings_.settle_s = 0.02;
  State s(instance_, settings_, context_);
  auto throws_when_captured = [](cudaStream_t st) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    GPUBENCH_CUDA(cudaStreamIsCapturing(st, &status));
    if (status != cudaStreamCaptureStatusNone) throw std::runtime_error("not capturable");
    kernels::launch_spin_for_ns(2000, st);
  };
  std::vector<TuneCandidate> candidates = {
      {"uncapturable", {{"ns", 2000}}, throws_when_captured},
      {"spin 3 us", {{"ns", 3000}}, [](cudaStream_t st) { kernels::launch_spin_for_ns(3000, st); }},
  };
  s.tune(candidates, 0, Batching::kGraph);
  s.verify(true, "ran");
  const BenchResult r = s.finish();
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.choice.at("candidates").at(0).at("status"), "failed");
  EXPECT_EQ(r.choice.at("chosen_index"), 1);
  EXPECT_EQ(r.notes.at("batching"), "graph");
}

// 30 us of GPU work whose launch costs the host 100 us first, as a library call that builds its
// launch on the host does.
void slow_to_launch(cudaStream_t st) {
  std::this_thread::sleep_for(std::chrono::microseconds(100));
  kernels::launch_spin_for_ns(30000, st);
}

TEST_F(GpuCoreState, SamplesQueuedBehindTheBlockerLeaveTheHostsLaunchCostOut) {
  GPUBENCH_REQUIRE_GPU();
  State unheld(instance_, settings_, context_);
  unheld.measure(slow_to_launch);
  unheld.verify(true, "ran");
  State held(instance_, settings_, context_);
  held.queue_samples_behind_blocker();
  held.measure(slow_to_launch);
  held.verify(true, "ran");
  const BenchResult u = unheld.finish(), h = held.finish();
  ASSERT_EQ(u.status, Status::kOk) << u.error;
  ASSERT_EQ(h.status, Status::kOk) << h.error;
  EXPECT_GT(u.metrics.at("time_us").summary().median, 100);
  EXPECT_LT(h.metrics.at("time_us").summary().median, 45);
  EXPECT_GE(h.metrics.at("time_us").summary().median, 29);
}

TEST_F(GpuCoreState, AMeasurementsHeldSamplesAreTakenSixteenPerHold) {
  GPUBENCH_REQUIRE_GPU();
  State held(instance_, settings_, context_);
  held.queue_samples_behind_blocker();
  held.measure([](cudaStream_t stream) { kernels::launch_spin_for_ns(1'000'000, stream); });
  held.verify(true, "ran");
  const BenchResult h = held.finish();
  ASSERT_EQ(h.status, Status::kOk) << h.error;
  // 1 ms samples, enqueued 16 (the most) per hold: every sample taken is kept, none from the
  // warm-up, and the GPU idles only while the host enqueues the next 16.
  EXPECT_EQ(h.metrics.at("time_us").values.size() % 16, 0u);
  EXPECT_GT(h.notes.at("busy_pct").get<double>(), 98.0);
  EXPECT_LE(h.notes.at("busy_pct").get<double>(), 100.0);
  EXPECT_NEAR(h.metrics.at("time_us").summary().median, 1000, 20);
}

TEST_F(GpuCoreState, HeldGraphsOfAShortCallAreMeasured) {
  GPUBENCH_REQUIRE_GPU();
  settings_.settle_s = 0.02;  // batched from back-to-back calls: a 1 us call makes 100 a graph or more
  State held(instance_, settings_, context_);
  held.queue_samples_behind_blocker();
  held.measure([](cudaStream_t stream) { kernels::launch_spin_for_ns(1000, stream); }, Batching::kGraph);
  held.verify(true, "ran");
  const BenchResult h = held.finish();
  ASSERT_EQ(h.status, Status::kOk) << h.error;
  EXPECT_EQ(h.notes.at("batching"), "graph");
  EXPECT_GE(h.metrics.at("time_us").summary().median, 0.9);
  EXPECT_LT(h.metrics.at("time_us").summary().median, 3.0);  // a graph node adds under a microsecond
}

TEST_F(GpuCoreState, HeldSamplesWhoseQueueingWaitsForTheGpuAreTakenUnheld) {
  GPUBENCH_REQUIRE_GPU();
  // 30 us of GPU work, then a copy to pageable memory, which returns only once the stream has
  // run it: queued behind the blocker, it waits for the blocker's timeout.
  const DeviceBuffer device_word(sizeof(int));
  const auto waits_for_the_gpu = [&](cudaStream_t st) {
    kernels::launch_spin_for_ns(30000, st);
    int host_word = 0;
    GPUBENCH_CUDA(cudaMemcpyAsync(&host_word, device_word.get(), sizeof(int), cudaMemcpyDeviceToHost, st));
  };
  State held(instance_, settings_, context_);
  held.queue_samples_behind_blocker();
  const auto start = std::chrono::steady_clock::now();
  held.measure(waits_for_the_gpu);
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  held.verify(true, "ran");
  const BenchResult h = held.finish();
  ASSERT_EQ(h.status, Status::kOk) << h.error;
  EXPECT_TRUE(h.notes.contains("hold"));
  EXPECT_GE(h.metrics.at("time_us").summary().median, 29);
  EXPECT_LT(elapsed_s, 3.0);  // one timeout of a second: the warm-up's first held sample gives the hold up
}

TEST_F(GpuCoreState, AHeldCallThatThrowsReleasesTheStream) {
  GPUBENCH_REQUIRE_GPU();
  State s(instance_, settings_, context_);
  s.queue_samples_behind_blocker();
  int calls = 0;
  EXPECT_THROW(s.measure([&](cudaStream_t st) {
    if (++calls == 5) throw std::runtime_error("launch failed");
    kernels::launch_spin_for_ns(30000, st);
  }),
               std::runtime_error);
  const auto start = std::chrono::steady_clock::now();
  GPUBENCH_CUDA(cudaStreamSynchronize(s.stream()));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

TEST(GpuCore, DeviceAllcloseCountsBadElementsAndNan) {
  GPUBENCH_REQUIRE_GPU();
  const std::vector<float> want = {1, 2, 4, 8}, got = {1, 2.5f, 4, std::nanf("")};
  float *d_got = nullptr, *d_want = nullptr;
  GPUBENCH_CUDA(cudaMalloc(&d_got, got.size() * sizeof(float)));
  GPUBENCH_CUDA(cudaMalloc(&d_want, want.size() * sizeof(float)));
  GPUBENCH_CUDA(cudaMemcpy(d_got, got.data(), got.size() * sizeof(float), cudaMemcpyHostToDevice));
  GPUBENCH_CUDA(cudaMemcpy(d_want, want.data(), want.size() * sizeof(float), cudaMemcpyHostToDevice));
  const CloseReport r =
      kernels::allclose_device(d_got, d_want, got.size(), tolerance_for(Precision::kFp32), worker_stream(0));
  cudaFree(d_got);
  cudaFree(d_want);
  EXPECT_EQ(r.bad, 2u);
  EXPECT_EQ(r.first_bad, 1u);
  EXPECT_NEAR(r.max_rel_error, 0.25, 1e-6);
}

}  // namespace
}  // namespace gpubench
