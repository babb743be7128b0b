#include <algorithm>
#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "harness/core/state.h"
#include "harness/core/tune_cache.h"
#include "harness/core/tune_choice.h"
#include "harness/model/stats.h"

namespace gpubench {
namespace {

// A candidate replaces the library's pick only when it ranked faster by more than this, and
// then measures faster alone.
constexpr double kKeepHeuristicMargin = 0.02;

}  // namespace

void State::tune_cache_key(const nlohmann::json& shape) {
  const GpuInfo& info = gpu(device());
  const std::string gpu_id = !info.uuid.empty() ? info.uuid : info.name + " #" + std::to_string(device());
  tune_cache_key_ = gpubench::tune_cache_key(instance_.family ? instance_.family->name() : "", shape, gpu_id,
                                             context_.driver_version + " cudnn " + context_.cudnn + " cublas " +
                                                 context_.cublas + " cuda " + context_.cuda_runtime);
}

std::optional<nlohmann::json> State::cached_choice() const {
  if (tune_cache_key_.empty()) return std::nullopt;
  const auto cached = worker_tune_cache().find(tune_cache_key_);
  if (!cached) return std::nullopt;
  return cached->identity;
}

void State::tune(const std::vector<TuneCandidate>& candidates, std::size_t heuristic_index, Batching batching) {
  if (candidates.empty()) throw std::logic_error("tune() needs at least one candidate");
  if (heuristic_index >= candidates.size()) throw std::logic_error("tune(): heuristic index out of range");
  const auto cached = tune_cache_key_.empty() ? std::nullopt : worker_tune_cache().find(tune_cache_key_);
  const auto offered = !cached ? candidates.end()
                               : std::find_if(candidates.begin(), candidates.end(),
                                              [&](const TuneCandidate& c) { return c.identity == cached->identity; });
  if (offered != candidates.end()) {
    measure(offered->op, batching);
    result_.choice = cached->record;
    result_.choice["cached_from"] = cached->tuned_by;
    return;
  }
  tune_by_ranking(candidates, heuristic_index, batching);
  // Only a ranking is a choice worth remembering: a lone candidate chose nothing.
  if (!tune_cache_key_.empty() && candidates.size() > 1 && result_.choice.contains("chosen") &&
      !result_.choice["chosen"].is_null())
    worker_tune_cache().store(tune_cache_key_, {result_.choice["chosen"], instance_.name, result_.choice});
}

void State::tune_by_ranking(const std::vector<TuneCandidate>& candidates, std::size_t heuristic_index,
                            Batching batching) {
  if (candidates.size() == 1) {  // nothing to rank: the measurement is its time
    measure(candidates.front().op, batching);
    const CandidateTiming only{candidates.front().label, candidates.front().identity, median_of(op_seconds_) * 1e6, {}};
    result_.choice = choice_record({only}, 0, 0);
    return;
  }
  std::vector<std::pair<std::string, nlohmann::json>> named;
  for (const auto& c : candidates) named.emplace_back(c.label, c.identity);
  std::vector<TimingEvents> events(candidates.size());
  std::vector<Batched> prepared(candidates.size());
  // A failed step may leave its error pending or work queued: neither is the next candidate's.
  auto cleaned = [&](const auto& step) {
    try {
      return step();
    } catch (...) {
      cudaStreamSynchronize(stream());
      cudaGetLastError();
      throw;
    }
  };
  auto sample = [&](std::size_t i) { return cleaned(prepared[i].sample); };
  RankingSteps steps;
  steps.prepare = [&](std::size_t i) {
    prepared[i] = cleaned([&] { return batched(candidates[i].op, batching, events[i], clock_s(), true); });
  };
  steps.settle = [&](std::size_t i) { settle([&] { return sample(i); }, clock_s()); };
  steps.sample_us = [&](std::size_t i) { return sample(i) / prepared[i].ops * 1e6; };
  steps.now_s = clock_s;
  // A smoke run checks that ranking works, not which candidate wins by a few %: three rounds,
  // without the 0.3 s that a sweep gives them.
  const RankingRounds rounds = quick() ? RankingRounds{3, 3, 0.0} : RankingRounds{};
  const auto timings = rank_interleaved(named, steps, rounds);
  prepared.clear();  // the candidates' captured batches
  const auto plan = plan_measurement(timings, heuristic_index, kKeepHeuristicMargin);
  if (!plan) {
    result_.choice = choice_record(timings, heuristic_index, heuristic_index);
    result_.choice["chosen"] = nullptr;
    result_.choice["chosen_index"] = nullptr;
    fail("every tuning candidate failed; the first: " + timings.front().error);
  }
  auto record_choice = [&](std::size_t kept) {
    result_.choice = choice_record(timings, kept, heuristic_index);
    result_.choice["keep_heuristic_within_pct"] = kKeepHeuristicMargin * 100;
  };
  rest();
  if (!plan->challenger) {
    record_choice(plan->measure);
    measure(candidates[plan->measure].op, batching);
    return;
  }
  // Ranked side by side, a hungrier candidate can win at the clock the mix runs at and then hold
  // a lower clock than the heuristic's pick on its own, and a ranking of few rounds of long
  // operations meets the clock's swings: both are measured alone, as the figure is, each after a
  // rest, and the faster kept.
  const Samples heuristic = collect(candidates[plan->measure].op, batching, false);
  rest();
  const Samples challenger = collect(candidates[*plan->challenger].op, batching, false);
  const double heuristic_us = median_of(heuristic.op_seconds) * 1e6;
  const double challenger_us = median_of(challenger.op_seconds) * 1e6;
  const bool challenger_kept = challenger_us < heuristic_us;
  record_choice(challenger_kept ? *plan->challenger : plan->measure);
  result_.choice["measured_alone_us"] = {{"heuristic", heuristic_us}, {"ranked_fastest", challenger_us}};
  result_.choice["ranked_fastest_index"] = *plan->challenger;
  commit(challenger_kept ? challenger : heuristic);
}

}  // namespace gpubench
