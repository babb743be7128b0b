#include "harness/core/tune_choice.h"

#include <exception>
#include <stdexcept>

#include "harness/model/stats.h"

namespace gpubench {

std::vector<CandidateTiming> rank_interleaved(const std::vector<std::pair<std::string, nlohmann::json>>& candidates,
                                              const RankingSteps& steps, const RankingRounds& rounds) {
  std::vector<CandidateTiming> timings;
  std::vector<std::vector<double>> samples(candidates.size());
  auto attempt = [&](std::size_t i, const std::function<void()>& step) {
    try {
      step();
    } catch (const std::exception& e) {
      timings[i].error = *e.what() ? e.what() : "failed";
    }
  };
  for (const auto& [label, identity] : candidates) timings.push_back({label, identity, std::nullopt, {}});
  for (std::size_t i = 0; i < candidates.size(); ++i) attempt(i, [&] { steps.prepare(i); });
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (timings[i].error.empty()) {
      attempt(i, [&] { steps.settle(i); });
      break;
    }
  const double start = steps.now_s();
  const std::size_t n = candidates.size();
  for (int round = 0; round < rounds.max_rounds; ++round) {
    if (round >= rounds.min_rounds && steps.now_s() - start >= rounds.min_time_s) break;
    // Each round starts one candidate later: a clock that swings with the round's rhythm would
    // otherwise favour one place in it, the same candidate every round.
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (static_cast<std::size_t>(round) + k) % n;
      if (timings[i].error.empty()) attempt(i, [&] { samples[i].push_back(steps.sample_us(i)); });
    }
  }
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (timings[i].error.empty() && !samples[i].empty()) timings[i].median_us = median_of(samples[i]);
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

std::optional<TunePlan> plan_measurement(const std::vector<CandidateTiming>& timings, std::size_t heuristic_index,
                                         double margin) {
  const auto chosen = chosen_candidate(timings, heuristic_index, margin);
  if (!chosen) return std::nullopt;
  if (*chosen == heuristic_index || !timings[heuristic_index].median_us) return TunePlan{*chosen, std::nullopt};
  return TunePlan{heuristic_index, *chosen};
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
