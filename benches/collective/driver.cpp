#include "benches/collective/driver.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

#include "benches/collective/collective_model.h"
#include "harness/core/batching.h"

namespace gpubench::collective {
namespace {

constexpr const char* kGo = "1";
constexpr int kBatchProbes = 3;  // single collectives timed to choose the batch
constexpr const char* kStop = "0";

// Runs `step` on this rank, then fails every rank if it failed on any.
template <class Step>
void in_step(Bootstrap& bootstrap, const char* what, Step step) {
  std::string error;
  try {
    step();
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::string all = agree_on_errors(bootstrap, error);
  if (!all.empty()) throw std::runtime_error(std::string(what) + ": " + all);
}

void sample_as_leader(Bootstrap& bootstrap, const std::function<double()>& timed, int ops, const Measure& measure) {
  std::string go = kGo;
  try {
    measure(
        [&] {
          bootstrap.broadcast(go, 0);
          return timed();
        },
        ops);
  } catch (...) {
    std::string stop = kStop;
    bootstrap.broadcast(stop, 0);
    throw;
  }
  std::string stop = kStop;
  bootstrap.broadcast(stop, 0);
}

void sample_as_follower(Bootstrap& bootstrap, const std::function<double()>& timed) {
  while (true) {
    std::string go;
    bootstrap.broadcast(go, 0);
    if (go != kGo) return;
    timed();
  }
}

}  // namespace

DriveOutcome drive(Bootstrap& bootstrap, RankEngine& engine, const DriveSettings& settings, const OnSample& on_sample,
                   const Measure& measure) {
  DriveOutcome outcome;
  in_step(bootstrap, "set-up", [&] { engine.prepare(); });
  double first_s = 0;
  in_step(bootstrap, "first collective", [&] {
    engine.run(1);  // loads NCCL's kernels and connects its channels
    // The fastest of a few: one slow call would halve the batch and, at small sizes, drop the
    // host-timed figure (which needs a batch of host_ops).
    first_s = engine.run(1);
    for (int i = 1; i < kBatchProbes; ++i) first_s = std::min(first_s, engine.run(1));
  });
  outcome.ops_per_sample = batch_size(slowest(bootstrap, first_s), settings.sample_target_s, settings.max_ops);
  const int ops = outcome.ops_per_sample;
  const bool host_timed = ops >= settings.host_ops;
  auto timed = [&] {
    const double seconds = slowest(bootstrap, engine.run(ops));
    const double host_s = host_timed ? slowest(bootstrap, engine.run_host(settings.host_ops)) / settings.host_ops : 0;
    on_sample(seconds, ops, host_s);
    return seconds;
  };
  if (bootstrap.rank() == 0)
    sample_as_leader(bootstrap, timed, ops, measure);
  else
    sample_as_follower(bootstrap, timed);
  long long wrong = 0;
  in_step(bootstrap, "verification", [&] { wrong = engine.check(); });
  for (const auto& each : bootstrap.gather(std::to_string(wrong), 0)) {
    outcome.wrong_by_rank.push_back(std::stoll(each));
    outcome.wrong += outcome.wrong_by_rank.back();
  }
  return outcome;
}

void wait_or_abort(const std::function<bool()>& done, double timeout_s, const std::function<void()>& abort) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::microseconds(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      abort();
      throw CollectiveHung("the collective did not complete within " + std::to_string(static_cast<int>(timeout_s)) +
                           " s; its communicators were aborted (a stuck communicator cannot be recovered in this "
                           "process: the benchmarks after it get new ones)");
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::microseconds(200)) pause *= 2;
  }
}

}  // namespace gpubench::collective
