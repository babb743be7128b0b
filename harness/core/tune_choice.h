#pragma once
// The part of State::tune that needs no GPU: ranking the candidates through given steps (a
// candidate that throws is recorded as failed and left out), picking one, and the
// gpubench.choice record.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

struct CandidateTiming {
  std::string label;
  nlohmann::json identity;
  std::optional<double> median_us;  // none: the candidate failed
  std::string error;                // why it failed
};

// How long tune ranks: at least min_rounds rounds, then until min_time_s has passed since the
// first, at most max_rounds.
struct RankingRounds {
  int min_rounds = 3;
  int max_rounds = 9;
  double min_time_s = 0.3;
};

// What ranking does to one candidate (State::tune: CUDA events on the worker's stream).
struct RankingSteps {
  std::function<void(std::size_t)> prepare;     // once per candidate, its warm-up
  std::function<void(std::size_t)> settle;      // once, on the first prepared candidate, before any round
  std::function<double(std::size_t)> sample_us;  // one sample: microseconds per operation
  std::function<double()> now_s;                // the clock that rounds are counted on
};

// Ranks candidates interleaved: each prepared, then rounds of one sample of every candidate still
// standing, in turn (round r starting at candidate r), so that a GPU whose clocks move under load (a power cap) moves them for all
// alike; the median of each one's samples. A step that throws marks that candidate failed with
// its message and leaves it out of the rounds after.
std::vector<CandidateTiming> rank_interleaved(const std::vector<std::pair<std::string, nlohmann::json>>& candidates,
                                              const RankingSteps& steps, const RankingRounds& rounds);

// The fastest candidate that did not fail; nullopt when every one failed (ties: the first).
std::optional<std::size_t> fastest_candidate(const std::vector<CandidateTiming>& timings);

// The candidate tune measures: the fastest, unless the library's own pick (heuristic_index)
// ran and is within `margin` (a fraction) of it. Rankings of a power-capped GPU move by about
// a percent, and the winner of a race that close measures slower than it ranked.
std::optional<std::size_t> chosen_candidate(const std::vector<CandidateTiming>& timings, std::size_t heuristic_index,
                                            double margin);

// What tune measures after ranking: `measure`, or, where `challenger` is set, the heuristic's
// pick (`measure`) and the challenger (the chosen_candidate) each alone, keeping the faster: a
// power-capped GPU can reverse a ranking once each runs on its own. None: all failed.
struct TunePlan {
  std::size_t measure = 0;
  std::optional<std::size_t> challenger;
};
std::optional<TunePlan> plan_measurement(const std::vector<CandidateTiming>& timings, std::size_t heuristic_index,
                                         double margin);

// {"chosen": identity, "chosen_index", "heuristic": identity of timings[heuristic_index],
//  "heuristic_index", "candidates": [{"label", "median_us", "status", "error"?}]}
nlohmann::json choice_record(const std::vector<CandidateTiming>& timings, std::size_t chosen,
                             std::size_t heuristic_index);

}  // namespace gpubench
