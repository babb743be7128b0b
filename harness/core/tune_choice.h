#pragma once
// The part of State::tune that needs no GPU: timing each candidate through a given function
// (a candidate that throws is recorded as failed and left out), picking the fastest, and the
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

// Calls time_us(i) for each candidate; an exception marks candidate i failed with its message.
std::vector<CandidateTiming> time_candidates(const std::vector<std::pair<std::string, nlohmann::json>>& candidates,
                                             const std::function<double(std::size_t)>& time_us);

// The fastest candidate that did not fail; nullopt when every one failed (ties: the first).
std::optional<std::size_t> fastest_candidate(const std::vector<CandidateTiming>& timings);

// The candidate tune measures: the fastest, unless the library's own pick (heuristic_index)
// ran and is within `margin` (a fraction) of it. Rankings of a power-capped GPU move by about
// a percent, and the winner of a race that close measures slower than it ranked.
std::optional<std::size_t> chosen_candidate(const std::vector<CandidateTiming>& timings, std::size_t heuristic_index,
                                            double margin);

// {"chosen": identity, "chosen_index", "heuristic": identity of timings[heuristic_index],
//  "heuristic_index", "candidates": [{"label", "median_us", "status", "error"?}]}
nlohmann::json choice_record(const std::vector<CandidateTiming>& timings, std::size_t chosen,
                             std::size_t heuristic_index);

}  // namespace gpubench
