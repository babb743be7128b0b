// The scenarios suite's GPU-free parts: the host-feed arithmetic, and the findings its declared
// rules draw from results, as the table prints them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "benches/scenarios/feed_arithmetic.h"
#include "benches/scenarios/lstm_reference.h"
#include "benches/scenarios/split_policy.h"
#include "harness/model/suite.h"
#include "harness/report/reporter.h"

namespace gpubench {
namespace {

using scenarios::FeedTimes;

TEST(FeedArithmetic, OverlapIsTheShareOfTheShorterPartHidden) {
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 5}), 100);  // fed = max: the copies hidden
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 7}), 0);    // fed = sum: nothing hidden
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 6}), 50);
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 8}), 0);    // slower than serial: clamped
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({2, 5, 4}), 100);  // faster than either alone: clamped
  EXPECT_DOUBLE_EQ(scenarios::overlap_pct({0, 5, 5}), 0);
}

TEST(FeedArithmetic, FedRatioAndCrossover) {
  EXPECT_DOUBLE_EQ(scenarios::fed_ratio({2, 5, 10}), 0.5);
  EXPECT_DOUBLE_EQ(scenarios::fed_ratio({2, 5, 0}), 0);
  // 60 TFLOP/s against a 55 GB/s link: about 1091 FLOP per byte.
  EXPECT_NEAR(scenarios::crossover_flop_per_byte(60e12, 55e9), 1090.9, 0.1);
  EXPECT_DOUBLE_EQ(scenarios::crossover_flop_per_byte(60e12, 0), 0);
}

TEST(FeedArithmetic, PredictedFedTimeWithAndWithoutOverlap) {
  const FeedTimes alone{8, 4, 0};  // 8 batches: 1 s copy and 0.5 s compute each
  EXPECT_DOUBLE_EQ(scenarios::predicted_fed_s(alone, 8, false), 12);
  EXPECT_DOUBLE_EQ(scenarios::predicted_fed_s(alone, 8, true), 8.5);  // the last batch's compute sticks out
}

TEST(SplitPolicy, StaticSharesAndTheQueueOnASimulatedClock) {
  using scenarios::SplitPolicy;
  EXPECT_EQ(scenarios::static_shares(10, 4), (std::vector<int>{3, 3, 2, 2}));
  // Four equal lanes, 64 items of 1 s: both policies keep every lane busy; the queue pays its dispatch.
  const auto even_static = scenarios::simulate_split(SplitPolicy::kStatic, 64, {1, 1, 1, 1}, 0.1);
  EXPECT_DOUBLE_EQ(even_static.makespan_s, 16);
  EXPECT_DOUBLE_EQ(scenarios::efficiency_pct(even_static), 100);
  const auto even_queue = scenarios::simulate_split(SplitPolicy::kQueue, 64, {1, 1, 1, 1}, 0.1);
  EXPECT_NEAR(even_queue.makespan_s, 17.6, 1e-9);
  EXPECT_EQ(even_queue.lane_items, (std::vector<int>{16, 16, 16, 16}));
  // Lane 0 twice as slow: static waits 32 s for it while the others idle half the time; the
  // queue gives it fewer items (a lane with 2 s items takes 1 of every 7).
  const auto slow_static = scenarios::simulate_split(SplitPolicy::kStatic, 64, {2, 1, 1, 1}, 0);
  EXPECT_DOUBLE_EQ(slow_static.makespan_s, 32);
  EXPECT_DOUBLE_EQ(scenarios::efficiency_pct(slow_static), 100.0 * (32 + 48) / (4 * 32));
  EXPECT_EQ(scenarios::idle_pct(slow_static), (std::vector<double>{0, 50, 50, 50}));
  const auto slow_queue = scenarios::simulate_split(SplitPolicy::kQueue, 64, {2, 1, 1, 1}, 0);
  EXPECT_EQ(slow_queue.lane_items, (std::vector<int>{10, 18, 18, 18}));
  EXPECT_DOUBLE_EQ(slow_queue.makespan_s, 20);
  EXPECT_DOUBLE_EQ(scenarios::efficiency_pct(slow_queue), 100.0 * (20 + 3 * 18) / (4 * 20));
  EXPECT_THROW(scenarios::parse_split_policy("random"), std::invalid_argument);
  EXPECT_DOUBLE_EQ(scenarios::simulate_split(SplitPolicy::kQueue, 8, {}, 0).makespan_s, 0);
}

TEST(LstmArithmetic, FlopsAreTheGateGemmsOncePerPassPart) {
  // T 64, B 16, I = H = 1024: 2 x 4096 x 2048 per step and row, x 1024 rows.
  const scenarios::LstmShape shape{64, 16, 1024, 1024};
  EXPECT_DOUBLE_EQ(scenarios::lstm_flops(shape, scenarios::LstmPass::kForward), 2.0 * 4096 * 2048 * 16 * 64);
  EXPECT_DOUBLE_EQ(scenarios::lstm_flops(shape, scenarios::LstmPass::kForwardBackward), 3 * 2.0 * 4096 * 2048 * 16 * 64);
  EXPECT_DOUBLE_EQ(scenarios::lstm_flops({1, 1, 3, 2}, scenarios::LstmPass::kForward), 2.0 * 8 * 5);
}

// A one-unit LSTM by hand: with every weight zero, the gates are their biases.
TEST(LstmReference, OneStepMatchesTheCellEquations) {
  const scenarios::LstmShape shape{1, 1, 1, 1};
  scenarios::LstmWeights p = scenarios::LstmWeights::zeros(shape);
  const double bias[4] = {0.5, -0.25, 0.75, 1.0};  // i, f, g, o: input and recurrent bias split
  for (int g = 0; g < 4; ++g) p.bw[g][0] = p.br[g][0] = bias[g] / 2;
  const auto f = scenarios::lstm_forward(shape, p, {0.3}, {0.2}, {-0.4});
  const double i = scenarios::sigmoid(0.5), fg = scenarios::sigmoid(-0.25), g = std::tanh(0.75),
               o = scenarios::sigmoid(1.0);
  const double c = fg * -0.4 + i * g;
  EXPECT_NEAR(f.c[1], c, 1e-15);
  EXPECT_NEAR(f.y[0], o * std::tanh(c), 1e-15);
  EXPECT_DOUBLE_EQ(f.h[1], f.y[0]);
}

// Back through time against central differences of L = sum(dy . y) + dhy . hT + dcy . cT.
TEST(LstmReference, GradientsMatchFiniteDifferences) {
  const scenarios::LstmShape shape{3, 2, 3, 2};
  std::mt19937_64 generator(7);
  std::uniform_real_distribution<double> value(-1, 1);
  const auto random = [&](std::size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = value(generator);
    return v;
  };
  scenarios::LstmWeights p = scenarios::LstmWeights::zeros(shape);
  for (int g = 0; g < 4; ++g) p.w[g] = random(6), p.r[g] = random(4), p.bw[g] = random(2), p.br[g] = random(2);
  std::vector<double> x = random(18), h0 = random(4), c0 = random(4);
  const std::vector<double> dy = random(12), dhy = random(4), dcy = random(4);
  const auto loss = [&] {
    const auto f = scenarios::lstm_forward(shape, p, x, h0, c0);
    double l = 0;
    for (std::size_t k = 0; k < dy.size(); ++k) l += dy[k] * f.y[k];
    for (std::size_t k = 0; k < 4; ++k) l += dhy[k] * f.h[12 + k] + dcy[k] * f.c[12 + k];
    return l;
  };
  const auto numeric = [&](double& v) {
    const double kept = v, step = 1e-6;
    v = kept + step;
    const double up = loss();
    v = kept - step;
    const double down = loss();
    v = kept;
    return (up - down) / (2 * step);
  };
  const auto grad = scenarios::lstm_backward(shape, p, x, scenarios::lstm_forward(shape, p, x, h0, c0), dy, dhy, dcy);
  for (std::size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(grad.dx[k], numeric(x[k]), 1e-7) << "dx " << k;
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(grad.dhx[k], numeric(h0[k]), 1e-7) << "dhx " << k;
    EXPECT_NEAR(grad.dcx[k], numeric(c0[k]), 1e-7) << "dcx " << k;
  }
  for (int g = 0; g < 4; ++g) {
    for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR(grad.dweights.w[g][k], numeric(p.w[g][k]), 1e-7);
    for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(grad.dweights.r[g][k], numeric(p.r[g][k]), 1e-7);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_NEAR(grad.dweights.bw[g][k], numeric(p.bw[g][k]), 1e-7);
      EXPECT_NEAR(grad.dweights.br[g][k], numeric(p.br[g][k]), 1e-7);
    }
  }
}

BenchResult result(const std::string& family, nlohmann::json params, std::map<std::string, double> figures) {
  BenchResult r;
  r.family = family;
  r.suite = "scenarios";
  r.name = family;
  for (const auto& [axis, value] : params.items()) r.name += "/" + axis + ":" + (value.is_string() ? value.get<std::string>() : value.dump());
  r.params = std::move(params);
  for (const auto& [metric, value] : figures) r.metrics[metric].values = {value, value, value};
  r.primary_metric = figures.begin()->first;
  return r;
}

BenchResult occupancy(const std::string& kind, int block, int smem_kib, double occupancy_pct, double rate) {
  BenchResult r = result("scenarios/occupancy", {{"kind", kind}, {"block", block}, {"smem_kib", smem_kib}, {"gpu", "gpu0"}},
                         {{kind == "memory" ? "bandwidth_gbps" : "tflops", rate}});
  r.notes["predicted_occupancy_pct"] = occupancy_pct;
  return r;
}

TEST(ScenarioFindings, OccupancyFromWhichEachKernelReachesNinetyPercentOfItsBest) {
  std::vector<BenchResult> results = {
      occupancy("memory", 1024, 0, 100, 4000), occupancy("memory", 256, 64, 37.5, 3700),
      occupancy("memory", 256, 200, 12.5, 2500), occupancy("memory", 64, 200, 3.125, 600),
      occupancy("compute", 1024, 0, 100, 30), occupancy("compute", 256, 100, 25, 29),
      occupancy("compute", 64, 200, 3.125, 4), occupancy("compute", 32, 200, 1, 1),
      occupancy("compute", 128, 0, 2, 99),
  };
  // A failed point (no figure) and one without the API's prediction are left out of the finding.
  results[results.size() - 2].metrics.clear();
  results[results.size() - 1].notes.erase("predicted_occupancy_pct");
  const std::vector<std::string> lines = findings_of(results);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "gpu0 memory copy: 90 % of its best 4000 GB/s from 37.5 % predicted occupancy (block 256, 64 KiB "
            "shared) up; at 3.12 % predicted occupancy (block 64, 200 KiB shared) 600 GB/s");
  EXPECT_EQ(lines[1], "gpu0 compute FMA chain: 90 % of its best 30 TFLOP/s from 25 % predicted occupancy (block 256, 100 KiB "
                           "shared) up; at 3.12 % predicted occupancy (block 64, 200 KiB shared) 4 TFLOP/s");
}

BenchResult feed(int buffers, int flop_per_byte, double fed_ratio) {
  return result("scenarios/host_feed",
                {{"host", "pinned"}, {"buffers", buffers}, {"flop_per_byte", flop_per_byte}, {"gpu", "gpu0"}},
                {{"tflops", 1}, {"fed_ratio", fed_ratio}, {"link_gbps", 55}, {"compute_alone_tflops", 60},
                 {"crossover_flop_per_byte", 1091}});
}

TEST(ScenarioFindings, HostFeedNamesTheIntensityBelowWhichTheLinkSetsThePace) {
  const std::vector<BenchResult> results = {feed(2, 1024, 0.9), feed(2, 64, 0.06), feed(2, 4096, 0.97)};
  const std::vector<std::string> lines = findings_of(results);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "gpu0 pinned 2 buffers: below 1091 FLOP per byte copied, the host link (55 GB/s) and not the GPU "
            "(60 TFLOP/s) sets the pace; fed 0.06 of compute alone at 64 FLOP/B, 0.97 of compute alone at 4096 FLOP/B");
}

TEST(ScenarioFindings, WorkSplitSetsThePoliciesSideBySidePerImbalance) {
  const auto split = [](const std::string& policy, const std::string& imbalance, double efficiency, double makespan) {
    BenchResult r = result("scenarios/work_split", {{"policy", policy}, {"imbalance", imbalance}},
                           {{"makespan_ms", makespan}, {"efficiency_pct", efficiency}, {"ideal_efficiency_pct", 100}});
    r.notes["lanes"] = "4 streams sharing gpu0";
    return r;
  };
  const std::vector<std::string> lines =
      findings_of({split("static", "slow_lane", 62.5, 17.1), split("queue", "slow_lane", 97.2, 11)});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "imbalance slow_lane (4 streams sharing gpu0): static keeps the lanes 62.5 % busy (makespan 17.1 ms, "
            "ideal 100 %); queue keeps the lanes 97.2 % busy (makespan 11 ms, ideal 100 %)");
}

TEST(ScenarioFindings, LstmSaysWhatTheGraphSavesPerStep) {
  const auto lstm = [](const std::string& launch, double step_us) {
    return result("scenarios/lstm",
                  {{"type", "fp16"}, {"pass", "forward"}, {"launch", launch}, {"seq", 64}, {"hidden", 256},
                   {"batch", 16}, {"gpu", "gpu0"}},
                  {{"tflops", 1}, {"step_us", step_us}});
  };
  const std::vector<std::string> lines = findings_of({lstm("steps", 12.5), lstm("graph", 5), lstm("sequence", 1.25)});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "gpu0 fp16 forward T64 H256 B16: 12.5 us per step launched call by call, 5 us as one graph (2.5x); one "
            "whole-sequence call 1.25 us");
  EXPECT_TRUE(findings_of({lstm("sequence", 1.25)}).empty());
}

TEST(ScenarioFindings, ManyProcessesSetTheMostAgainstOne) {
  const auto clients = [](int processes, const std::string& mps, double rate) {
    return result("scenarios/many_processes", {{"processes", processes}, {"mps", mps}, {"gpu", "gpu0"}},
                  {{"kernels_per_s", rate}});
  };
  const std::vector<std::string> lines = findings_of(
      {clients(1, "off", 200000), clients(8, "off", 210000), clients(1, "private", 200000), clients(8, "private", 900000)});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "gpu0 off: 8 processes launch 210000 kernels/s together, 1.05x the 200000 of 1; the GPU does "
                      "not run them side by side");
  EXPECT_EQ(lines[1], "gpu0 private: 8 processes launch 900000 kernels/s together, 4.5x the 200000 of 1");
}

TEST(ScenarioFindings, TheTablePrintsThemUnderTheResultsAndFailedResultsAreLeftOut) {
  std::ostringstream out;
  auto reporter = table_reporter(out);
  BenchResult failed = feed(4, 64, 0.01);
  failed.status = Status::kFailed;
  failed.error = "boom";
  for (const BenchResult& r : {feed(2, 64, 0.06), feed(2, 4096, 0.97), failed}) reporter->result(r);
  reporter->finish(RunDocument{});
  const std::string text = out.str();
  const auto at = text.find("\n\nfindings:\n  gpu0 pinned 2 buffers: below 1091 FLOP per byte");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.find("4 buffers", at), std::string::npos) << text;
  EXPECT_EQ(findings_of({}), std::vector<std::string>{});
}

}  // namespace
}  // namespace gpubench
