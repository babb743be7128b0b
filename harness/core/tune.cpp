#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "harness/core/state.h"
#include "harness/core/tune_choice.h"

namespace gpubench {

void State::tune(const std::vector<TuneCandidate>& candidates, std::size_t heuristic_index) {
  if (candidates.empty()) throw std::logic_error("tune() needs at least one candidate");
  if (heuristic_index >= candidates.size()) throw std::logic_error("tune(): heuristic index out of range");
  std::vector<std::pair<std::string, nlohmann::json>> named;
  for (const auto& c : candidates) named.emplace_back(c.label, c.identity);
  const auto timings = time_candidates(named, [&](std::size_t i) {
    try {
      return time_candidate(candidates[i].op);
    } catch (...) {
      // A failed candidate may leave its error pending or work queued: neither is the next one's.
      cudaStreamSynchronize(stream());
      cudaGetLastError();
      throw;
    }
  });
  const auto chosen = fastest_candidate(timings);
  if (!chosen) {
    result_.choice = choice_record(timings, heuristic_index, heuristic_index);
    result_.choice["chosen"] = nullptr;
    result_.choice["chosen_index"] = nullptr;
    fail("every tuning candidate failed; the first: " + timings.front().error);
  }
  result_.choice = choice_record(timings, *chosen, heuristic_index);
  measure(candidates[*chosen].op);
}

}  // namespace gpubench
