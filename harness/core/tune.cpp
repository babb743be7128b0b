#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "harness/core/state.h"
#include "harness/core/tune_choice.h"
#include "harness/report/stats.h"

namespace gpubench {
namespace {

// A candidate replaces the library's pick only when it ranked faster by more than this.
constexpr double kKeepHeuristicMargin = 0.02;

}  // namespace

void State::tune(const std::vector<TuneCandidate>& candidates, std::size_t heuristic_index) {
  if (candidates.empty()) throw std::logic_error("tune() needs at least one candidate");
  if (heuristic_index >= candidates.size()) throw std::logic_error("tune(): heuristic index out of range");
  if (candidates.size() == 1) {  // nothing to rank: the measurement is its time
    measure(candidates.front().op);
    const CandidateTiming only{candidates.front().label, candidates.front().identity, median_of(op_seconds_) * 1e6, {}};
    result_.choice = choice_record({only}, 0, 0);
    return;
  }
  std::vector<std::pair<std::string, nlohmann::json>> named;
  for (const auto& c : candidates) named.emplace_back(c.label, c.identity);
  // The first candidate settles the GPU into its loaded clocks; the ones after it keep it there.
  bool settled = false;
  const auto timings = time_candidates(named, [&](std::size_t i) {
    try {
      const double us = time_candidate(candidates[i].op, !settled);
      settled = true;
      return us;
    } catch (...) {
      // A failed candidate may leave its error pending or work queued: neither is the next one's.
      cudaStreamSynchronize(stream());
      cudaGetLastError();
      throw;
    }
  });
  const auto chosen = chosen_candidate(timings, heuristic_index, kKeepHeuristicMargin);
  if (!chosen) {
    result_.choice = choice_record(timings, heuristic_index, heuristic_index);
    result_.choice["chosen"] = nullptr;
    result_.choice["chosen_index"] = nullptr;
    fail("every tuning candidate failed; the first: " + timings.front().error);
  }
  result_.choice = choice_record(timings, *chosen, heuristic_index);
  result_.choice["keep_heuristic_within_pct"] = kKeepHeuristicMargin * 100;
  measure(candidates[*chosen].op);
}

}  // namespace gpubench
