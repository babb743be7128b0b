#include "harness/core/tune_choice.h"

#include <exception>
#include <stdexcept>

namespace gpubench {

std::vector<CandidateTiming> time_candidates(const std::vector<std::pair<std::string, nlohmann::json>>& candidates,
                                             const std::function<double(std::size_t)>& time_us) {
  std::vector<CandidateTiming> timings;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    CandidateTiming t{candidates[i].first, candidates[i].second, std::nullopt, {}};
    try {
      t.median_us = time_us(i);
    } catch (const std::exception& e) {
      t.error = e.what();
    }
    timings.push_back(std::move(t));
  }
  return timings;
}

std::optional<std::size_t> fastest_candidate(const std::vector<CandidateTiming>& timings) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < timings.size(); ++i)
    if (timings[i].median_us && (!best || *timings[i].median_us < *timings[*best].median_us)) best = i;
  return best;
}

std::optional<std::size_t> chosen_candidate(const std::vector<CandidateTiming>& timings, std::size_t heuristic_index,
                                            double margin) {
  const auto fastest = fastest_candidate(timings);
  if (!fastest || heuristic_index >= timings.size() || !timings[heuristic_index].median_us) return fastest;
  const double heuristic_us = *timings[heuristic_index].median_us;
  return *timings[*fastest].median_us < heuristic_us * (1 - margin) ? fastest : heuristic_index;
}

nlohmann::json choice_record(const std::vector<CandidateTiming>& timings, std::size_t chosen,
                             std::size_t heuristic_index) {
  if (chosen >= timings.size() || heuristic_index >= timings.size())
    throw std::out_of_range("choice_record: candidate index out of range");
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& t : timings) {
    nlohmann::json entry = {{"label", t.label},
                            {"median_us", t.median_us ? nlohmann::json(*t.median_us) : nlohmann::json()},
                            {"status", t.median_us ? "ok" : "failed"}};
    if (!t.median_us) entry["error"] = t.error;
    candidates.push_back(std::move(entry));
  }
  return {{"chosen", timings[chosen].identity},
          {"chosen_index", chosen},
          {"heuristic", timings[heuristic_index].identity},
          {"heuristic_index", heuristic_index},
          {"candidates", candidates}};
}

}  // namespace gpubench
