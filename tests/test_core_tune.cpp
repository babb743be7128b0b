// Tune's selection without a GPU: candidates ranked in interleaved rounds through given steps, a
// candidate that throws recorded as failed and skipped, the choice, and the gpubench.choice record.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "harness/core/tune_choice.h"

namespace gpubench {
namespace {

const std::vector<std::pair<std::string, nlohmann::json>> kCandidates = {
    {"algo 0", {{"algo", 0}}}, {"algo 1", {{"algo", 1}}}, {"algo 2", {{"algo", 2}}}};

// Steps whose samples are `us(i)`, on a clock that each sample advances by 1 ms.
struct FakeSteps {
  std::function<double(std::size_t)> us;
  std::vector<std::size_t> order;  // every step, as "candidate index" in call order
  std::vector<std::size_t> settled;
  double clock = 0;
  RankingSteps steps() {
    return {[this](std::size_t i) { order.push_back(i); },
            [this](std::size_t i) { settled.push_back(i); },
            [this](std::size_t i) {
              order.push_back(i);
              clock += 1e-3;
              return us(i);
            },
            [this] { return clock; }};
  }
};

std::vector<CandidateTiming> time_candidates(const std::vector<std::pair<std::string, nlohmann::json>>& candidates,
                                             const std::function<double(std::size_t)>& us) {
  FakeSteps fake{us};
  return rank_interleaved(candidates, fake.steps(), RankingRounds{});
}

TEST(Tune, TheFastestCandidateIsChosenBesideTheHeuristicsPick) {
  const std::vector<double> fake_us = {12.0, 9.5, 11.0};
  const auto timings = time_candidates(kCandidates, [&](std::size_t i) { return fake_us[i]; });
  const auto chosen = fastest_candidate(timings);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(*chosen, 1u);
  const nlohmann::json choice = choice_record(timings, *chosen, 0);
  EXPECT_EQ(choice["chosen"], (nlohmann::json{{"algo", 1}}));
  EXPECT_EQ(choice["chosen_index"], 1);
  EXPECT_EQ(choice["heuristic"], (nlohmann::json{{"algo", 0}}));
  ASSERT_EQ(choice["candidates"].size(), 3u);
  EXPECT_EQ(choice["candidates"][0]["label"], "algo 0");
  EXPECT_DOUBLE_EQ(choice["candidates"][1]["median_us"].get<double>(), 9.5);
  EXPECT_EQ(choice["candidates"][2]["status"], "ok");
}

TEST(Tune, ACandidateThatThrowsIsRecordedFailedAndSkipped) {
  const auto timings = time_candidates(kCandidates, [](std::size_t i) -> double {
    if (i == 1) throw std::runtime_error("CUBLAS_STATUS_NOT_SUPPORTED");
    return i == 0 ? 20.0 : 30.0;
  });
  const auto chosen = fastest_candidate(timings);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(*chosen, 0u);
  const nlohmann::json choice = choice_record(timings, *chosen, 1);
  EXPECT_EQ(choice["candidates"][1]["status"], "failed");
  EXPECT_TRUE(choice["candidates"][1]["median_us"].is_null());
  EXPECT_EQ(choice["candidates"][1]["error"], "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(choice["heuristic"], (nlohmann::json{{"algo", 1}}));  // the heuristic's pick, even failed
}

TEST(Tune, WhenEveryCandidateFailsNoneIsChosen) {
  const auto timings = time_candidates(kCandidates, [](std::size_t) -> double { throw std::runtime_error("no"); });
  EXPECT_FALSE(fastest_candidate(timings));
}

TEST(Tune, TiesGoToTheFirstAndIndicesAreChecked) {
  const auto timings = time_candidates(kCandidates, [](std::size_t) { return 5.0; });
  EXPECT_EQ(fastest_candidate(timings), 0u);
  EXPECT_THROW(choice_record(timings, 3, 0), std::out_of_range);
}

TEST(Tune, CandidatesAreRankedInInterleavedRoundsAfterOneSettle) {
  FakeSteps fake{[](std::size_t i) { return 10.0 + static_cast<double>(i); }};
  const auto timings = rank_interleaved(kCandidates, fake.steps(), RankingRounds{3, 5, 0.0});
  EXPECT_EQ(fake.settled, (std::vector<std::size_t>{0}));
  // Three prepares, then three rounds (min_time 0: the fourth is not needed), each starting one
  // candidate later.
  EXPECT_EQ(fake.order, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2, 1, 2, 0, 2, 0, 1}));
  EXPECT_DOUBLE_EQ(*timings[2].median_us, 12.0);
  FakeSteps longer{[](std::size_t) { return 1.0; }};
  rank_interleaved(kCandidates, longer.steps(), RankingRounds{3, 5, 0.0075});  // 7.5 ms: the third round ends at 9 ms
  EXPECT_EQ(longer.order.size(), 3u + 3 * 3);
  FakeSteps capped{[](std::size_t) { return 1.0; }};
  rank_interleaved(kCandidates, capped.steps(), RankingRounds{3, 5, 10.0});
  EXPECT_EQ(capped.order.size(), 3u + 5 * 3);
}

TEST(Tune, ACandidateFailingInARoundLeavesTheRoundsAfter) {
  int calls = 0;
  FakeSteps fake{[&](std::size_t i) {
    if (i == 1 && ++calls == 2) throw std::runtime_error("illegal address");
    return 5.0;
  }};
  const auto timings = rank_interleaved(kCandidates, fake.steps(), RankingRounds{3, 3, 0.0});
  EXPECT_FALSE(timings[1].median_us);
  EXPECT_EQ(timings[1].error, "illegal address");
  EXPECT_EQ(std::count(fake.order.begin(), fake.order.end(), 1u), 1 + 2);  // prepared, two samples, then no more
  EXPECT_TRUE(timings[0].median_us && timings[2].median_us);
}

TEST(Tune, TheHeuristicsPickIsKeptUnlessAnotherRankedFasterByMoreThanTheMargin) {
  const std::vector<double> close_us = {10.0, 9.9, 10.5};  // 1 % faster: inside a 2 % margin
  const auto close = time_candidates(kCandidates, [&](std::size_t i) { return close_us[i]; });
  EXPECT_EQ(chosen_candidate(close, 0, 0.02), 0u);
  EXPECT_EQ(chosen_candidate(close, 0, 0.0), 1u);
  const std::vector<double> clear_us = {10.0, 9.0, 10.5};  // 10 % faster
  const auto clear = time_candidates(kCandidates, [&](std::size_t i) { return clear_us[i]; });
  EXPECT_EQ(chosen_candidate(clear, 0, 0.02), 1u);
  EXPECT_EQ(chosen_candidate(clear, 2, 0.02), 1u);  // the pick may be any index
}

TEST(Tune, AWinnerIsMeasuredAloneBesideTheHeuristicsPick) {
  const auto plan_for = [](std::vector<double> us) {
    return plan_measurement(time_candidates(kCandidates, [&](std::size_t i) { return us[i]; }), 0, 0.02);
  };
  const auto close = plan_for({10.0, 9.5, 11.0});  // 5 % faster
  ASSERT_TRUE(close);
  EXPECT_EQ(close->measure, 0u);
  EXPECT_EQ(close->challenger, 1u);
  const auto clear = plan_for({10.0, 8.0, 11.0});  // 20 % faster: a ranking of long operations can be that far off
  ASSERT_TRUE(clear);
  EXPECT_EQ(clear->measure, 0u);
  EXPECT_EQ(clear->challenger, 1u);
  const auto within = plan_for({10.0, 9.9, 11.0});  // inside the margin: the pick alone
  ASSERT_TRUE(within);
  EXPECT_EQ(within->measure, 0u);
  EXPECT_FALSE(within->challenger);
}

TEST(Tune, AFailedHeuristicPickLeavesTheFastest) {
  const auto timings = time_candidates(kCandidates, [](std::size_t i) -> double {
    if (i == 0) throw std::runtime_error("CUBLAS_STATUS_NOT_SUPPORTED");
    return i == 1 ? 12.0 : 11.9;
  });
  EXPECT_EQ(chosen_candidate(timings, 0, 0.02), 2u);
  EXPECT_FALSE(chosen_candidate(time_candidates(kCandidates, [](std::size_t) -> double { throw std::runtime_error("no"); }), 0, 0.02));
}

}  // namespace
}  // namespace gpubench
