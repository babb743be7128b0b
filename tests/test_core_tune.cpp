// Tune's selection without a GPU: every candidate timed through a given function, a candidate that
// throws recorded as failed and skipped, the fastest chosen, and the gpubench.choice record.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/core/tune_choice.h"

namespace gpubench {
namespace {

const std::vector<std::pair<std::string, nlohmann::json>> kCandidates = {
    {"algo 0", {{"algo", 0}}}, {"algo 1", {{"algo", 1}}}, {"algo 2", {{"algo", 2}}}};

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
